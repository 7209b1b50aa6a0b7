import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import express from 'express';
import { createLocalUploadHandler } from '../../integrations/storage/local-upload-handler';
import { LocalDiskObjectStore } from '../../integrations/storage/local-disk-object-store';
import { S3ObjectStore } from '../../integrations/storage/s3-object-store';
import { verifyStoredUpload } from '../../integrations/storage/verify-upload';
import { ServiceError } from '../../core/errors';
import { HEADS, padded, wavFile } from './media-samples';

// The local-disk store's signed PUT, through a real HTTP server on loopback.

let copies = 0;
/** Where verifyStoredUpload leaves its copy of the object: a new file in this test's folder. */
const copyTo = () => path.join(dir, `verified-${++copies}`);
let dir: string;
let server: http.Server;
let base: string;
let clock = Date.UTC(2026, 10, 21, 12, 0, 0);
let store: LocalDiskObjectStore;
let n = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-store-'));
  let handler: ReturnType<typeof createLocalUploadHandler> | undefined;
  server = http.createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  store = new LocalDiskObjectStore({ root: path.join(dir, 'objects'), baseUrl: base, signingSecret: randomBytes(32), now: () => clock });
  await store.ensureBucket();
  handler = createLocalUploadHandler(store);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const WAV = wavFile(2000);
const key = () => `uploads/ws1/${++n}-file`;

async function put(url: string, body: Buffer, headers: Record<string, string> = { 'content-type': 'audio/wav' }) {
  const res = await fetch(url, { method: 'PUT', body, headers });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as { error: { code: string; details?: { detail: string } } }) : null,
    headers: res.headers,
  };
}

function tmpLeftovers(): string[] {
  return fs.readdirSync(path.join(store.root, '.tmp'));
}

