import net from 'node:net';
import request from 'supertest';
import { createHttpServer } from '../../api/http/server';
import { JSON_DEPTH_LIMIT } from '../../api/http/storable-text';
import { signedDelivery } from '../support/stripe-state';
import { bearer, createWorkspace, signInSession, startTestApi, uniqueEmail, type TestApi, type TestWorkspace } from '../support/harness';

// Issue 23, tried from the outside as an attacker or an unlucky operator
// would: each case answered 500 (or the wrong thing) before its fix. Every
// answer here is the spec's envelope (or the protocol's own error on /mcp
// and the OAuth server), with a request id, and never a 5xx.

let api: TestApi;
let ws: TestWorkspace;
let server: net.Server;
let base: string;

beforeAll(async () => {
  api = await startTestApi();
  ws = await createWorkspace(api.deps, { plan: 'pro' });
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await api.close();
});

function expectEnvelope(res: request.Response, status: number, code: string, detail?: string) {
  expect({ status: res.status, code: res.body?.error?.code, detail: res.body?.error?.details?.detail }).toEqual({
    status,
    code,
    detail: detail ?? res.body?.error?.details?.detail,
  });
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

/** JSON text nested `depth` levels deep (arrays), 8 KB of `[` for the 4,000 levels. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A raw HTTP/1.1 exchange: what a client that does not encode its request sends. */
function rawRequest(lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => {
      socket.end(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
    });
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('deeply nested JSON is refused before anything recurses (item 1)', () => {
  it.each([
    ['POST /v1/jobs, unauthenticated', '/v1/jobs'],
    ['POST /v1/jobs, with a key', '/v1/jobs'],
    ['POST /app/session', '/app/session'],
    ['POST /app/sign-up', '/app/sign-up'],
    ['POST to no route', '/v1/nothing-here'],
  ])('%s: 422 naming the limit', async (name, path) => {
    let req = request(api.app).post(path).set('Content-Type', 'application/json').set('Idempotency-Key', 'deep-json-key-1');
    if (name.includes('with a key')) req = req.set(bearer(ws.apiKey));
    const res = await req.send(nested(4000));
    expectEnvelope(res, 422, 'INVALID_REQUEST', `json_depth_limit=${JSON_DEPTH_LIMIT}`);
    expect(res.body.error.retryable).toBe(false);
  });

  it('the limit is exact: as deep as the limit passes the parser, one level more does not', async () => {
    const at = await request(api.app).post('/app/session').set('Content-Type', 'application/json').send(nested(JSON_DEPTH_LIMIT));
    expectEnvelope(at, 422, 'INVALID_REQUEST', 'body'); // parsed: an array is not a sign-in
    const over = await request(api.app)
      .post('/app/session')
      .set('Content-Type', 'application/json')
      .send(nested(JSON_DEPTH_LIMIT + 1));
    expectEnvelope(over, 422, 'INVALID_REQUEST', `json_depth_limit=${JSON_DEPTH_LIMIT}`);
    // Brackets inside strings do not count.
    const inString = await request(api.app)
      .post('/app/session')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'a@example.test', password: '['.repeat(200) }));
    expectEnvelope(inString, 401, 'UNAUTHENTICATED');
  });

  it('/mcp answers the JSON-RPC parse error, HTTP 422, naming the limit', async () => {
    const res = await request(api.app)
      .post('/mcp')
      .set(bearer(ws.apiKey))
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .send(nested(4000));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, data: { code: 'INVALID_REQUEST', detail: `json_depth_limit=${JSON_DEPTH_LIMIT}` } },
    });
  });

  it('the OAuth registration endpoint answers its own error (RFC 7591: 400 invalid_client_metadata) naming the limit', async () => {
    const res = await request(api.app).post('/oauth/register').set('Content-Type', 'application/json').send(nested(4000));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_client_metadata' });
    expect(res.body.error_description).toContain(`json_depth_limit=${JSON_DEPTH_LIMIT}`);
  });

  it('a dashboard form route given deep JSON refuses it as a page (no session), not a 500', async () => {
    const res = await request(api.app).post('/dashboard/keys').set('Content-Type', 'application/json').send(nested(4000));
    expect(res.status).toBeLessThan(500);
  });
});

