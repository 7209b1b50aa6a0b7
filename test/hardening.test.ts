import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { createActivities } from '../activities';
import { createHttpServer } from '../api/http/server';
import { loadConfig } from '../domain/config';
import { freePort, ROOT } from '../stack/proc';
import { activityDepsFor, newKey, submit, startJobStack, videositeCaptionRoutes, VIDEO_URL, type JobStack } from './support/job-stack';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import { createOutbound } from '../integrations/outbound/http';
import { reserveAndPut, complete } from './support/uploads';
import { startTestWorker } from './support/worker';
import { audioDir, makeSpeech, PARAGRAPHS } from './support/speech';
import { startTcpProxy } from './support/tcp-proxy';
import { randomUUID } from 'node:crypto';

// Issue 9: what an attacker or an unlucky operator found. Each case failed
// before its fix (500s, bare 400s, endless waits, unsafe defaults).

let api: TestApi;
let pro: TestWorkspace;

beforeAll(async () => {
  api = await startTestApi();
  pro = await createWorkspace(api.deps, { plan: 'pro' });
});
afterAll(() => api.close());

function expectEnvelope(res: { status: number; headers: Record<string, string>; body: any }, code: string, status: number) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

describe('text PostgreSQL cannot store is refused at the edge', () => {
  const NUL = '\u0000';
  const cases: { name: string; send: (a: TestApi) => request.Test; detail: string }[] = [
    {
      name: 'NUL in a metadata value',
      send: (a) =>
        a.app &&
        request(a.app)
          .post('/v1/jobs')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .send({ source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { k: `a${NUL}b` } }),
      detail: 'metadata.k',
    },
    {
      name: 'NUL in a metadata key',
      send: (a) =>
        request(a.app)
          .post('/v1/jobs')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .send({ source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { [`k${NUL}`]: 'v' } }),
      detail: 'metadata (key)',
    },
    {
      name: 'NUL in source.url',
      send: (a) =>
        request(a.app)
          .post('/v1/jobs')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .send({ source: { url: `${VIDEO_URL}${NUL}` }, mode: 'captions_only' }),
      detail: 'source.url',
    },
    {
      name: 'NUL in a batch item',
      send: (a) =>
        request(a.app)
          .post('/v1/batches')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .send({ items: [{ source: { url: VIDEO_URL }, mode: 'captions_only', metadata: { k: NUL } }] }),
      detail: 'items[0].metadata.k',
    },
    {
      name: 'NUL in an upload filename',
      send: (a) =>
        request(a.app)
          .post('/v1/uploads')
          .set(bearer(pro.apiKey))
          .send({ filename: `a${NUL}.mp3`, content_type: 'audio/mpeg', bytes: 10 }),
      detail: 'filename',
    },
    {
      name: 'NUL in a sign-up display_name',
      send: (a) =>
        request(a.app)
          .post('/app/sign-up')
          .send({ email: 'nul@example.test', password: 'long enough password', display_name: `x${NUL}` }),
      detail: 'display_name',
    },
    {
      name: 'NUL in a sign-in email',
      send: (a) =>
        request(a.app)
          .post('/app/session')
          .send({ email: `a${NUL}@example.test`, password: 'whatever password' }),
      detail: 'email',
    },
    {
      name: 'NUL in a query string',
      send: (a) =>
        request(a.app)
          .get('/v1/jobs')
          .query({ cursor: `x${NUL}` })
          .set(bearer(pro.apiKey)),
      detail: 'cursor',
    },
    {
      name: 'a lone surrogate in metadata',
      // Raw JSON text: "\ud800" parses to an unpaired high surrogate.
      send: (a) =>
        request(a.app)
          .post('/v1/jobs')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .set('content-type', 'application/json')
          .send(`{"source":{"url":"${VIDEO_URL}"},"mode":"captions_only","metadata":{"k":"x\\ud800y"}}`),
      detail: 'metadata.k',
    },
    {
      name: 'a lone low surrogate in a metadata key',
      send: (a) =>
        request(a.app)
          .post('/v1/jobs')
          .set(bearer(pro.apiKey))
          .set('Idempotency-Key', newKey())
          .set('content-type', 'application/json')
          .send(`{"source":{"url":"${VIDEO_URL}"},"mode":"captions_only","metadata":{"\\udc00":"v"}}`),
      detail: 'metadata (key)',
    },
  ];
  it.each(cases)('$name → 422 INVALID_REQUEST naming the field, not retryable', async ({ send, detail }) => {
    const res = await send(api);
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe(detail);
    expect(res.body.error.retryable).toBe(false);
  });

  it('keeps well-formed text, astral characters included', async () => {
    const res = await request(api.app)
      .post('/v1/jobs')
      .set(bearer(pro.apiKey))
      .set('Idempotency-Key', newKey())
      .send({ source: { url: 'https://127.0.0.1/a.mp3' }, mode: 'captions_only', metadata: { emoji: '🎙️ ok', cjk: '日本語' } });
    // Reaches the domain rule (direct links need transcribe), so the text passed the edge.
    expect(res.body.error.code).toBe('CAPABILITY_UNAVAILABLE');
  });
});