describe('local signed PUT', () => {
  test('a valid upload is stored with its type and can be read back, verified and downloaded', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 86_400 });
    expect(url).toMatch(
      new RegExp(
        `^${base}/uploads/put/uploads/ws1/\\d+-file\\?expires=\\d+&content_type=audio%2Fwav&bytes=${WAV.length}&signature=[\\w-]{43}$`,
      ),
    );
    const res = await put(url, WAV);
    expect(res.status).toBe(200);
    expect(await store.stat(k)).toEqual({ size: WAV.length, contentType: 'audio/wav' });
    expect((await store.readRange(k, 0, 12)).toString('latin1')).toBe('RIFF' + WAV.toString('latin1', 4, 8) + 'WAVE');
    await expect(verifyStoredUpload(store, k, { bytes: WAV.length, contentType: 'audio/wav' }, copyTo())).resolves.toEqual({
      format: 'wav',
    });
    const out = path.join(dir, 'download.wav');
    await store.download(k, out);
    expect(fs.readFileSync(out).equals(WAV)).toBe(true);
    expect(tmpLeftovers()).toEqual([]);
  });

  test('Content-Type parameters and case do not matter; the type itself does', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    expect((await put(url, WAV, { 'content-type': 'Audio/WAV; codecs=1' })).status).toBe(200);
  });

  test('an expired URL is refused (403) and nothing is stored', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    clock += 61_000;
    try {
      const res = await put(url, WAV);
      expect(res.status).toBe(403);
      expect(res.json?.error.code).toBe('FORBIDDEN');
      expect(res.json?.error.details?.detail).toMatch(/^upload URL expired at 2026-11-21T12:01:00.000Z; reserve a new upload$/);
      expect(await store.stat(k)).toBeNull();
    } finally {
      clock -= 61_000;
    }
  });

  test.each([
    ['signature', (u: URL) => u.searchParams.set('signature', flip(u.searchParams.get('signature')!))],
    ['signature (truncated)', (u: URL) => u.searchParams.set('signature', u.searchParams.get('signature')!.slice(0, 20))],
    ['expires (extended)', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 86_400))],
    ['bytes', (u: URL) => u.searchParams.set('bytes', String(WAV.length + 1))],
    ['content_type', (u: URL) => u.searchParams.set('content_type', 'video/mp4')],
    ['key', (u: URL) => (u.pathname = u.pathname.replace('/ws1/', '/ws2/'))],
  ])('a URL with a tampered %s is refused (403) and nothing is stored', async (_what, tamper) => {
    const k = key();
    const url = new URL(await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 }));
    tamper(url);
    const res = await put(url.href, WAV, { 'content-type': url.searchParams.get('content_type')! });
    expect(res.status).toBe(403);
    expect(res.json?.error.code).toBe('FORBIDDEN');
    expect(res.json?.error.details?.detail).toContain('signature does not match');
    expect(res.headers.get('connection')).toBe('close');
    expect(await store.stat(k)).toBeNull();
  });

  test('a URL without its signed fields is refused', async () => {
    const res = await put(`${base}/uploads/put/uploads/x/y?expires=1`, WAV);
    expect(res.status).toBe(403);
    expect(res.json?.error.details?.detail).toContain('incomplete');
  });

  test.each([
    ['a different type', { 'content-type': 'audio/mpeg' }, 'Content-Type "audio/mpeg" must be audio/wav'],
    ['no type', {}, 'Content-Type is missing; it must be audio/wav'],
  ])('%s is refused (422) before the body is read', async (_name, headers, detail) => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    const res = await put(url, WAV, headers as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.json?.error.code).toBe('INVALID_REQUEST');
    expect(res.json?.error.details?.detail).toContain(detail);
    expect(await store.stat(k)).toBeNull();
  });

  test('a shorter body (Content-Length below the signed size) is refused (422)', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    const res = await put(url, WAV.subarray(0, WAV.length - 1));
    expect(res.status).toBe(422);
    expect(res.json?.error.details?.detail).toBe(
      `Content-Length ${WAV.length - 1} is not the ${WAV.length} bytes declared for this upload`,
    );
    expect(await store.stat(k)).toBeNull();
  });

  test('a larger body (Content-Length above the signed size) is refused (413) without reading it', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    const res = await put(url, Buffer.concat([WAV, Buffer.alloc(1_000_000)]));
    expect(res.status).toBe(413);
    expect(res.json?.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await store.stat(k)).toBeNull();
  });

  test('a chunked body (no Content-Length) is refused', async () => {
    const k = key();
    const url = new URL(await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 }));
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'audio/wav', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(WAV);
      req.end();
    });
    expect(status).toBe(422);
    expect(await store.stat(k)).toBeNull();
  });

  test('bytes past the declared size are never stored', async () => {
    // HTTP framing ends the body at Content-Length; whatever follows on the
    // connection is not part of the object.
    const k = key();
    const url = new URL(await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 }));
    // Node answers the trailing bytes as a second, malformed request (400); the upload itself completes.
    await rawRequest(url, Buffer.concat([head(url, WAV.length), WAV, Buffer.from('EXTRA BYTES THAT MUST NOT BE STORED')]));
    await waitUntil(() => fs.existsSync(path.join(store.root, k)));
    expect(await store.stat(k)).toEqual({ size: WAV.length, contentType: 'audio/wav' });
    expect(fs.readFileSync(path.join(store.root, k)).equals(WAV)).toBe(true);
  });

  test('an upload cut off half way stores nothing and leaves no temporary file', async () => {
    const k = key();
    const url = new URL(await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 }));
    await rawRequest(url, Buffer.concat([head(url, WAV.length), WAV.subarray(0, 1000)]), { hangUp: true });
    await waitUntil(() => tmpLeftovers().length === 0);
    expect(await store.stat(k)).toBeNull();
  });

  test('a half-sent re-upload does not replace the object already there', async () => {
    const k = key();
    const url = await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    expect((await put(url, WAV)).status).toBe(200);
    await rawRequest(new URL(url), Buffer.concat([head(new URL(url), WAV.length), Buffer.alloc(500)]), { hangUp: true });
    await waitUntil(() => tmpLeftovers().length === 0);
    expect(fs.readFileSync(path.join(store.root, k)).equals(WAV)).toBe(true);
  });

  test('other methods get 405; the CORS preflight is answered', async () => {
    const url = await store.presignPut(key(), { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 });
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('PUT, OPTIONS');
    const pre = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('a failing disk is STORAGE_UNAVAILABLE (503, retryable)', async () => {
    const root = path.join(dir, 'not-a-folder');
    fs.writeFileSync(root, 'a file where the data folder should be');
    const broken = new LocalDiskObjectStore({ root, baseUrl: base, signingSecret: randomBytes(32) });
    const brokenServer = http.createServer(createLocalUploadHandler(broken));
    await new Promise<void>((resolve) => brokenServer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (brokenServer.address() as AddressInfo).port;
      const url = (await broken.presignPut('uploads/a', { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 })).replace(
        base,
        `http://127.0.0.1:${port}`,
      );
      const res = await put(url, WAV);
      expect(res.status).toBe(503);
      expect(res.json?.error.code).toBe('STORAGE_UNAVAILABLE');
      expect(res.json).toMatchObject({ error: { retryable: true } });
      await expect(broken.ensureBucket()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    } finally {
      brokenServer.closeAllConnections();
      await new Promise((resolve) => brokenServer.close(resolve));
    }
  });

  test('mounted in Express before the JSON parser: uploads work and other routes still get JSON', async () => {
    const app = express();
    app.use(createLocalUploadHandler(store));
    app.use(express.json());
    app.post('/v1/echo', (req, res) => void res.json(req.body));
    const s = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => s.once('listening', resolve));
    try {
      const port = (s.address() as AddressInfo).port;
      const k = key();
      const url = (await store.presignPut(k, { contentType: 'audio/wav', bytes: WAV.length, expiresSeconds: 60 })).replace(
        base,
        `http://127.0.0.1:${port}`,
      );
      expect((await put(url, WAV)).status).toBe(200);
      expect((await store.stat(k))?.size).toBe(WAV.length);
      const echo = await fetch(`http://127.0.0.1:${port}/v1/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(await echo.json()).toEqual({ a: 1 });
    } finally {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });
});

test('with an S3 store the handler routes nothing: every request goes to next', async () => {
  const s3 = new S3ObjectStore({ endpoint: 'http://127.0.0.1:1', accessKey: 'a', secretKey: 'b', bucket: 'x' });
  const next = jest.fn();
  createLocalUploadHandler(s3)(
    { url: '/uploads/put/a?expires=1', method: 'PUT', headers: {} } as http.IncomingMessage,
    {} as http.ServerResponse,
    next,
  );
  expect(next).toHaveBeenCalledWith();
});

describe('LocalDiskObjectStore', () => {
  test('presign refuses sizes over 250 MB, bad keys and bad types', async () => {
    await expect(store.presignPut('uploads/a', { contentType: 'audio/wav', bytes: 262_144_001, expiresSeconds: 60 })).rejects.toMatchObject(
      { code: 'FILE_TOO_LARGE' },
    );
    for (const bad of ['../etc/passwd', '/abs', 'a//b', 'a/../b', '.meta/x', 'a/.tmp', '', 'a b', 'a/b/']) {
      await expect(store.presignPut(bad, { contentType: 'audio/wav', bytes: 10, expiresSeconds: 60 })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
    }
    await expect(store.presignPut('uploads/a', { contentType: 'audio/wav\r\nx: y', bytes: 10, expiresSeconds: 60 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  test('put (buffer and file), stat, readRange, download, delete', async () => {
    const k = key();
    await store.put(k, Buffer.from('hello world'), 'text/plain');
    expect(await store.stat(k)).toEqual({ size: 11, contentType: 'text/plain' });
    expect((await store.readRange(k, 6, 11)).toString()).toBe('world');
    expect((await store.readRange(k, 6, 100)).toString()).toBe('world');
    expect((await store.readRange(k, 50, 60)).length).toBe(0);
    const src = path.join(dir, 'src.wav');
    fs.writeFileSync(src, WAV);
    await store.put(k, src, 'audio/wav');
    expect(await store.stat(k)).toEqual({ size: WAV.length, contentType: 'audio/wav' });
    await store.delete(k);
    await store.delete(k); // already gone: fine
    expect(await store.stat(k)).toBeNull();
    await expect(store.download(k, path.join(dir, 'x'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.readRange(k, 0, 4)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.stat('uploads')).toBeNull(); // a folder is not an object
  });
});

describe('LocalDiskObjectStore.receive (the write behind the handler)', () => {
  test('a stream that runs past the declared size is stopped with 413 and nothing is stored', async () => {
    const k = key();
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 65_536;
        this.push(produced > 50_000_000 ? null : Buffer.alloc(65_536));
      },
    });
    await expect(store.receive(k, endless, 100_000, 'audio/wav')).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(produced).toBeLessThan(1_000_000);
    expect(await store.stat(k)).toBeNull();
    expect(tmpLeftovers()).toEqual([]);
  });

  test('a stream that ends short stores nothing', async () => {
    const k = key();
    await expect(store.receive(k, Readable.from([Buffer.alloc(10)]), 11, 'audio/wav')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await store.stat(k)).toBeNull();
  });
});

describe('verifyStoredUpload', () => {
  async function stored(body: Buffer, type: string): Promise<string> {
    const k = key();
    await store.put(k, body, type);
    return k;
  }
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as ServiceError,
    );

  test('nothing uploaded → CONFLICT', async () => {
    expect((await fail(verifyStoredUpload(store, key(), { bytes: 10, contentType: 'audio/wav' }, copyTo())))?.code).toBe('CONFLICT');
  });
  test('a different size → INVALID_MEDIA', async () => {
    const err = await fail(
      verifyStoredUpload(store, await stored(WAV, 'audio/wav'), { bytes: WAV.length + 5, contentType: 'audio/wav' }, copyTo()),
    );
    expect(err?.code).toBe('INVALID_MEDIA');
    expect(err?.detail).toContain(`uploaded ${WAV.length} bytes but ${WAV.length + 5} were declared`);
  });
  test('a different stored Content-Type (possible with a presigned S3 PUT) → UNSUPPORTED_MEDIA', async () => {
    const err = await fail(
      verifyStoredUpload(store, await stored(WAV, 'text/html'), { bytes: WAV.length, contentType: 'audio/wav' }, copyTo()),
    );
    expect(err?.code).toBe('UNSUPPORTED_MEDIA');
    expect(err?.detail).toBe('uploaded with Content-Type text/html but audio/wav was declared');
  });
  test('content that is no media → UNSUPPORTED_MEDIA', async () => {
    const body = padded(HEADS.html, 500);
    const err = await fail(
      verifyStoredUpload(store, await stored(body, 'audio/mpeg'), { bytes: 500, contentType: 'audio/mpeg' }, copyTo()),
    );
    expect(err?.code).toBe('UNSUPPORTED_MEDIA');
    expect(err?.detail).toContain('match no audio or video format');
  });
  test('media of another type than declared → UNSUPPORTED_MEDIA', async () => {
    const err = await fail(
      verifyStoredUpload(store, await stored(WAV, 'audio/mpeg'), { bytes: WAV.length, contentType: 'audio/mpeg' }, copyTo()),
    );
    expect(err?.detail).toBe('the file is wav, not audio/mpeg as declared');
  });
  test('allowed pairs pass', async () => {
    for (const [head, type, format] of [
      [HEADS.mp3Frame, 'audio/mpeg', 'mp3'],
      [HEADS.m4a, 'audio/x-m4a', 'mp4'],
      [HEADS.m4a, 'audio/aac', 'mp4'],
      [HEADS.webm, 'video/webm', 'webm'],
      [HEADS.ogg, 'audio/ogg', 'ogg'],
      [HEADS.aacAdts, 'audio/aac', 'aac'],
    ] as const) {
      const body = padded(head, 300);
      await expect(verifyStoredUpload(store, await stored(body, type), { bytes: 300, contentType: type }, copyTo())).resolves.toEqual({
        format,
      });
    }
  });
});

function flip(sig: string): string {
  return (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
}

function head(url: URL, length: number): Buffer {
  return Buffer.from(
    `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: audio/wav\r\nContent-Length: ${length}\r\n\r\n`,
    'latin1',
  );
}

/** Sends raw bytes; resolves with what came back (or '' after hanging up without waiting). */
function rawRequest(url: URL, bytes: Buffer, opts: { hangUp?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(url.port), url.hostname, () => {
      sock.write(bytes, () => {
        if (opts.hangUp)
          setTimeout(() => {
            sock.destroy();
            resolve('');
          }, 50);
      });
    });
    let out = '';
    sock.on('data', (d) => {
      out += d.toString('latin1');
      if (out.includes('\r\n\r\n')) {
        sock.destroy();
        resolve(out);
      }
    });
    sock.on('error', reject);
  });
}

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
