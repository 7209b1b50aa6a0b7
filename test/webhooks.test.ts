import { randomUUID } from 'node:crypto';
import { SCOPES, type Principal } from '../domain/accounts/principal';
import { submitJob } from '../domain/jobs/submit';
import { jobServiceDeps } from '../api/wiring';
import { JobRequestSchema } from '../domain/schemas/jobs';
import { DELIVERY_ERROR_CHARS, recordDeliveryAttempt } from '../domain/webhooks/events';
import { type StartDispatcher } from '../domain/start-dispatcher';
import { reusedJobEventsToStart, startPendingWorkflows } from '../domain/pending-starts';
import { Prisma } from '../prisma/generated/client';
import { workflowIds } from '../workflows/definitions';
import { request as httpsRequest } from 'node:https';
import request from 'supertest';
import { bearer, createWorkspace, signInSession, type TestWorkspace } from './support/harness';
import { startJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitFinal, type JobStack } from './support/job-stack';
import { testTls } from './support/tls';
import { loggedDelivery, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

let stack: JobStack;

/** A node of PostgreSQL's EXPLAIN (ANALYZE, FORMAT JSON) plan. */
interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.close();
});
afterEach(() => stack.origin.setRoutes(videositeCaptionRoutes()));

const app = () => stack.api.app;

async function ownerSession(ws: TestWorkspace) {
  return signInSession(app(), ws.email, ws.password);
}

async function registerEndpoint(ws: TestWorkspace, url = receiver.url) {
  const s = await ownerSession(ws);
  const res = await request(app())
    .post('/v1/webhook-endpoints')
    .set('Cookie', s.cookie)
    .set('X-CSRF-Token', s.csrf)
    .send({ url, description: 'test' });
  return { res, session: s };
}

/**
 * A workspace with an endpoint that the receiver verifies, and a caption transcript of VIDEO_URL in `language`
 * retained: a repeat of `body` is answered by it at once.
 */
async function withRetainedTranscript(language: string) {
  const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const { res: ep } = await registerEndpoint(ws);
  receiver.configure({ secret: ep.body.secret, failFirst: 0 });
  const body = { source: { url: VIDEO_URL }, mode: 'captions_only' as const, caption_languages: [language] };
  const done = await waitFinal(stack.api, ws.apiKey, (await submit(stack.api, ws.apiKey, body)).body.id);
  expect(done.body.status).toBe('succeeded');
  return { ws, endpointId: ep.body.id as string, body, resultId: done.body.result_id as string };
}

