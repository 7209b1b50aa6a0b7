import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { batchStatus } from '../domain/batches/status';
import { bearer, createWorkspace, signInSession, type TestWorkspace } from './support/harness';
import { newKey, startJobStack, videositeCaptionRoutes, VIDEO_URL, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

// Three videos told apart by the id in the request: one with captions, one
// private, one whose captions are slow (cancelled while it waits).
const OK_ID = 'rCAS2eD-mcw';
const PRIVATE_ID = 'PRIVATEvid1';
const SLOW_ID = 'SLOWvideo01';
const url = (id: string) => `https://www.youtube.com/watch?v=${id}`;
const forVideo = (id: string) => (req: { body: string; query: URLSearchParams }) =>
  req.body.includes(`"${id}"`) || req.query.get('v') === id;

const mixedRoutes: ReplayRoute[] = [
  {
    method: 'POST',
    path: '/youtubei/v1/reel/reel_item_watch',
    when: forVideo(PRIVATE_ID),
    recording: 'videosite/errors/private/android-reel_item_watch-private.newpipe-mock.json',
  },
  {
    method: 'POST',
    path: '/youtubei/v1/reel/reel_item_watch',
    when: forVideo(SLOW_ID),
    fixture: 'videosite/player-captions/android-reel_item_watch-rCAS2eD-mcw-13tracks.body.json',
    delayMs: 6000,
  },
  ...videositeCaptionRoutes(),
];

let stack: JobStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startJobStack(mixedRoutes);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.close();
});

const app = () => stack.api.app;
const postBatch = (ws: TestWorkspace, body: object, key = newKey()) =>
  request(app()).post('/v1/batches').set(bearer(ws.apiKey)).set('Idempotency-Key', key).send(body);

