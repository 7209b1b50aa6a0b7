import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { loadConfig, outboundSettings } from '../../domain/config';
import { createOutbound, DEFAULT_USER_AGENT, type Outbound } from '../../integrations/outbound/http';
import { Semaphore } from '../../integrations/outbound/semaphore';
import { startReplayOrigin, type ReplayOrigin } from '../support/replay-origin';

let origin: ReplayOrigin;
const outbounds: Outbound[] = [];
function outbound(config: Parameters<typeof createOutbound>[0] = {}): Outbound {
  const o = createOutbound({ originOverride: origin.url, ...config });
  outbounds.push(o);
  return o;
}

beforeAll(async () => {
  origin = await startReplayOrigin();
});
afterEach(async () => {
  await Promise.all(outbounds.splice(0).map((o) => o.close()));
  origin.requests.length = 0;
});
afterAll(() => origin.close());

describe('origin override', () => {
  test('replaces scheme, host and port only; the platform host travels in X-Forwarded-Host', async () => {
    origin.setRoutes([
      {
        method: 'POST',
        path: '/youtubei/v1/player',
        host: 'youtubei.googleapis.com',
        status: 200,
        json: { ok: true },
        headers: { 'x-answer': 'yes' },
      },
    ]);
    const body = JSON.stringify({ videoId: 'dQw4w9WgXcQ', context: { client: { clientName: 'ANDROID' } } });
    const res = await outbound().fetchJson(
      'videosite',
      'https://youtubei.googleapis.com/youtubei/v1/player?prettyPrint=false&$fields=playerResponse&x=a%2Fb,c',
      {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json' },
      },
    );

    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(res.headers['x-answer']).toBe('yes');
    expect(res.url).toBe('https://youtubei.googleapis.com/youtubei/v1/player?prettyPrint=false&$fields=playerResponse&x=a%2Fb,c');
    const [req] = origin.requests;
    expect(req.matched).toBe(true);
    expect(req.forwardedHost).toBe('youtubei.googleapis.com');
    expect(req.url).toBe('/youtubei/v1/player?prettyPrint=false&$fields=playerResponse&x=a%2Fb,c');
    expect(req.body).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^Mozilla\/5\.0 .*Chrome\/\d+/);
  });

  test('a port in the platform URL stays in X-Forwarded-Host; a request may set its own User-Agent', async () => {
    origin.setRoutes([{ path: '/a', body: 'ok' }]);
    await outbound().fetchText('direct', 'https://media.example.com:8443/a', { headers: { 'User-Agent': 'custom/1.0' } });
    expect(origin.requests[0].forwardedHost).toBe('media.example.com:8443');
    expect(origin.requests[0].headers['user-agent']).toBe('custom/1.0');
  });

  test('redirects are followed through the override, relative ones on the platform host', async () => {
    origin.setRoutes([
      {
        path: '/ZMabc123/',
        host: 'vm.tiktok.com',
        status: 301,
        headers: { location: 'https://www.tiktok.com/@x/video/7301234567890123456?_r=1' },
      },
      {
        path: '/@x/video/7301234567890123456',
        host: 'www.tiktok.com',
        status: 302,
        headers: { location: '/@i/video/7301234567890123456' },
      },
      { path: '/@i/video/7301234567890123456', host: 'www.tiktok.com', body: 'page' },
    ]);
    const res = await outbound().fetchText('shortvideo', 'https://vm.tiktok.com/ZMabc123/', { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('page');
    expect(res.url).toBe('https://www.tiktok.com/@i/video/7301234567890123456');
    expect(res.redirects).toEqual(['https://vm.tiktok.com/ZMabc123/', 'https://www.tiktok.com/@x/video/7301234567890123456?_r=1']);
    expect(origin.requests.map((r) => r.forwardedHost)).toEqual(['vm.tiktok.com', 'www.tiktok.com', 'www.tiktok.com']);
  });

  test('without redirect: follow a 3xx comes back as is', async () => {
    origin.setRoutes([{ path: '/r', status: 302, headers: { location: 'https://elsewhere.example/x' } }]);
    const res = await outbound().fetchText('shortvideo', 'https://vm.tiktok.com/r');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://elsewhere.example/x');
    expect(origin.requests).toHaveLength(1);
  });

  test('compressed answers are decompressed', async () => {
    origin.setRoutes([{ path: '/z', body: gzipSync(Buffer.from('hello gzip')), headers: { 'content-encoding': 'gzip' } }]);
    const res = await outbound().fetchText('videosite', 'https://www.youtube.com/z');
    expect(res.body).toBe('hello gzip');
    expect(origin.requests[0].headers['accept-encoding']).toContain('gzip');
  });

  test('an oversized answer is refused', async () => {
    origin.setRoutes([{ path: '/big', body: 'x'.repeat(5000) }]);
    await expect(outbound({ maxBodyBytes: 1000 }).fetchText('videosite', 'https://www.youtube.com/big')).rejects.toMatchObject({
      code: 'SOURCE_CHANGED',
    });
  });

  test('settings from domain/config.ts: override, proxies, loopback-only in the test stack', () => {
    const env = {
      DATABASE_URL: 'postgresql://x/y',
      PLATFORM_ORIGIN_OVERRIDE: 'http://127.0.0.1:9999',
      EGRESS_PROXIES: 'http://a:1, http://b:2',
    };
    expect(outboundSettings(loadConfig({ ...env, APP_ENV: 'test' }))).toEqual({
      originOverride: 'http://127.0.0.1:9999',
      proxies: ['http://a:1', 'http://b:2'],
      loopbackOnly: true,
    });
    expect(outboundSettings(loadConfig({ ...env, APP_ENV: 'development' })).loopbackOnly).toBe(false);
    expect(() => createOutbound({ originOverride: 'http://127.0.0.1:9999/path' })).toThrow(/without path/);
  });
});

describe('timeouts and cancellation', () => {
  test('no answer within the budget is SOURCE_TIMEOUT', async () => {
    // The answer comes after 5 s; the budget is 100 ms. Ended well before the answer (room for a loaded CI host).
    origin.setRoutes([{ path: '/slow', body: 'late', delayMs: 5000 }]);
    const started = Date.now();
    await expect(outbound({ timeoutMs: 100 }).fetchText('videosite', 'https://www.youtube.com/slow')).rejects.toMatchObject({
      code: 'SOURCE_TIMEOUT',
      retryable: true,
      detail: expect.stringContaining('www.youtube.com'),
    });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  test('a per-request budget overrides the default', async () => {
    origin.setRoutes([{ path: '/slow', body: 'late', delayMs: 300 }]);
    const res = await outbound({ timeoutMs: 100 }).fetchText('videosite', 'https://www.youtube.com/slow', { timeoutMs: 2000 });
    expect(res.body).toBe('late');
  });

  test('cancellation by the caller is not reported as a platform timeout', async () => {
    origin.setRoutes([{ path: '/slow', body: 'late', delayMs: 1000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job cancelled')), 50);
    await expect(
      outbound({ timeoutMs: 5000 }).fetchText('videosite', 'https://www.youtube.com/slow', { signal: controller.signal }),
    ).rejects.toThrow('job cancelled');
  });

  test('a refused connection is SOURCE_TIMEOUT (no answer), retryable', async () => {
    const closedPort = await unusedPort();
    const o = createOutbound({ originOverride: `http://127.0.0.1:${closedPort}` });
    outbounds.push(o);
    await expect(o.fetchText('videosite', 'https://www.youtube.com/x')).rejects.toMatchObject({
      code: 'SOURCE_TIMEOUT',
      detail: expect.stringContaining('network error'),
    });
  });
});

describe('per-platform concurrency', () => {
  test('at most N requests of one platform are in flight; other platforms are not held up', async () => {
    let active = 0;
    let peak = 0;
    const arrivals: string[] = [];
    const server = createServer((req, res) => {
      arrivals.push(req.url ?? '');
      if (req.url === '/other') return void res.end('/other');
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        res.end(req.url);
      }, 60);
    });
    const port = await listen(server);
    const o = createOutbound({ originOverride: `http://127.0.0.1:${port}`, concurrency: { videosite: 2 } });
    outbounds.push(o);
    try {
      const all = Promise.all([1, 2, 3, 4, 5, 6].map((i) => o.fetchText('videosite', `https://www.youtube.com/${i}`)));
      // While videosite is saturated, a shortvideo request goes out at once.
      const other = await o.fetchText('shortvideo', 'https://www.tiktok.com/other');
      expect(other.body).toBe('/other');
      const results = await all;
      expect(results.map((r) => r.body)).toEqual(['/1', '/2', '/3', '/4', '/5', '/6']);
      expect(peak).toBe(2);
      expect(arrivals.indexOf('/other')).toBeLessThan(arrivals.indexOf('/3'));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('a request cancelled while waiting for a slot leaves the queue', async () => {
    const slots = new Semaphore(1);
    const release = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('cancelled while queued'));
    await expect(waiting).rejects.toThrow('cancelled while queued');
    release();
    expect(slots.inUse).toBe(0);
    const again = await slots.acquire();
    expect(slots.inUse).toBe(1);
    again();
    again(); // releasing twice frees one slot only
    expect(slots.inUse).toBe(0);
  });
});

describe('egress proxies', () => {
  // A forward proxy on loopback: CONNECT tunnels to the requested target, or
  // always to `forceTarget` (an exit whose address the platform has blocked).
  interface TestProxy {
    url: string;
    connects: Array<{ target: string; auth: string | undefined }>;
    close(): void;
  }
  async function startProxy(forceTarget?: { port: number }): Promise<TestProxy> {
    const connects: TestProxy['connects'] = [];
    const server = createServer((_req, res) => res.writeHead(405).end());
    server.on('connect', (req, client, head) => {
      const auth = req.headers['proxy-authorization'];
      connects.push({ target: req.url ?? '', auth: typeof auth === 'string' ? auth : undefined });
      const [host, port] = forceTarget
        ? ['127.0.0.1', forceTarget.port]
        : [(req.url ?? '').split(':')[0], Number((req.url ?? '').split(':')[1])];
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const port = await listen(server);
    return {
      url: `http://127.0.0.1:${port}`,
      connects,
      close() {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  let blockedExit: ReplayOrigin;
  let proxyA: TestProxy;
  let proxyB: TestProxy;
  beforeAll(async () => {
    // Whatever goes out through proxy A meets a platform that has blocked A's address.
    blockedExit = await startReplayOrigin([
      { path: '/youtubei/v1/player', method: 'POST', status: 429, body: 'Too Many Requests' },
      { path: '/bot', json: { playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm you’re not a bot' } } },
    ]);
    proxyA = await startProxy({ port: Number(new URL(blockedExit.url).port) });
    proxyB = await startProxy();
  });
  afterAll(async () => {
    proxyA.close();
    proxyB.close();
    await blockedExit.close();
  });
  beforeEach(() => {
    proxyA.connects.length = 0;
    proxyB.connects.length = 0;
    blockedExit.requests.length = 0;
  });

  test('a 429 through one proxy is retried through the next, which then stays in use', async () => {
    origin.setRoutes([
      { path: '/youtubei/v1/player', method: 'POST', json: { ok: 'via B' } },
      { path: '/other', body: 'fine' },
    ]);
    const withCredentials = proxyB.url.replace('http://', 'http://user:s3cret@');
    const o = outbound({ proxies: [proxyA.url, withCredentials] });

    const first = await o.fetchJson('videosite', 'https://youtubei.googleapis.com/youtubei/v1/player', {
      method: 'POST',
      json: { videoId: 'x' },
    });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ ok: 'via B' });
    expect(first.proxy).toBe(proxyB.url); // credentials never leave in the answer
    expect(blockedExit.requests.map((r) => r.path)).toEqual(['/youtubei/v1/player']);
    expect(origin.requests[0].body).toBe(JSON.stringify({ videoId: 'x' })); // the retry resends the same body
    expect(proxyB.connects[0].auth).toBe(`Basic ${Buffer.from('user:s3cret').toString('base64')}`);

    // The next videosite request starts on B: A is not asked again.
    await o.fetchText('videosite', 'https://www.youtube.com/other');
    expect(blockedExit.requests).toHaveLength(1);
    expect(origin.requests).toHaveLength(2);

    // The rotation is per platform: shortvideo still starts on A.
    const short = await o.fetchText('shortvideo', 'https://www.tiktok.com/other');
    expect(short.status).toBe(404); // A's exit has no such route: not a block, so no rotation
    expect(short.proxy).toBe(proxyA.url);
  });

  test('an answer the caller recognises as a block (bot check) also rotates', async () => {
    origin.setRoutes([{ path: '/bot', json: { playabilityStatus: { status: 'OK' } } }]);
    const o = outbound({ proxies: [proxyA.url, proxyB.url] });
    const res = await o.fetchJson('videosite', 'https://youtubei.googleapis.com/bot', { isBlocked: (r) => r.body.includes('not a bot') });
    expect(res.json).toEqual({ playabilityStatus: { status: 'OK' } });
    expect(res.proxy).toBe(proxyB.url);
    expect(blockedExit.requests).toHaveLength(1);
  });

  test('when every proxy is blocked the last answer is returned for the caller to map', async () => {
    const o = outbound({ proxies: [proxyA.url] });
    const res = await o.fetchText('videosite', 'https://youtubei.googleapis.com/youtubei/v1/player', { method: 'POST', body: '{}' });
    expect(res.status).toBe(429);
    expect(blockedExit.requests).toHaveLength(1);
  });

  test('a proxy that is down is skipped', async () => {
    origin.setRoutes([{ path: '/x', body: 'through B' }]);
    const dead = `http://127.0.0.1:${await unusedPort()}`;
    const res = await outbound({ proxies: [dead, proxyB.url] }).fetchText('videosite', 'https://www.youtube.com/x');
    expect(res.body).toBe('through B');
    expect(res.proxy).toBe(proxyB.url);
  });
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
