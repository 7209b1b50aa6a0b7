import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { pinnedDispatcher } from '../../integrations/fetch/pinned-dispatcher';
import { safeFetch, type SafeFetchOptions } from '../../integrations/fetch/safe-fetch';
import type { Resolver } from '../../integrations/fetch/url-guard';
import { ServiceError } from '../../core/errors';
import { HEADS, padded, wavFile } from '../storage/media-samples';
import { startHttpsOrigin, TEST_CA, type HttpsOrigin } from './https-origin';

let origin: HttpsOrigin;
let dir: string;
let n = 0;

beforeAll(async () => {
  origin = await startHttpsOrigin();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'safefetch-'));
});
afterEach(() => {
  origin.routes.clear();
  origin.hits.length = 0;
});
afterAll(async () => {
  await origin.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Options for a loopback test: the allowance, the test CA and a fresh target file. */
function opts(extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return { toFile: path.join(dir, `out-${++n}.bin`), loopbackOnly: true, caForTests: TEST_CA, ...extra };
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${err instanceof Error ? err.stack : String(err)}`);
  return err;
}

/** Files left in the temp folder (no .part may survive a failure). */
function leftovers(): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.part'));
}

const WAV = wavFile(4000);
const serveWav = (type = 'audio/wav') =>
  origin.routes.set('/a.wav', (_req, res) => res.writeHead(200, { 'content-type': type, 'content-length': WAV.length }).end(WAV));
const redirect = (from: string, to: string, status = 302) =>
  origin.routes.set(from, (_req, res) => res.writeHead(status, { location: to }).end());

describe('safeFetch: downloads', () => {
  test('a media file is saved whole, with its format and type', async () => {
    serveWav();
    const o = opts();
    const r = await safeFetch(`${origin.url}/a.wav`, o);
    expect(r).toMatchObject({
      file: o.toFile,
      bytes: WAV.length,
      contentType: 'audio/wav',
      format: 'wav',
      finalUrl: `${origin.url}/a.wav`,
      redirects: [],
    });
    expect(fs.readFileSync(o.toFile).equals(WAV)).toBe(true);
  });

  test('a generic binary type is accepted when the bytes are media; a file shorter than the sniff window is sniffed whole', async () => {
    const tiny = padded(HEADS.mp3Id3, 20);
    origin.routes.set('/tiny', (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tiny));
    const r = await safeFetch(`${origin.url}/tiny`, opts());
    expect(r.format).toBe('mp3');
    expect(r.bytes).toBe(20);
  });

  test('without the test allowance, loopback is UNSAFE_URL and nothing is requested', async () => {
    serveWav();
    const err = await failure(safeFetch(`${origin.url}/a.wav`, opts({ loopbackOnly: false })));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toContain('127.0.0.1 is a loopback address');
    expect(origin.hits).toEqual([]);
  });

  test('http links are INVALID_URL', async () => {
    const err = await failure(safeFetch(`http://127.0.0.1:${origin.port}/a.wav`, opts()));
    expect(err.code).toBe('INVALID_URL');
  });
});

