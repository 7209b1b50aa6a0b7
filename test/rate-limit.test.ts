import request from 'supertest';
import { bearer, createWorkspace, startTestApi, type TestApi } from './support/harness';

let one: TestApi;
let two: TestApi;
beforeAll(async () => {
  // Two API instances with their own connection pools: only the database is shared.
  one = await startTestApi();
  two = await startTestApi();
});
afterAll(async () => {
  await one.close();
  await two.close();
});

describe('rate limits per plan', () => {
  it('shares one read limit across two API instances', async () => {
    const ws = await createWorkspace(one.deps, { plan: 'starter' });
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 120; i++) {
      const res = await request(i % 2 === 0 ? one.app : two.app)
        .get('/v1/usage')
        .set(bearer(ws.apiKey));
      statuses.push(res.status);
      last = res;
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(last!.headers['ratelimit-limit']).toBe('120');
    expect(last!.headers['ratelimit-remaining']).toBe('0');

    const over = await request(two.app).get('/v1/usage').set(bearer(ws.apiKey));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { detail: 'reads_per_minute=120' } });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.body.error.retry_after_seconds).toBe(retryAfter);
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['ratelimit-reset'])).toBeGreaterThan(0);

    // Another workspace is not affected.
    const other = await createWorkspace(one.deps, { plan: 'starter' });
    await request(one.app).get('/v1/usage').set(bearer(other.apiKey)).expect(200);
  });

  it("applies the plan's submit limit (trial: 10 per minute)", async () => {
    const ws = await createWorkspace(one.deps);
    const results: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await one.deps.rateLimits.consume('submit', 'trial', ws.workspaceId).then(
        () => 200,
        (e) => (e.code === 'RATE_LIMITED' ? 429 : 500),
      );
      results.push(res);
    }
    expect(results.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(results[10]).toBe(429);
  });

  it('does not count a replay of an Idempotency-Key, nor refuse one at the limit', async () => {
    const ws = await createWorkspace(one.deps);
    const body = { source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'captions_only' };
    const first = await request(one.app).post('/v1/jobs').set(bearer(ws.apiKey)).set('Idempotency-Key', 'replayed-key-0001').send(body);
    expect(first.status).toBe(202);
    // Each replay is counted, then told by the accepting statement, and its point given back.
    for (let i = 0; i < 12; i++) {
      const replay = await request(i % 2 ? two.app : one.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', 'replayed-key-0001')
        .send(body);
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(first.body.id);
      expect(replay.headers['ratelimit-remaining']).toBeUndefined();
    }
    // A conflicting reuse of the key creates nothing either: not counted.
    for (let i = 0; i < 3; i++) {
      const conflict = await request(one.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', 'replayed-key-0001')
        .send({ ...body, metadata: { other: String(i) } });
      expect(conflict.status).toBe(409);
    }
    // One submit counted of the trial's 10: nine more fit, the tenth is over.
    for (let i = 0; i < 9; i++) await one.deps.rateLimits.consume('submit', 'trial', ws.workspaceId);
    await expect(one.deps.rateLimits.consume('submit', 'trial', ws.workspaceId)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // At the limit, a replay is still answered.
    const atLimit = await request(one.app).post('/v1/jobs').set(bearer(ws.apiKey)).set('Idempotency-Key', 'replayed-key-0001').send(body);
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.id).toBe(first.body.id);
    // And a new key is refused.
    const fresh = await request(one.app).post('/v1/jobs').set(bearer(ws.apiKey)).set('Idempotency-Key', 'replayed-key-0002').send(body);
    expect(fresh.status).toBe(429);
  });
});