async function waitBatchFinal(ws: TestWorkspace, id: string, timeoutMs = 20000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(app()).get(`/v1/batches/${id}`).set(bearer(ws.apiKey)).expect(200);
    if (!['queued', 'processing'].includes(res.body.status)) return res.body;
    if (Date.now() > until) throw new Error(`batch still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('batch status rule', () => {
  it.each([
    [['queued', 'queued'], 'queued'],
    [['queued', 'processing'], 'processing'],
    [['succeeded', 'queued'], 'processing'],
    [['succeeded', 'succeeded'], 'succeeded'],
    [['cancelled', 'cancelled'], 'cancelled'],
    [['failed', 'cancelled'], 'failed'],
    [['failed', 'failed'], 'failed'],
    [['succeeded', 'failed'], 'partial_success'],
    [['succeeded', 'cancelled'], 'partial_success'],
  ])('%j → %s', (statuses, expected) => {
    expect(batchStatus(statuses)).toBe(expected);
  });
});

describe('POST /v1/batches', () => {
  it('runs a batch with mixed outcomes to partial_success and one batch.completed', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const s = await signInSession(app(), ws.email, ws.password);
    const ep = await request(app())
      .post('/v1/webhook-endpoints')
      .set('Cookie', s.cookie)
      .set('X-CSRF-Token', s.csrf)
      .send({ url: receiver.url })
      .expect(201);
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });

    const res = await postBatch(ws, {
      items: [
        { source: { url: url(OK_ID) }, mode: 'captions_only' },
        { source: { url: url(PRIVATE_ID) }, mode: 'captions_only' },
        { source: { url: url(SLOW_ID) }, mode: 'captions_only' },
      ],
      webhook_endpoint_id: ep.body.id,
      metadata: { campaign: 'fall' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ total_items: 3, metadata: { campaign: 'fall' } });
    expect(res.body.items.map((i: { item_index: number }) => i.item_index)).toEqual([0, 1, 2]);
    // Every child's hold was reserved at acceptance.
    expect((await getBalance(stack.api.deps.db, ws.workspaceId)).reserved).toBe(3);

    // Each child is an ordinary job.
    const slowJob = res.body.items[2].job_id;
    const child = await request(app()).get(`/v1/jobs/${slowJob}`).set(bearer(ws.apiKey)).expect(200);
    expect(child.body.batch_id).toBe(res.body.id);
    await new Promise((r) => setTimeout(r, 300));
    await request(app()).post(`/v1/jobs/${slowJob}/cancel`).set(bearer(ws.apiKey)).expect(200);

    const final = await waitBatchFinal(ws, res.body.id);
    expect(final).toMatchObject({ status: 'partial_success', total_items: 3, succeeded_items: 1, failed_items: 1, cancelled_items: 1 });
    expect(final.items.map((i: { status: string }) => i.status)).toEqual(['succeeded', 'failed', 'cancelled']);
    const b = await getBalance(stack.api.deps.db, ws.workspaceId);
    expect(b).toMatchObject({ reserved: 0, available: 1999 });

    await receiver.waitFor((all) => all.some((r) => r.body?.batch_id === res.body.id && r.type === 'batch.completed'));
    await new Promise((r) => setTimeout(r, 500));
    const events = receiver.received.filter((r) => r.body?.batch_id === res.body.id);
    // Only the batch event: the items named no endpoint of their own.
    expect(events.map((e) => e.type)).toEqual(['batch.completed']);
    expect(events[0]!.body).toMatchObject({
      type: 'batch.completed',
      job_id: null,
      batch_id: res.body.id,
      result_id: null,
      metadata: { campaign: 'fall' },
      error: null,
    });
  }, 30000);

  it('replays the same key with 200', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const key = newKey();
    const body = { items: [{ source: { url: url(OK_ID) }, mode: 'captions_only', caption_languages: ['de'] }] };
    const first = await postBatch(ws, body, key);
    expect(first.status).toBe(202);
    const again = await postBatch(ws, body, key);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const conflict = await postBatch(ws, { items: [{ source: { url: url(OK_ID) }, mode: 'captions_only' }] }, key);
    expect(conflict.status).toBe(409);
    await waitBatchFinal(ws, first.body.id);
  });

  it("rejects a batch over the plan's size whole, with nothing reserved", async () => {
    const trial = await createWorkspace(stack.api.deps);
    const two = await postBatch(trial, {
      items: [
        { source: { url: url(OK_ID) }, mode: 'captions_only' },
        { source: { url: url(SLOW_ID) }, mode: 'captions_only' },
      ],
    });
    expect(two.status).toBe(402);
    expect(two.body.error.code).toBe('PLAN_REQUIRED');
    expect(two.body.error.details.detail).toMatch(/^items: at most 1/);

    const starter = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const eleven = await postBatch(starter, {
      items: Array.from({ length: 11 }, () => ({ source: { url: url(OK_ID) }, mode: 'captions_only' })),
    });
    expect(eleven.status).toBe(402);
    const fiftyOne = await postBatch(starter, {
      items: Array.from({ length: 51 }, () => ({ source: { url: url(OK_ID) }, mode: 'captions_only' })),
    });
    expect(fiftyOne.status).toBe(422);
    expect(fiftyOne.body.error.details.detail).toBe('items');
    for (const w of [trial, starter]) {
      expect((await getBalance(stack.api.deps.db, w.workspaceId)).reserved).toBe(0);
      expect(await stack.api.deps.db.job.count({ where: { workspaceId: w.workspaceId } })).toBe(0);
    }
  });

  it('rejects a batch with one bad item whole, naming the item and the field', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const res = await postBatch(ws, {
      items: [
        { source: { url: url(OK_ID) }, mode: 'captions_only' },
        { source: { url: url(OK_ID) }, mode: 'captions_only', caption_languages: ['fr'] },
        { source: { url: 'https://www.youtube.com/@channel' }, mode: 'captions_only' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_SOURCE', details: { detail: 'items[2].source.url' } });
    const shape = await postBatch(ws, {
      items: [
        { source: { url: url(OK_ID) }, mode: 'captions_only' },
        { source: { url: url(OK_ID) }, mode: 'nope' },
      ],
    });
    expect(shape.status).toBe(422);
    expect(shape.body.error.details.detail).toBe('items[1].mode');
    expect((await getBalance(stack.api.deps.db, ws.workspaceId)).reserved).toBe(0);
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
    expect(await stack.api.deps.db.batch.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
  });

  it('reserves all holds or none when the balance is short', async () => {
    const ws = await createWorkspace(stack.api.deps, { plan: 'starter' });
    await stack.api.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 2 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const res = await postBatch(ws, {
      items: [0, 1, 2].map((i) => ({ source: { url: url(OK_ID) }, mode: 'captions_only', caption_languages: [['en', 'de', 'fr'][i]] })),
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { detail: 'items' } });
    expect((await getBalance(stack.api.deps.db, ws.workspaceId)).reserved).toBe(0);
    expect(await stack.api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(0);
  });

  it("hides another workspace's batch", async () => {
    const a = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const b = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const res = await postBatch(a, { items: [{ source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['es'] }] });
    await request(app()).get(`/v1/batches/${res.body.id}`).set(bearer(b.apiKey)).expect(404);
    await waitBatchFinal(a, res.body.id);
  });
});
