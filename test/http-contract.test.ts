import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { errorHandler, requestId } from '../api/http/middleware';
import { StartDispatcher } from '../domain/start-dispatcher';
import { waitFor } from '../stack/proc';
import { bearer, createWorkspace, startTestApi, type TestApi, type TestWorkspace } from './support/harness';

let api: TestApi;
let ws: TestWorkspace;

beforeAll(async () => {
  api = await startTestApi();
  ws = await createWorkspace(api.deps, { plan: 'pro' });
});
afterAll(() => api.close());

function expectEnvelope(res: request.Response, code: string, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.error.retryable).toBe('boolean');
  expect(res.body.error.doc_url).toContain(code.toLowerCase().replace(/_/g, '-'));
}

describe('the HTTP contract', () => {
  it('answers malformed JSON with 422 INVALID_REQUEST naming the body', async () => {
    const res = await request(api.app).post('/app/keys').set(bearer(ws.apiKey)).set('content-type', 'application/json').send('{"name": ');
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe('body');
  });

  it('answers a wrong type with 422 naming the field', async () => {
    const res = await request(api.app).post('/app/sign-up').send({ email: 'a@example.test', password: 12345678901234, display_name: 'x' });
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe('password');
  });

  it('answers a missing field with 422 naming it', async () => {
    const res = await request(api.app).post('/app/session').send({ email: 'a@example.test' });
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe('password');
  });

  it('rejects unknown fields, naming the field', async () => {
    const res = await request(api.app).post('/app/session').send({ email: 'a@example.test', password: 'x', admin: true });
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe('admin');
  });

  it('rejects oversized bodies with 413 naming the limit', async () => {
    const big = JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(1_100_000) });
    const res = await request(api.app).post('/app/session').set('content-type', 'application/json').send(big);
    expectEnvelope(res, 'PAYLOAD_TOO_LARGE', 413);
    expect(res.body.error.details.detail).toBe('body_limit_bytes=1048576');
  });

  it('answers unknown routes with 404 in the same envelope', async () => {
    const res = await request(api.app).get('/v1/nope');
    expectEnvelope(res, 'NOT_FOUND', 404);
    expect(res.body.error.details.detail).toBe('route:GET /v1/nope');
  });

  it('validates path parameters', async () => {
    const res = await request(api.app).get('/v1/batches/not-a-uuid').set(bearer(ws.apiKey));
    expectEnvelope(res, 'INVALID_REQUEST', 422);
    expect(res.body.error.details.detail).toBe('id');
  });

  it('keeps a sane incoming X-Request-Id and replaces a bad one', async () => {
    const kept = await request(api.app).get('/healthz').set('X-Request-Id', 'trace-abc-12345');
    expect(kept.headers['x-request-id']).toBe('trace-abc-12345');
    const replaced = await request(api.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaks nothing internal from a 500', async () => {
    const app = express();
    app.use(requestId);
    app.get('/boom', () => {
      throw new Error('password=hunter2 at /srv/secret/path.ts:12');
    });
    app.use(errorHandler(pino({ level: 'silent' })));
    const res = await request(app).get('/boom');
    expectEnvelope(res, 'INTERNAL_ERROR', 500);
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|secret|path\.ts/);
    expect(res.body.error.retryable).toBe(true);
  });

  it('serves health and readiness (database and Temporal reachable)', async () => {
    await request(api.app).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(api.app).get('/readyz').expect(200);
    expect(ready.body.checks).toEqual({ database: 'ok', temporal: 'ok' });
  });

  it('reports not ready when Temporal is unreachable', async () => {
    const broken = await startTestApi({ TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS! });
    // Close the connection under the app: the probe must fail, not hang.
    await broken.deps.temporal.connection.close();
    const res = await request(broken.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.temporal).toBe('unreachable');
    await broken.deps.wakeups.close();
    await broken.deps.db.$disconnect();
    // The API's pool keeps its connections open (domain/db.ts keepOpen): ended here, or they hold the run open.
    await broken.deps.pool.end();
  });

  it('exposes the writes in flight and the workflow starts waiting, as operators read the hold of a burst', async () => {
    // A dispatcher that holds every start (the process counted as busy) and an app of its own to read it.
    const starter = { taskQueue: 'unused', temporal: api.deps.temporal };
    const holding = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 60_000 });
    const own = await startTestApi({}, { starts: holding });
    const server = own.app.listen(0, '127.0.0.1');
    try {
      await new Promise((r) => server.once('listening', r));
      const { port } = server.address() as AddressInfo;
      for (const id of ['a', 'b', 'c']) holding.dispatch(`job ${id}`, async () => undefined);
      // A write whose body is still on its way: counted from its headers on.
      const pending = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/jobs',
        headers: { 'content-type': 'application/json', 'content-length': '100' },
      });
      pending.on('error', () => undefined);
      pending.write('{"mode":');
      const gauge = async (name: string) =>
        Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await request(own.app).get('/metrics')).text)?.[1]);
      await waitFor(async () => (await gauge('api_writes_in_flight')) === 1, 2_000, 10);
      expect(await gauge('api_writes_in_flight')).toBe(1);
      expect(await gauge('workflow_starts_waiting')).toBe(3);
      pending.destroy();
      await waitFor(async () => (await gauge('api_writes_in_flight')) === 0, 2_000, 10);
      expect(await gauge('api_writes_in_flight')).toBe(0);
      await holding.drain();
      expect(await gauge('workflow_starts_waiting')).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
      await own.close();
    }
  });

  it('exposes Prometheus metrics for requests', async () => {
    await request(api.app).get('/healthz');
    const res = await request(api.app).get('/metrics').expect(200);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\}/);
  });
});