describe('values longer than a column (item 2)', () => {
  it('a sign-in with a 221-character e-mail is a wrong sign-in (the limiter key is a hash), not a 500', async () => {
    const email = `${'a'.repeat(221 - '@example.test'.length)}@example.test`;
    const res = await request(api.app).post('/app/session').send({ email, password: 'whatever password' });
    expectEnvelope(res, 401, 'UNAUTHENTICATED');
  });

  it('the sign-in form caps the e-mail at 254 characters like the JSON route', async () => {
    const res = await request(api.app)
      .post('/app/sign-in')
      .type('form')
      .send({ email: `${'a'.repeat(300)}@example.test`, password: 'whatever' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('email');
    const nul = await request(api.app).post('/app/sign-in').type('form').send('email=a%00b&password=x');
    expect(nul.status).toBe(422);
  });

  it('a long garbage X-Forwarded-For from a trusted proxy is one address, "unknown", never a 500', async () => {
    const trusting = await startTestApi({ TRUST_PROXY: 'loopback' });
    try {
      const garbage = 'x'.repeat(5000);
      const signIn = await request(trusting.app)
        .post('/app/session')
        .set('X-Forwarded-For', garbage)
        .send({ email: 'nobody@example.test', password: 'whatever password' });
      expectEnvelope(signIn, 401, 'UNAUTHENTICATED');
      const signUp = await request(trusting.app)
        .post('/app/sign-up')
        .set('X-Forwarded-For', garbage)
        .send({ email: uniqueEmail('xff'), password: 'a long enough password', display_name: 'X' });
      expect(signUp.status).toBe(202);
      const register = await request(trusting.app)
        .post('/oauth/register')
        .set('X-Forwarded-For', garbage)
        .send({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
      expect(register.status).toBe(201);
    } finally {
      await trusting.close();
    }
  });
});

describe('forwarded headers (item 3)', () => {
  it('by default no proxy is trusted: X-Forwarded-For does not choose the sign-in throttle address', async () => {
    const throttled = await startTestApi({ SIGN_IN_FAILURES_PER_15_MINUTES: '2' });
    try {
      const target = await createWorkspace(throttled.deps);
      const from = (address: string) =>
        request(throttled.app)
          .post('/app/session')
          .set('X-Forwarded-For', address)
          .send({ email: target.email, password: 'wrong password!' });
      expect((await from('198.51.100.1')).status).toBe(401);
      expect((await from('198.51.100.2')).status).toBe(401);
      // A new claimed address does not reset the count: the peer is the same.
      expectEnvelope(await from('198.51.100.3'), 429, 'RATE_LIMITED', 'sign_in_failures_per_15_minutes=2');
    } finally {
      await throttled.close();
    }
  });
});

describe('malformed requests are 4xx (item 4)', () => {
  it.each([
    '/v1/jobs/%FF',
    '/v1/jobs/%E0%A4',
    '/v1/transcripts/%zz/exports/srt',
    '/dashboard/jobs/%FF',
    '/oauth/consent/%FF',
    '/v1/jobs/a%00b',
  ])('GET %s: 400 naming the path', async (path) => {
    const res = await request(api.app).get(path).set(bearer(ws.apiKey));
    expect(res.status).toBe(400);
    if (path.startsWith('/oauth/')) expect(res.text).toContain('invalid_request');
    else expectEnvelope(res, 400, 'BAD_REQUEST', 'path');
  });

  it('a query string that is not UTF-8 is 400; NUL in a value is 422 naming the parameter', async () => {
    expectEnvelope(await request(api.app).get('/v1/jobs?cursor=%FF').set(bearer(ws.apiKey)), 400, 'BAD_REQUEST', 'query');
    expectEnvelope(await request(api.app).get('/v1/capabilities?x=%ED%A0%80'), 400, 'BAD_REQUEST', 'query');
    expectEnvelope(await request(api.app).get('/app/sign-in?email=a%00b'), 422, 'INVALID_REQUEST', 'email');
    expectEnvelope(await request(api.app).get('/dashboard/jobs?status=%00'), 422, 'INVALID_REQUEST', 'status');
  });

  it('a raw request line with bytes that are not UTF-8 is 400, not 500', async () => {
    const out = await rawRequest(['GET /v1/jobs?cursor=\xff\xfe HTTP/1.1', 'Host: 127.0.0.1', 'Connection: close']);
    expect(out).toMatch(/^HTTP\/1\.1 4\d\d /);
  });

  it.each([
    ['ts_session=j:{"a":1}', '/v1/capabilities', 200],
    ['ts_session=j:[1,2]; ts_csrf=j:{"x":true}', '/v1/capabilities', 200],
    ['ts_session=j:{"a":1}', '/v1/usage', 401],
    ['ts_session=j:{"a":1}; ts_csrf=j:{}', '/dashboard/usage', 303],
  ])('cookie %s on %s is treated as absent (%i)', async (cookie, path, status) => {
    const res = await request(api.app).get(path).set('Cookie', cookie);
    expect(res.status).toBe(status);
  });
});

describe('the MCP transport (item 6)', () => {
  const rpc = (init: { origin?: string; host?: string; body?: string; auth?: boolean }) => {
    let req = request(api.app).post('/mcp').set('Content-Type', 'application/json').set('Accept', 'application/json, text/event-stream');
    if (init.auth !== false) req = req.set(bearer(ws.apiKey));
    if (init.origin) req = req.set('Origin', init.origin);
    if (init.host) req = req.set('Host', init.host);
    return req.send(init.body ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  };

  it('a foreign Origin or Host is refused with 403 even with a valid key; the own origin and loopback hosts pass', async () => {
    for (const init of [
      { origin: 'http://evil.example' },
      { host: 'evil.example' },
      { host: 'evil.example:3000', origin: 'http://evil.example:3000' },
    ]) {
      const res = await rpc(init);
      expect({ init, status: res.status }).toEqual({ init, status: 403 });
      expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
    for (const init of [{}, { origin: 'http://127.0.0.1' }, { host: 'localhost:3000' }]) {
      const res = await rpc(init);
      expect({ init, status: res.status }).not.toEqual({ init, status: 403 });
    }
    // Configured origins pass too.
    const open = await startTestApi({ MCP_ALLOWED_ORIGINS: 'https://agent.example' });
    try {
      const res = await request(open.app)
        .post('/mcp')
        .set(bearer((await createWorkspace(open.deps)).apiKey))
        .set('Origin', 'https://agent.example')
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(res.status).not.toBe(403);
    } finally {
      await open.close();
    }
  });

  it('invalid JSON answers the JSON-RPC parse error (-32700), not the REST envelope', async () => {
    const res = await rpc({ body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(res.body.error.message).toMatch(/^Parse error/);
  });

  it('initialize with bad params answers -32602 with a short message, not a zod dump', async () => {
    const res = await rpc({
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: 5, capabilities: 'x' } }),
    });
    const text = res.text;
    const body = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)![1]!);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(body.error.message.length).toBeLessThan(300);
    expect(body.error.message).not.toMatch(/"code":|invalid_type|\[\s*\{/);
  });
});

describe('sign-in and sign-up across sites (item 7)', () => {
  it('a JSON route refuses a body that is not JSON with 415, before anything else', async () => {
    const signIn = await request(api.app)
      .post('/app/session')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ email: ws.email, password: ws.password }));
    expectEnvelope(signIn, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
    const form = await request(api.app)
      .post('/app/sign-up')
      .type('form')
      .send({ email: uniqueEmail('form'), password: 'x'.repeat(20) });
    expectEnvelope(form, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
    const job = await request(api.app)
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', 'text-plain-job-1')
      .set('Content-Type', 'text/plain')
      .send('{"source":{"url":"https://www.youtube.com/watch?v=aaaaaaaaaaa"},"mode":"captions_only"}');
    expectEnvelope(job, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
    // A body-less POST needs no Content-Type.
    const cancel = await request(api.app).post('/v1/jobs/00000000-0000-4000-8000-000000000000/cancel').set(bearer(ws.apiKey));
    expectEnvelope(cancel, 404, 'NOT_FOUND');
  });

  it('sign-in and sign-up from a page of another site are refused (403), the own origin passes', async () => {
    for (const [header, value] of [
      ['Origin', 'https://evil.example'],
      ['Sec-Fetch-Site', 'cross-site'],
    ] as const) {
      const signIn = await request(api.app).post('/app/session').set(header, value).send({ email: ws.email, password: ws.password });
      expectEnvelope(signIn, 403, 'FORBIDDEN', 'origin');
      const email = uniqueEmail('xsite');
      const signUp = await request(api.app)
        .post('/app/sign-up')
        .set(header, value)
        .send({ email, password: 'a long enough password', display_name: 'X' });
      expectEnvelope(signUp, 403, 'FORBIDDEN', 'origin');
      expect(await api.deps.db.user.count({ where: { email } })).toBe(0);
    }
    const own = await request(api.app)
      .post('/app/session')
      .set('Origin', 'http://127.0.0.1')
      .send({ email: ws.email, password: ws.password });
    expect(own.status).toBe(200);
    const sameSite = await signInSession(api.app, ws.email, ws.password);
    expect(sameSite.csrf).toBeTruthy();
  });
});

describe('Stripe ingress (item 8)', () => {
  const secret = process.env.STRIPE_WEBHOOK_SECRET!;
  const event = {
    id: `evt_hostile_${Date.now()}`,
    object: 'event',
    type: 'invoice.paid',
    data: { object: { id: 'in_1', object: 'invoice' } },
  };
  const deliver = (payload: string, timestamp?: number) => {
    const signed = signedDelivery(payload, secret, timestamp);
    return request(api.app)
      .post('/ingress/stripe')
      .set('Stripe-Signature', signed.signature)
      .set('Content-Type', 'application/json')
      .send(signed.payload);
  };

  it('a signature timestamped outside 300 s is refused in both directions', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const t of [now + 400, now - 400]) {
      const res = await deliver(JSON.stringify(event), t);
      expectEnvelope(res, 400, 'BAD_REQUEST', 'Stripe-Signature');
    }
  });

  it.each([
    ['no data', { id: 'evt_nodata_1', object: 'event', type: 'invoice.paid' }, 'data.object'],
    ['data without object', { id: 'evt_nodata_2', object: 'event', type: 'invoice.paid', data: {} }, 'data.object'],
    ['no id', { object: 'event', type: 'invoice.paid', data: { object: {} } }, 'id'],
    ['an array', [1, 2], 'id'],
  ])('a correctly signed event with %s is 400 naming the field, not a 500 Stripe redelivers for days', async (_n, body, detail) => {
    const res = await deliver(JSON.stringify(body));
    expectEnvelope(res, 400, 'BAD_REQUEST', detail);
  });
});

describe('readiness of the workers (item 9)', () => {
  it('GET /readyz/workers says not_ready (503) while no worker polls the job and recognition task queues', async () => {
    const lonely = await startTestApi({ TEMPORAL_TASK_QUEUE: `nobody-${Date.now()}`, RECOGNITION_TASK_QUEUE: `nobody-rec-${Date.now()}` });
    try {
      const res = await request(lonely.app).get('/readyz/workers');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('not_ready');
      expect(Object.values(res.body.task_queues).map((q: any) => q.status)).toEqual(['no_workers', 'no_workers']);
      // /readyz stays about this instance's own dependencies.
      expect((await request(lonely.app).get('/readyz')).status).toBe(200);
    } finally {
      await lonely.close();
    }
  });
});

test('the server answered every hostile request above without a 5xx', async () => {
  // A sample taken through the real HTTP server, so the socket-level answers are included.
  for (const path of ['/v1/jobs/%FF', '/v1/jobs?cursor=%FF', '/app/sign-in?email=a%00b']) {
    const res = await fetch(`${base}${path}`);
    expect({ path, server_error: res.status >= 500 }).toEqual({ path, server_error: false });
  }
});