describe('HTTP-level errors keep the envelope', () => {
  it.each([
    ['gzip', 400, 'BAD_REQUEST'],
    ['br', 400, 'BAD_REQUEST'],
    ['deflate', 400, 'BAD_REQUEST'],
    ['x-unknown', 415, 'UNSUPPORTED_ENCODING'],
  ])('a body that claims Content-Encoding %s without having it → %i %s', async (encoding, status, code) => {
    const res = await request(api.app)
      .post('/app/session')
      .set('content-type', 'application/json')
      .set('content-encoding', encoding)
      .send('{"email":"a@example.test","password":"x"}');
    expectEnvelope(res, code, status);
    expect(res.body.error.details.detail).toBe('Content-Encoding');
  });

  it('answers a request the HTTP parser rejects with the envelope and X-Request-Id', async () => {
    const server = createHttpServer(api.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    server.close();
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    const requestId = /x-request-id: (\S+)/i.exec(head!)?.[1];
    expect(requestId).toBeTruthy();
    const parsed = JSON.parse(body!);
    expect(parsed).toMatchObject({ error: { code: 'BAD_REQUEST', retryable: false }, request_id: requestId });
  });

  it.each([
    ['get', '/v1/batches', 'POST'],
    ['delete', '/v1/jobs', 'GET, HEAD, POST'],
    ['put', '/v1/jobs/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ['get', '/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000', 'DELETE'],
  ] as const)('%s %s → 405 with Allow: %s', async (method, url, allow) => {
    const res = await request(api.app)[method](url).set(bearer(pro.apiKey));
    expectEnvelope(res, 'METHOD_NOT_ALLOWED', 405);
    expect(res.headers.allow).toBe(allow);
  });

  it('still answers 404 for a path that does not exist at all', async () => {
    expectEnvelope(await request(api.app).get('/v1/nothing-here'), 'NOT_FOUND', 404);
  });
});

describe('dependencies down', () => {
  it('a database outage answers 503 SERVICE_UNAVAILABLE with Retry-After, retryable', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.host = proxy.address;
    const down = await startTestApi({ DATABASE_URL: url.toString() }, {}, 2);
    try {
      await request(down.app).get('/v1/usage').set(bearer(pro.apiKey)).expect(200);
      await proxy.cut();
      const res = await request(down.app).get('/v1/usage').set(bearer(pro.apiKey));
      expectEnvelope(res, 'SERVICE_UNAVAILABLE', 503);
      expect(res.body.error).toMatchObject({ retryable: true, details: { detail: 'database' } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      await proxy.restore();
      // Back: the pool reconnects on its own.
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await request(down.app).get('/v1/usage').set(bearer(pro.apiKey))).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await down.close().catch(() => undefined);
      await proxy.close();
    }
  });

  it('an unreachable Temporal answers 503 SERVICE_UNAVAILABLE, and nothing is left half-written', async () => {
    const closed = await freePort();
    const temporal = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${closed}`, connectTimeout: 1000 }) });
    const down = await startTestApi({ CANCEL_WAIT_SECONDS: '2' }, { temporal });
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    try {
      // Accepted by a healthy API (its workflow waits for a worker that never comes)...
      const job = (await submit(api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' })).body;
      expect(job.status).toBe('queued');
      // ...then cancelled through an API whose Temporal is gone.
      const res = await request(down.app).post(`/v1/jobs/${job.id}/cancel`).set(bearer(ws.apiKey));
      expectEnvelope(res, 'SERVICE_UNAVAILABLE', 503);
      expect(res.body.error).toMatchObject({ retryable: true });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect((await api.deps.db.job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe('queued');
    } finally {
      await temporal.connection.close();
      await down.close();
    }
  });
});

describe('bounded waits', () => {
  let stack: JobStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('a cancel with no worker running answers 202 after CANCEL_WAIT_SECONDS, is kept in the workflow history and applies once a worker runs', async () => {
    // A caption job whose source answers slowly keeps the job in the cancellable window.
    stack = await startJobStack(videositeCaptionRoutes({ captionDelayMs: 3000 }));
    const quick = await startTestApi({ TEMPORAL_TASK_QUEUE: stack.api.deps.config.TEMPORAL_TASK_QUEUE, CANCEL_WAIT_SECONDS: '1' });
    try {
      const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
      const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
      expect(res.status).toBe(202);
      // Stop the only worker: nobody can decide the update now.
      await stack.worker.stop();
      const started = Date.now();
      const pending = await request(quick.app).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(ws.apiKey));
      expect(Date.now() - started).toBeLessThan(8000);
      // The answer says what is true: recorded, not yet applied; the job as it is.
      expect(pending.status).toBe(202);
      expect(pending.headers.location).toBe(`/v1/jobs/${res.body.id}`);
      expect(pending.body).toMatchObject({ id: res.body.id, status: expect.stringMatching(/^(queued|processing)$/) });
      // A worker again (first, so the stack can always be torn down): the cancel applies without being sent again.
      const s = stack!;
      s.worker = await startTestWorker(
        createActivities(activityDepsFor(s.api, s.outbound, { originOverride: s.origin.url })),
        s.api.deps.config.TEMPORAL_TASK_QUEUE,
      );
      const after = await request(stack.api.app).get(`/v1/jobs/${res.body.id}`).query({ wait: 20 }).set(bearer(ws.apiKey));
      expect(after.body.status).toBe('cancelled');
      const usage = await request(stack.api.app).get('/v1/usage').set(bearer(ws.apiKey));
      expect(usage.body.credits_reserved).toBe(0);
      // Durable: the request is an event of the workflow's history (a signal), not only an update the server held in memory.
      const history = await stack.api.deps.temporal.workflow.getHandle(`job-${res.body.id}`).fetchHistory();
      const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'cancelRequest');
      expect(signals).toHaveLength(1);
      // Sending it again is harmless: the job is final.
      const again = await request(stack.api.app).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(ws.apiKey));
      expectEnvelope(again, 'CANCELLATION_NOT_ALLOWED', 409);
    } finally {
      await quick.close();
    }
  });

  it('an upload completion that outlasts UPLOAD_VERIFY_WAIT_SECONDS answers 202 verifying; polling shows it ready later', async () => {
    const taskQueue = `uploads-${randomUUID()}`;
    const quick = await startTestApi({ TEMPORAL_TASK_QUEUE: taskQueue, UPLOAD_VERIFY_WAIT_SECONDS: '1' });
    const ws = await createWorkspace(quick.deps, { plan: 'pro' });
    const audio = await audioDir();
    const speech = await makeSpeech(PARAGRAPHS[0]!, audio.dir, 'talk', { format: 'mp3' });
    const { slot } = await reserveAndPut(quick, ws, speech.path, 'audio/mpeg');
    // No worker on this queue yet: the verification cannot finish in time.
    const res = await complete(quick, ws, slot.id);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('verifying');
    expect(res.headers.location).toBe(`/v1/uploads/${slot.id}`);
    const polled = await request(quick.app).get(`/v1/uploads/${slot.id}`).set(bearer(ws.apiKey));
    expect(polled.body.status).toBe('verifying');
    // A job cannot use it yet.
    const job = await submit(quick, ws.apiKey, { source: { upload_id: slot.id }, mode: 'transcribe' });
    expect(job.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'source.upload_id' } });
    const outbound = createOutbound({ timeoutMs: 2000 });
    const worker = await startTestWorker(createActivities(activityDepsFor(quick, outbound)), taskQueue);
    try {
      let status = 'verifying';
      for (let i = 0; i < 100 && status === 'verifying'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await request(quick.app).get(`/v1/uploads/${slot.id}`).set(bearer(ws.apiKey))).body.status;
      }
      expect(status).toBe('ready');
    } finally {
      await worker.stop();
      await outbound.close();
      await quick.close();
      await audio.cleanup();
    }
  });
});

describe('safe by default', () => {
  it('APP_ENV defaults to production, which refuses to start without its secrets and names them', () => {
    const env = { DATABASE_URL: 'postgresql://x@127.0.0.1/db' };
    expect(() => loadConfig(env)).toThrow(/SECRETS_KEY[\s\S]*PUBLIC_BASE_URL/);
    expect(() =>
      loadConfig({ ...env, S3_ENDPOINT: 'http://minio:9000', SECRETS_KEY: 'k'.repeat(40), PUBLIC_BASE_URL: 'https://api.example.test' }),
    ).toThrow(/S3_ACCESS_KEY[\s\S]*S3_SECRET_KEY/);
    const cfg = loadConfig({ ...env, SECRETS_KEY: 'k'.repeat(40), PUBLIC_BASE_URL: 'https://api.example.test' });
    expect(cfg.APP_ENV).toBe('production');
    expect(loadConfig({ ...env, APP_ENV: 'development' }).APP_ENV).toBe('development');
  });

  it('production (the default) serves no dev outbox and sets Secure cookies', async () => {
    const prod = await startTestApi({ APP_ENV: undefined, SECRETS_KEY: 's'.repeat(40), PUBLIC_BASE_URL: 'https://api.example.test' });
    try {
      expect(prod.deps.config.APP_ENV).toBe('production');
      expect((await request(prod.app).get('/app/dev/outbox')).status).toBe(404);
      const ws = await createWorkspace(prod.deps);
      const res = await request(prod.app).post('/app/session').send({ email: ws.email, password: ws.password }).expect(200);
      expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/Secure/);
    } finally {
      await prod.close();
    }
  });

  it('docker-compose.yml defaults APP_ENV to production and passes SECRETS_KEY through', () => {
    const compose = YAML.parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
    const env = compose['x-app'].environment;
    expect(env.APP_ENV).toBe('${APP_ENV:-production}');
    expect(env.SECRETS_KEY).toBe('${SECRETS_KEY:-}');
  });
});

describe('idempotent replays are not new work', () => {
  it("20 replays of one key use one of the trial's 10 submits a minute", async () => {
    const ws = await createWorkspace(api.deps); // trial: 10 submits per minute
    const key = newKey();
    const body = { source: { url: VIDEO_URL }, mode: 'captions_only' };
    // Accepted (its workflow waits on a queue no worker serves here); that is all this test needs.
    const first = await submit(api, ws.apiKey, body, key);
    expect(first.status).toBe(202);
    expect(first.headers['ratelimit-remaining']).toBe('9');
    for (let i = 0; i < 20; i++) {
      const replay = await submit(api, ws.apiKey, body, key);
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(first.body.id);
    }
    const next = await request(api.app)
      .post('/v1/uploads')
      .set(bearer(ws.apiKey))
      .send({ filename: 'a.mp3', content_type: 'audio/mpeg', bytes: 10 });
    expect(next.status).toBe(201);
    expect(next.headers['ratelimit-remaining']).toBe('8');
  });
});

describe('the test stack never leaves loopback, by construction', () => {
  it('platform traffic without the replay origin is refused before it connects', async () => {
    const outbound = createOutbound({ timeoutMs: 1000 });
    try {
      await expect(outbound.fetchText('videosite', 'https://www.youtube.com/watch?v=rCAS2eD-mcw')).rejects.toThrow(/loopback only/);
    } finally {
      await outbound.close();
    }
  });

  it('yt-dlp is not started without the replay origin', async () => {
    const { downloadAudio } = await import('../integrations/media/download');
    await expect(
      downloadAudio('https://www.youtube.com/watch?v=rCAS2eD-mcw', 'videosite', { toDir: '/tmp', outbound: {} }),
    ).rejects.toThrow(/loopback only/);
  });

  it('a job with an invented direct link is refused at submit without a DNS lookup', async () => {
    const res = await submit(api, pro.apiKey, { source: { url: 'https://media.invented-by-a-fuzzer.example/a.mp3' }, mode: 'transcribe' });
    expect(res.body.error).toMatchObject({
      code: 'UNSAFE_URL',
      message: expect.stringMatching(/loopback only/),
      details: { detail: 'source.url' },
    });
  });
});