describe('webhook endpoints', () => {
  it('registers with an owner session only, shows the secret once, lists without it', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const byKey = await request(app()).post('/v1/webhook-endpoints').set(bearer(ws.apiKey)).send({ url: receiver.url });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe('FORBIDDEN');

    const { res } = await registerEndpoint(ws);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: receiver.url, description: 'test', enabled: true, disabled_at: null });
    expect(res.body.secret).toMatch(/^whsec_/);
    const row = await stack.api.deps.db.webhookEndpoint.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.secretCiphertext).not.toContain(res.body.secret);

    const list = await request(app()).get('/v1/webhook-endpoints').set(bearer(ws.apiKey)).expect(200);
    expect(list.body.endpoints).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect(list.body.endpoints[0]).not.toHaveProperty('secret');
  });

  it('refuses non-https and private-network URLs', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const http = await registerEndpoint(ws, 'http://example.com/hook');
    expect(http.res.status).toBe(422);
    expect(http.res.body.error).toMatchObject({ code: 'INVALID_URL', details: { detail: 'url' } });
    for (const url of [
      'https://10.0.0.5/hook',
      'https://169.254.169.254/latest',
      'https://[::ffff:192.168.1.1]/x',
      'https://100.64.0.1/',
    ]) {
      const r = await registerEndpoint(ws, url);
      expect(r.res.status).toBe(422);
      expect(r.res.body.error.code).toBe('UNSAFE_URL');
    }
  });

  it('disables an endpoint (still listed) and caps enabled endpoints at 10', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res, session } = await registerEndpoint(ws);
    await request(app()).delete(`/v1/webhook-endpoints/${res.body.id}`).set(bearer(ws.apiKey)).expect(403);
    await request(app())
      .delete(`/v1/webhook-endpoints/${res.body.id}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .expect(204);
    const list = await request(app()).get('/v1/webhook-endpoints').set(bearer(ws.apiKey)).expect(200);
    expect(list.body.endpoints[0]).toMatchObject({ id: res.body.id, enabled: false });
    for (let i = 0; i < 10; i++) expect((await registerEndpoint(ws)).res.status).toBe(201);
    const over = await registerEndpoint(ws);
    expect(over.res.status).toBe(409);
    expect(over.res.body.error.details.detail).toBe('webhook_endpoints');
  });
});

// The retry schedule itself (10 s, 30 s, 2 min … over about a day) is asserted
// in workflow time by test/workflows/webhook.test.ts; here one real retry (the
// first delay, 10 s) goes through the real stack.
describe('event delivery', () => {
  it('delivers job.succeeded signed, retries a failure after 10 s with the same event_id, logs attempts, resends', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep, session } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 1 });
    const job = await submit(stack.api, ws.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      webhook_endpoint_id: ep.body.id,
      metadata: { order: '7' },
    });
    expect(job.status).toBe(202);
    const done = await waitFinal(stack.api, ws.apiKey, job.body.id);
    const mine = (all: typeof receiver.received) => all.filter((r) => r.body?.job_id === job.body.id);
    await receiver.waitFor((all) => mine(all).some((r) => r.status === 200), 20_000);
    const attempts = mine(receiver.received);
    expect(attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(new Set(attempts.map((a) => a.event_id)).size).toBe(1);
    expect(attempts.every((a) => a.signature_ok && a.timestamp_ok)).toBe(true);
    const ok = attempts[1]!;
    expect(ok.body).toEqual({
      event_id: ok.event_id,
      type: 'job.succeeded',
      created_at: expect.any(String),
      job_id: job.body.id,
      batch_id: null,
      result_id: done.body.result_id,
      metadata: { order: '7' },
      error: null,
    });
    expect(ok.headers['x-service-event-id']).toBe(ok.event_id);

    await loggedDelivery(stack.api.deps.db, { eventId: ok.event_id, succeeded: true });
    const log = await request(app()).get('/app/webhooks/deliveries').query({ limit: 10 }).set(bearer(ws.apiKey)).expect(200);
    expect(log.body.deliveries.map((d: { attempt: number; succeeded: boolean }) => [d.attempt, d.succeeded])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(log.body.deliveries[0].url).toBe(`https://127.0.0.1:${new URL(receiver.url).port}/…`);
    expect(JSON.stringify(log.body)).not.toContain(ep.body.secret);

    // Resend from the account endpoint: the same event_id again; the receiver dedups it.
    await request(app())
      .post(`/app/webhooks/deliveries/${log.body.deliveries[0].id}/resend`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .expect(202);
    await receiver.waitFor((all) => all.filter((r) => r.event_id === ok.event_id && r.duplicate).length === 1);
  }, 40_000);

  it('logs an attempt without an answer (no status, the error cut to its stated length); only a success marks the event delivered', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    const job = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: ep.body.id });
    const db = stack.api.deps.db;
    await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === job.body.id && r.status === 200), 20_000);
    await loggedDelivery(db, { workspaceId: ws.workspaceId, succeeded: true });
    const event = await db.webhookEvent.update({ where: { subjectKey: `job:${job.body.id}` }, data: { deliveredAt: null } });
    const attempt = { eventId: event.id, workspaceId: ws.workspaceId, durationMs: 5000 };
    expect(await recordDeliveryAttempt(db, { ...attempt, attempt: 2, statusCode: null, errorMessage: 'x'.repeat(2_000) })).toBe(false);
    const failed = await db.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id, attempt: 2 } });
    expect(failed).toMatchObject({ statusCode: null, succeeded: false, durationMs: 5000 });
    expect(failed.errorMessage).toHaveLength(DELIVERY_ERROR_CHARS);
    expect((await db.webhookEvent.findUniqueOrThrow({ where: { id: event.id } })).deliveredAt).toBeNull();
    expect(await recordDeliveryAttempt(db, { ...attempt, attempt: 3, statusCode: 204, errorMessage: null })).toBe(true);
    expect(await db.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id, attempt: 3 } })).toMatchObject({
      statusCode: 204,
      succeeded: true,
    });
    expect((await db.webhookEvent.findUniqueOrThrow({ where: { id: event.id } })).deliveredAt).toBeInstanceOf(Date);
  });

  it("keeps an endpoint's connection for its next event, a few seconds", async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    // Two caption languages: two jobs (the second would otherwise reuse the first's transcript).
    const delivered = async (language: string) => {
      const job = await submit(stack.api, ws.apiKey, {
        source: { url: VIDEO_URL },
        mode: 'captions_only',
        caption_languages: [language],
        webhook_endpoint_id: ep.body.id,
      });
      const all = await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === job.body.id && r.status === 200), 20_000);
      return all.find((r) => r.body?.job_id === job.body.id)!;
    };
    const first = await delivered('en');
    const second = await delivered('de');
    expect(second.signature_ok).toBe(true);
    expect(second.connection).toBe(first.connection);
  }, 40_000);

  it('delivers job.succeeded for a repeat a retained transcript answers, once, with the transcript as its result', async () => {
    const { ws, endpointId, body, resultId } = await withRetainedTranscript('fr');
    // The repeat finishes as it is accepted: no job workflow runs for it, and its subscriber still hears.
    const key = randomUUID();
    const repeat = await submit(stack.api, ws.apiKey, { ...body, webhook_endpoint_id: endpointId, metadata: { order: '8' } }, key);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ status: 'succeeded', result_id: resultId, billing: { kind: 'cached' } });
    const all = await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === repeat.body.id && r.status === 200), 20_000);
    const event = all.find((r) => r.body?.job_id === repeat.body.id)!;
    expect(event.signature_ok && event.timestamp_ok).toBe(true);
    expect(event.body).toEqual({
      event_id: event.event_id,
      type: 'job.succeeded',
      created_at: expect.any(String),
      job_id: repeat.body.id,
      batch_id: null,
      result_id: resultId,
      metadata: { order: '8' },
      error: null,
    });
    // A replay of the submit answers the same job and records no second event.
    const replay = await submit(stack.api, ws.apiKey, { ...body, webhook_endpoint_id: endpointId, metadata: { order: '8' } }, key);
    expect(replay.body.id).toBe(repeat.body.id);
    expect(await stack.api.deps.db.webhookEvent.count({ where: { subjectKey: `job:${repeat.body.id}` } })).toBe(1);
    // Its delivery is a workflow of its own, as an operator finds it in the Temporal UI.
    const delivery = stack.api.deps.temporal.workflow.getHandle(workflowIds.webhook(event.event_id));
    expect(await delivery.result()).toBe('delivered');
  }, 40_000);

  it("delivers a batch item's event when a retained transcript answers it, beside the batch's own", async () => {
    const { ws, endpointId, body: item, resultId } = await withRetainedTranscript('es');
    const batch = await request(app())
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ items: [{ ...item, webhook_endpoint_id: endpointId }], webhook_endpoint_id: endpointId });
    expect(batch.status).toBe(202);
    const child = batch.body.items[0].job_id as string;
    await receiver.waitFor(
      (xs) =>
        xs.some((r) => r.body?.job_id === child && r.body?.type === 'job.succeeded' && r.status === 200) &&
        xs.some((r) => r.body?.batch_id === batch.body.id && r.body?.type === 'batch.completed' && r.status === 200),
      20_000,
    );
    const itemEvent = receiver.received.find((r) => r.body?.job_id === child)!;
    expect(itemEvent.body).toMatchObject({ batch_id: batch.body.id, result_id: resultId, error: null });
  }, 40_000);

  it("delivers a repeat's event whose delivery start was lost (the process died after the commit) from the starter", async () => {
    const { ws, endpointId, body } = await withRetainedTranscript('de');
    // The accepting commit happens; the start after it never does.
    const dropped = {
      dispatch: () => undefined,
      caughtUp: async () => undefined,
      drain: async () => undefined,
    } as unknown as StartDispatcher;
    const principal: Principal = { kind: 'api_key', workspaceId: ws.workspaceId, plan: 'pro', scopes: SCOPES, emailVerified: true };
    const repeat = await submitJob(
      { ...jobServiceDeps(stack.api.deps), starts: dropped },
      principal,
      JobRequestSchema.parse({ ...body, webhook_endpoint_id: endpointId }),
      {
        operation: 'POST /v1/jobs',
        key: randomUUID(),
      },
    );
    expect(repeat.status).toBe(200);
    const starter = { temporal: stack.api.deps.temporal, taskQueue: jobServiceDeps(stack.api.deps).taskQueue };
    // Within the grace a delivery may be under way: the starter leaves the event alone.
    const now = await startPendingWorkflows(stack.api.deps.db, starter);
    const eventId = (await stack.api.deps.db.webhookEvent.findUniqueOrThrow({ where: { subjectKey: `job:${repeat.job.id}` } })).id;
    await expect(stack.api.deps.temporal.workflow.getHandle(workflowIds.webhook(eventId)).describe()).rejects.toThrow(/not found/i);
    expect(now.events).toBe(0);
    const later = await startPendingWorkflows(stack.api.deps.db, starter, new Date(Date.now() + 60_000));
    expect(later.events).toBeGreaterThanOrEqual(1);
    await receiver.waitFor((xs) => xs.some((r) => r.event_id === eventId && r.status === 200), 20_000);
    // The attempt is recorded a moment after the receiver's 200: the delivery workflow's end is after it.
    await stack.api.deps.temporal.workflow.getHandle(workflowIds.webhook(eventId)).result();
    // Attempted now: the next pass does not find it again.
    const after = await startPendingWorkflows(stack.api.deps.db, starter, new Date(Date.now() + 60_000));
    expect(await stack.api.deps.db.webhookDelivery.count({ where: { eventId } })).toBe(1);
    expect(after.started).toBe(0);
  }, 40_000);

  it("the starter's look for such events reads the undelivered ones only, not thousands delivered", async () => {
    const { ws, endpointId, body } = await withRetainedTranscript('en');
    const repeat = await submit(stack.api, ws.apiKey, { ...body, webhook_endpoint_id: endpointId });
    await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === repeat.body.id && r.status === 200), 20_000);
    const db = stack.api.deps.db;
    const { id: eventId } = await db.webhookEvent.findUniqueOrThrow({ where: { subjectKey: `job:${repeat.body.id}` } });
    // 3,000 delivered events from the last hour, as a busy day leaves them. Delivered by construction: the
    // receiver has the 200 a moment before the delivery activity records it, so the original may not be yet.
    const copies = 3_000;
    await db.$executeRaw`
      INSERT INTO webhook_events
      SELECT (jsonb_populate_record(NULL::webhook_events, to_jsonb(e) || jsonb_build_object(
        'id', n.id, 'subject_key', 'job:' || n.id, 'created_at', now() - interval '1 hour',
        'delivered_at', now() - interval '1 hour'))).*
      FROM webhook_events e, (SELECT gen_random_uuid() AS id FROM generate_series(1, ${copies})) n
      WHERE e.id = ${eventId}::uuid`;
    try {
      await db.$executeRaw`ANALYZE webhook_events`;
      const explained = await db.$queryRaw<Record<string, [{ Plan: PlanNode }]>[]>(
        Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${reusedJobEventsToStart(new Date())}`,
      );
      const plan = Object.values(explained[0]!)[0]![0].Plan;
      // Rows of webhook_events the plan's nodes read: those they returned and those they filtered out.
      const read = (n: PlanNode): number =>
        (n['Relation Name'] === 'webhook_events' ? n['Actual Rows'] * n['Actual Loops'] + (n['Rows Removed by Filter'] ?? 0) : 0) +
        (n.Plans ?? []).reduce((sum, child) => sum + read(child), 0);
      expect(read(plan)).toBeLessThan(copies);
    } finally {
      await db.$executeRaw`DELETE FROM webhook_events WHERE workspace_id = ${ws.workspaceId}::uuid AND id <> ${eventId}::uuid`;
    }
  }, 40_000);

  it('delivers job.failed with the error, and nothing to a disabled endpoint', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep, session } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    stack.origin.setRoutes([
      {
        method: 'POST',
        path: '/youtubei/v1/reel/reel_item_watch',
        recording: 'videosite/errors/private/android-reel_item_watch-private.newpipe-mock.json',
      },
    ]);
    const job = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: ep.body.id });
    await waitFinal(stack.api, ws.apiKey, job.body.id);
    const [event] = (await receiver.waitFor((all) => all.some((r) => r.body?.job_id === job.body.id))).filter(
      (r) => r.body?.job_id === job.body.id,
    );
    expect(event!.body).toMatchObject({ type: 'job.failed', result_id: null, error: { code: 'SOURCE_PRIVATE', retryable: false } });

    await request(app())
      .delete(`/v1/webhook-endpoints/${ep.body.id}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .expect(204);
    stack.origin.setRoutes(videositeCaptionRoutes());
    const webhookEndpointGone = await submit(stack.api, ws.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      webhook_endpoint_id: ep.body.id,
    });
    expect(webhookEndpointGone.status).toBe(422);
  });

  it('stops retrying once the endpoint is disabled: the next attempt (10 s later) sends nothing', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep, session } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 100 });
    const job = await submit(stack.api, ws.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      caption_languages: ['de'],
      webhook_endpoint_id: ep.body.id,
    });
    await receiver.waitFor((all) => all.some((r) => r.body?.job_id === job.body.id));
    await request(app())
      .delete(`/v1/webhook-endpoints/${ep.body.id}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .expect(204);
    const seen = receiver.received.filter((r) => r.body?.job_id === job.body.id).length;
    const event = await stack.api.deps.db.webhookEvent.findFirstOrThrow({ where: { subjectKey: `job:${job.body.id}` } });
    // The job starts the event's own workflow once its first attempt failed: wait until it exists.
    const delivery = stack.api.deps.temporal.workflow.getHandle(workflowIds.webhook(event.id));
    for (
      let i = 0;
      !(await delivery.describe().then(
        () => true,
        () => false,
      ));
      i++
    ) {
      if (i > 100) throw new Error('the delivery workflow never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await delivery.result()).toBe('endpoint_disabled');
    expect(receiver.received.filter((r) => r.body?.job_id === job.body.id)).toHaveLength(seen);
    receiver.configure({ failFirst: 0 });
  }, 30_000);

  it('the receiver rejects a delivery replayed more than 300 s later', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    const { signWebhook } = await import('../domain/webhooks/signing');
    const body = JSON.stringify({ event_id: 'e1', type: 'job.succeeded' });
    const old = Math.floor(Date.now() / 1000) - 301;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        receiver.url,
        {
          method: 'POST',
          ca: testTls().cert,
          headers: {
            'content-type': 'application/json',
            'X-Service-Event-Id': 'e1',
            'X-Service-Timestamp': String(old),
            'X-Service-Signature': signWebhook(ep.body.secret, 'e1', old, body),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(400);
  });
});

describe('the read of a delivery attempt', () => {
  it('gives the event with its endpoint, and NOT_FOUND for an event that does not exist', async () => {
    const { eventToDeliver } = await import('../domain/webhooks/events');
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const { res: ep } = await registerEndpoint(ws);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    const job = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: ep.body.id });
    await waitFinal(stack.api, ws.apiKey, job.body.id);
    const row = await stack.api.deps.db.webhookEvent.findFirstOrThrow({ where: { subjectKey: `job:${job.body.id}` } });
    const event = await eventToDeliver(stack.api.deps.db, row.id);
    expect(event).toMatchObject({
      id: row.id,
      workspaceId: ws.workspaceId,
      payload: row.payload,
      endpoint: { url: receiver.url, enabled: true },
    });
    expect(event.endpoint.secretCiphertext).not.toContain(ep.body.secret);
    await expect(eventToDeliver(stack.api.deps.db, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