describe('safeFetch: redirects', () => {
  test('a chain of redirects (absolute and relative Location) is followed, each hop checked', async () => {
    serveWav();
    redirect('/r1', `${origin.url}/r2`, 301);
    redirect('/r2', '/r3', 307);
    redirect('/r3', 'a.wav', 308);
    const r = await safeFetch(`${origin.url}/r1`, opts());
    expect(r.format).toBe('wav');
    expect(r.redirects).toEqual([`${origin.url}/r1`, `${origin.url}/r2`, `${origin.url}/r3`]);
    expect(r.finalUrl).toBe(`${origin.url}/a.wav`);
  });

  test('5 redirects are followed, the 6th is refused', async () => {
    serveWav();
    for (let i = 1; i <= 6; i++) redirect(`/hop${i}`, i === 6 ? '/a.wav' : `/hop${i + 1}`);
    const err = await failure(safeFetch(`${origin.url}/hop1`, opts()));
    expect(err.code).toBe('SOURCE_NOT_FOUND');
    expect(err.detail).toContain('more than 5 redirects');
    expect(origin.hits).toEqual(['/hop1', '/hop2', '/hop3', '/hop4', '/hop5', '/hop6']);
    // From /hop2 it is exactly five: hop2 → hop3 → hop4 → hop5 → hop6 → a.wav.
    const ok = await safeFetch(`${origin.url}/hop2`, opts());
    expect(ok.redirects).toHaveLength(5);
  });

  test.each([
    ['https://10.1.2.3/x.mp3', 'private'],
    ['https://192.168.0.1/x.mp3', 'private'],
    ['https://169.254.169.254/latest/meta-data/iam/', 'cloud metadata'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata'],
    ['https://[::ffff:10.0.0.1]/x', 'private'],
    ['https://100.64.0.1/x', 'carrier-grade NAT'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'cloud metadata'],
  ])('a redirect to %s is UNSAFE_URL even with the loopback allowance (%s)', async (target, detail) => {
    redirect('/bounce', target);
    const err = await failure(safeFetch(`${origin.url}/bounce`, opts()));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toContain(detail);
    expect(origin.hits).toEqual(['/bounce']);
  });

  test('a redirect to a name that resolves to a private address is UNSAFE_URL', async () => {
    const resolver: Resolver = async (host) =>
      host === 'media.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '192.168.7.7', family: 4 }];
    redirect('/bounce', 'https://internal.media.test/x.mp3');
    const err = await failure(safeFetch(`https://media.test:${origin.port}/bounce`, opts({ resolver })));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toBe('internal.media.test resolves to 192.168.7.7 is a private (RFC 1918) address');
  });

  test('a redirect down to http is UNSAFE_URL', async () => {
    redirect('/down', `http://127.0.0.1:${origin.port}/a.wav`);
    const err = await failure(safeFetch(`${origin.url}/down`, opts()));
    expect(err.code).toBe('UNSAFE_URL');
    expect(err.detail).toContain('only https');
  });
});

describe('safeFetch: pinning', () => {
  test('the connection goes to the checked address: the name is resolved once per hop and never again by the connector', async () => {
    serveWav();
    // media.test exists only in this resolver; a second resolution (as a rebinding
    // attacker would exploit) would get a private address and must not happen.
    const calls: string[] = [];
    const resolver: Resolver = async (host) => {
      calls.push(host);
      return [{ address: calls.length === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const r = await safeFetch(`https://media.test:${origin.port}/a.wav`, opts({ resolver }));
    expect(r.bytes).toBe(WAV.length);
    expect(calls).toEqual(['media.test']);
  });

  test('IPv6: a name resolving to ::1 (spelled out in full) connects and passes the peer check', async () => {
    const v6 = await startHttpsOrigin('::1');
    try {
      v6.routes.set('/a.wav', (_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(WAV));
      const resolver: Resolver = async () => [{ address: '0:0:0:0:0:0:0:1', family: 6 }];
      const r = await safeFetch(`https://media.test:${v6.port}/a.wav`, opts({ resolver }));
      expect(r.bytes).toBe(WAV.length);
      const err = await failure(safeFetch(`${v6.url}/a.wav`, opts({ loopbackOnly: false })));
      expect(err.detail).toBe('::1 is a loopback address');
    } finally {
      await v6.close();
    }
  });

  test('TLS still verifies the host name against the certificate (pinning does not bypass it)', async () => {
    serveWav();
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const err = await failure(safeFetch(`https://not-in-the-cert.example:${origin.port}/a.wav`, opts({ resolver })));
    expect(err.code).toBe('SOURCE_BLOCKED');
    expect(err.detail).toMatch(/TLS failed \(ERR_TLS_CERT_ALTNAME_INVALID\)/);
  });

  test('second line: the peer address is checked again after connecting', async () => {
    serveWav();
    // A checked URL that claims 127.0.0.1 is fine, used with a policy that does not allow loopback:
    // the connector must refuse the socket before any request is written.
    const checked = {
      url: new URL(`${origin.url}/a.wav`),
      hostname: '127.0.0.1',
      addresses: [{ address: '127.0.0.1', family: 4 as const }],
    };
    const dispatcher = pinnedDispatcher(checked, {}, { ca: TEST_CA });
    const err = await request(checked.url, { dispatcher }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    await dispatcher.destroy();
    expect(err?.code).toBe('ERR_UNSAFE_PEER');
    expect(err?.message).toContain('127.0.0.1 is a loopback address');
    expect(origin.hits).toEqual([]);
  });
});

describe('safeFetch: size limit', () => {
  test('a Content-Length over the limit fails before the body is read', async () => {
    let written = 0;
    origin.routes.set('/big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': 5_000_000 });
      // Write the first chunk only; the client must not wait for the rest.
      const chunk = padded(WAV.subarray(0, 44), 64 * 1024);
      written += chunk.length;
      res.write(chunk);
    });
    const err = await failure(safeFetch(`${origin.url}/big`, opts({ maxBytes: 1_000_000 })));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.status).toBe(413);
    expect(err.detail).toContain('announces 5000000 bytes; the limit is 1000000');
    expect(written).toBeLessThan(1_000_000);
    expect(leftovers()).toEqual([]);
  });

  test('a body without Content-Length is cut off past the limit and nothing is kept', async () => {
    let sent = 0;
    let stopped!: () => void;
    const closed = new Promise<void>((resolve) => (stopped = resolve));
    origin.routes.set('/endless', (req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' }); // chunked
      const chunk = padded(WAV.subarray(0, 44), 64 * 1024);
      const pump = () => {
        while (!res.destroyed && sent < 50_000_000) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', stopped);
      req.on('close', stopped);
      pump();
    });
    const o = opts({ maxBytes: 300_000 });
    const err = await failure(safeFetch(`${origin.url}/endless`, o));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.detail).toContain('more than 300000 bytes');
    await closed;
    expect(sent).toBeLessThan(10_000_000); // stopped long before the server ran out
    expect(fs.existsSync(o.toFile)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  test('exactly the limit is fine', async () => {
    const body = padded(WAV.subarray(0, 44), 100_000);
    origin.routes.set('/exact', (_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(body));
    const r = await safeFetch(`${origin.url}/exact`, opts({ maxBytes: 100_000 }));
    expect(r.bytes).toBe(100_000);
  });
});

describe('safeFetch: media checks', () => {
  test.each(['text/html; charset=utf-8', 'application/json', 'image/png', 'application/zip'])(
    'Content-Type %s is UNSUPPORTED_MEDIA before reading',
    async (type) => {
      origin.routes.set('/page', (_req, res) => res.writeHead(200, { 'content-type': type }).end(HEADS.html));
      const err = await failure(safeFetch(`${origin.url}/page`, opts()));
      expect(err.code).toBe('UNSUPPORTED_MEDIA');
      expect(err.detail).toContain(type.split(';')[0]);
    },
  );

  test.each([
    ['an HTML page sent as octet-stream', 'application/octet-stream', padded(HEADS.html, 5000)],
    ['a zip sent as audio/mpeg', 'audio/mpeg', padded(HEADS.zip, 5000)],
    ['a PNG with no Content-Type', undefined, padded(HEADS.png, 5000)],
    ['a short text body', 'video/mp4', Buffer.from('not found')],
  ])('%s is refused by sniffing', async (_name, type, body) => {
    origin.routes.set('/fake', (_req, res) => res.writeHead(200, type ? { 'content-type': type } : {}).end(body));
    const o = opts();
    const err = await failure(safeFetch(`${origin.url}/fake`, o));
    expect(err.code).toBe('UNSUPPORTED_MEDIA');
    expect(err.detail).toContain('not audio or video');
    expect(fs.existsSync(o.toFile)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  test('a compressed body is refused (sizes are limited on stored bytes)', async () => {
    origin.routes.set('/gz', (_req, res) => res.writeHead(200, { 'content-type': 'audio/wav', 'content-encoding': 'gzip' }).end(WAV));
    expect((await failure(safeFetch(`${origin.url}/gz`, opts()))).code).toBe('UNSUPPORTED_MEDIA');
  });
});

describe('safeFetch: source answers and timeouts', () => {
  test.each([
    [404, 'SOURCE_NOT_FOUND'],
    [410, 'SOURCE_NOT_FOUND'],
    [401, 'SOURCE_AUTH_REQUIRED'],
    [403, 'SOURCE_AUTH_REQUIRED'],
    [451, 'SOURCE_REGION_RESTRICTED'],
    [500, 'SOURCE_TIMEOUT'],
    [502, 'SOURCE_TIMEOUT'],
    [503, 'SOURCE_TIMEOUT'],
    [504, 'SOURCE_TIMEOUT'],
    [400, 'SOURCE_NOT_FOUND'],
  ])('HTTP %i → %s', async (status, code) => {
    origin.routes.set('/s', (_req, res) => res.writeHead(status).end('no'));
    const err = await failure(safeFetch(`${origin.url}/s`, opts()));
    expect(err.code).toBe(code);
    expect(err.detail).toContain(String(status));
  });

  test('429 → SOURCE_RATE_LIMITED with Retry-After', async () => {
    origin.routes.set('/busy', (_req, res) => res.writeHead(429, { 'retry-after': '30' }).end());
    const err = await failure(safeFetch(`${origin.url}/busy`, opts()));
    expect(err.code).toBe('SOURCE_RATE_LIMITED');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterSeconds).toBe(30);
  });

  test('no answer in time → SOURCE_TIMEOUT', async () => {
    origin.routes.set('/silent', () => {});
    const err = await failure(safeFetch(`${origin.url}/silent`, opts({ headersTimeoutMs: 300 })));
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(err.retryable).toBe(true);
  });

  test('a body that stalls → SOURCE_TIMEOUT, nothing kept', async () => {
    origin.routes.set('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': WAV.length });
      res.write(WAV.subarray(0, 1000));
    });
    const o = opts({ idleTimeoutMs: 300 });
    const err = await failure(safeFetch(`${origin.url}/stall`, o));
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(fs.existsSync(o.toFile)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  test('the overall deadline covers the whole download', async () => {
    origin.routes.set('/slow', (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.write(WAV.subarray(0, 100));
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(Buffer.alloc(10))), 50);
    });
    const err = await failure(safeFetch(`${origin.url}/slow`, opts({ timeoutMs: 500 })));
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(err.detail).toContain('not finished within');
  });

  test('a failure writing our own file is not blamed on the source', async () => {
    serveWav();
    const err = (await safeFetch(`${origin.url}/a.wav`, opts({ toFile: path.join(dir, 'no-such-folder', 'x.wav') })).catch(
      (e: unknown) => e,
    )) as NodeJS.ErrnoException;
    expect(err).not.toBeInstanceOf(ServiceError);
    expect(err.code).toBe('ENOENT');
  });

  test('connection refused → SOURCE_TIMEOUT (retryable)', async () => {
    const err = await failure(safeFetch('https://127.0.0.1:1/a.wav', opts()));
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(err.detail).toContain('ECONNREFUSED');
  });

  test('a caller abort is passed through as is, not as a source failure', async () => {
    origin.routes.set('/silent', () => {});
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('job cancelled')), 100);
    await expect(safeFetch(`${origin.url}/silent`, opts({ signal: ac.signal }))).rejects.toThrow('job cancelled');
  });
});
