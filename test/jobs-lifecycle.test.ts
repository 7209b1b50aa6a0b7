import { workflowIds } from '../workflows/definitions';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createActivities } from '../activities';
import { getBalance } from '../domain/credits/ledger';
import { toErrorObject } from '../core/errors';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import {
  activityDepsFor,
  newKey,
  startedJobWorkflow,
  startJobStack,
  submit,
  videositeCaptionRoutes,
  VIDEO_URL,
  waitFinal,
  type JobStack,
} from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { startTestWorker } from './support/worker';
import { JOB_SPEC_DEFAULTS } from '../domain/schemas/jobs';

let stack: JobStack;
let ws: TestWorkspace;

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
});
afterAll(() => stack.close());
afterEach(() => stack.origin.setRoutes(videositeCaptionRoutes()));

const app = () => stack.api.app;
const reel404: ReplayRoute = { method: 'POST', path: '/youtubei/v1/reel/reel_item_watch', status: 404, body: '' };
const rateLimited: ReplayRoute[] = ['/youtubei/v1/reel/reel_item_watch', '/youtubei/v1/player'].map((path) => ({
  method: 'POST',
  path,
  status: 429,
  fixture: 'videosite/errors/rate-limited/youtube_too_many_requests.html.static',
}));

async function balanceOf(w: TestWorkspace) {
  return getBalance(stack.api.deps.db, w.workspaceId);
}

describe('failures after acceptance', () => {
  const finalCases: [string, ReplayRoute[], string][] = [
    [
      'private video',
      [
        {
          method: 'POST',
          path: '/youtubei/v1/reel/reel_item_watch',
          recording: 'videosite/errors/private/android-reel_item_watch-private.newpipe-mock.json',
        },
      ],
      'SOURCE_PRIVATE',
    ],
    [
      'region-blocked video',
      [
        {
          method: 'POST',
          path: '/youtubei/v1/reel/reel_item_watch',
          recording: 'videosite/errors/region-blocked/android-reel_item_watch-region-blocked.newpipe-mock.json',
        },
      ],
      'SOURCE_REGION_RESTRICTED',
    ],
    [
      'video without captions',
      videositeCaptionRoutes({
        reel: reel404,
        player: 'videosite/errors/no-captions/android-player-dsMFmonKDD4-no-captions.innertube.json',
      }),
      'NO_CAPTIONS',
    ],
    [
      'age-restricted video',
      videositeCaptionRoutes({ reel: reel404, player: 'videosite/errors/age-restricted/android-player-age-restricted.innertube.json' }),
      'SOURCE_AUTH_REQUIRED',
    ],
  ];

  it.each(finalCases)('%s fails at once with the right code; GET 200; hold released', async (_name, routes, code) => {
    stack.origin.setRoutes(routes);
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(res.status).toBe(202);
    const done = await waitFinal(stack.api, w.apiKey, res.body.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'failed',
      result_id: null,
      retry: null,
      billing: { credits_reserved: 0, credits_charged: 0 },
    });
    expect(done.body.error).toMatchObject({ code, retryable: false });
    expect(done.body.error.details.detail).toEqual(expect.any(String));
    expect((await balanceOf(w)).available).toBe(2000);
    const retry = await request(app())
      .post(`/v1/jobs/${res.body.id}/retry`)
      .set(bearer(w.apiKey))
      .set('Idempotency-Key', newKey())
      .send({});
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('JOB_NOT_RETRYABLE');
  });

  // The whole schedule (5 s, 10 s, 20 s … then failJob after the 7th attempt)
  // is asserted in workflow time by test/workflows/job.test.ts; here one real
  // retry, after the production 5 s, goes through the real stack.
  it('retries a rate-limited source after 5 s, shows the attempt meanwhile, and clears it when the retry succeeds', async () => {
    stack.origin.setRoutes(rateLimited);
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['ar'] });
    // During the automatic retry the job stays processing and shows the attempt and the error.
    let during;
    for (let i = 0; i < 40; i++) {
      during = (await request(app()).get(`/v1/jobs/${res.body.id}`).set(bearer(ws.apiKey))).body;
      if (during.retry) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(during.status).toBe('processing');
    expect(during.retry).toMatchObject({ attempt: 1, last_error: { code: 'SOURCE_RATE_LIMITED', retryable: true } });
    const platformCalls = stack.origin.requests.filter((r) => r.path.startsWith('/youtubei/')).length;

    // The platform recovers before the second attempt.
    stack.origin.setRoutes(videositeCaptionRoutes());
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id);
    expect(done.body).toMatchObject({ status: 'succeeded', retry: null, billing: { credits_charged: 1 } });
    expect(stack.origin.requests.filter((r) => r.path.startsWith('/youtubei/')).length).toBeGreaterThan(platformCalls);
  }, 30_000);

  it('a job that failed with a retryable error can be retried: a new job, a new key, priced as any new job', async () => {
    // Failing after the whole schedule takes about five minutes of real time:
    // the job's workflow is ended and its last step (failJob with the error,
    // as the workflow records it after the last attempt) is run here instead.
    stack.origin.setRoutes(rateLimited);
    const res = await submit(stack.api, ws.apiKey, {
      source: { url: VIDEO_URL },
      mode: 'captions_only',
      caption_languages: ['pt'],
      caption_preference: 'creator_only',
      metadata: { run: 'retry' },
    });
    await (await startedJobWorkflow(stack.api, res.body.id)).terminate('the retry schedule is asserted in test/workflows');
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    await acts.failJob(res.body.id, toErrorObject('SOURCE_RATE_LIMITED', 'videosite: HTTP 429'));
    const failed = (await request(app()).get(`/v1/jobs/${res.body.id}`).set(bearer(ws.apiKey))).body;
    expect(failed).toMatchObject({ status: 'failed', retry: null, error: { code: 'SOURCE_RATE_LIMITED', retryable: true } });

    stack.origin.setRoutes(videositeCaptionRoutes());
    const key = newKey();
    const retry = await request(app()).post(`/v1/jobs/${res.body.id}/retry`).set(bearer(ws.apiKey)).set('Idempotency-Key', key).send({});
    expect(retry.status).toBe(202);
    expect(retry.body.id).not.toBe(res.body.id);
    expect(retry.body.billing.credits_reserved).toBe(1);
    // The job again as accepted: its stored spec verbatim (echoed as options), its metadata.
    expect(retry.body.options).toEqual(res.body.options);
    expect(retry.body.options).toMatchObject({ caption_languages: ['pt'], caption_preference: 'creator_only' });
    expect(retry.body.metadata).toEqual({ run: 'retry' });
    const specs = await stack.api.deps.db.job.findMany({ where: { id: { in: [res.body.id, retry.body.id] } }, select: { spec: true } });
    expect(specs[0]!.spec).toEqual(specs[1]!.spec);
    const replay = await request(app()).post(`/v1/jobs/${res.body.id}/retry`).set(bearer(ws.apiKey)).set('Idempotency-Key', key).send({});
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(retry.body.id);
    const retried = await waitFinal(stack.api, ws.apiKey, retry.body.id);
    expect(retried.body.status).toBe('succeeded');
  });

  it('refuses to retry a job that did not fail', async () => {
    const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['hi'] });
    await waitFinal(stack.api, ws.apiKey, r.body.id);
    const retry = await request(app()).post(`/v1/jobs/${r.body.id}/retry`).set(bearer(ws.apiKey)).set('Idempotency-Key', newKey()).send({});
    expect(retry.status).toBe(409);
    expect(retry.body.error).toMatchObject({ code: 'JOB_NOT_RETRYABLE', details: { detail: 'status=succeeded' } });
  });
});

describe('cancellation', () => {
  it('cancels a running caption job and releases its hold', async () => {
    stack.origin.setRoutes(videositeCaptionRoutes({ captionDelayMs: 4000 }));
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const r = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect((await balanceOf(w)).reserved).toBe(1);
    const cancelled = await request(app()).post(`/v1/jobs/${r.body.id}/cancel`).set(bearer(w.apiKey)).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', stage: null, billing: { credits_reserved: 0, credits_charged: 0 } });
    const b = await balanceOf(w);
    expect(b.reserved).toBe(0);
    expect(b.available).toBe(2000);
    const again = await request(app()).post(`/v1/jobs/${r.body.id}/cancel`).set(bearer(w.apiKey));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CANCELLATION_NOT_ALLOWED');
    // The job stays cancelled: the slow caption answer arriving later changes nothing.
    await new Promise((res) => setTimeout(res, 500));
    expect((await request(app()).get(`/v1/jobs/${r.body.id}`).set(bearer(w.apiKey))).body.status).toBe('cancelled');
  });

  it('refuses to cancel a finished job', async () => {
    const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['ta'] });
    await waitFinal(stack.api, ws.apiKey, r.body.id);
    const res = await request(app()).post(`/v1/jobs/${r.body.id}/cancel`).set(bearer(ws.apiKey));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CANCELLATION_NOT_ALLOWED', details: { detail: 'status=succeeded' } });
  });
});

describe('exactly-once settlement', () => {
  it('charges once when the finishing activity is retried after it already committed', async () => {
    // A second worker on its own queue whose completeJob "loses" the first
    // result after committing, as a killed worker would: Temporal retries it.
    const real = createActivities(activityDepsFor(stack.api, stack.outbound));
    let calls = 0;
    const flaky = {
      ...real,
      completeJob: async (...args: Parameters<typeof real.completeJob>) => {
        const out = await real.completeJob(...args);
        calls += 1;
        if (calls === 1) throw new Error('worker lost after commit');
        return out;
      },
    };
    const worker = await startTestWorker(flaky, `flaky-${randomUUID()}`);
    const taskQueue = stack.api.deps.config.TEMPORAL_TASK_QUEUE;
    (stack.api.deps.config as { TEMPORAL_TASK_QUEUE: string }).TEMPORAL_TASK_QUEUE = worker.taskQueue;
    try {
      const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
      const r = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
      const done = await waitFinal(stack.api, w.apiKey, r.body.id);
      expect(done.body.status).toBe('succeeded');
      // Wait for the workflow to finish its retried step.
      await (await startedJobWorkflow(stack.api, r.body.id)).result();
      expect(calls).toBe(2);
      expect((await balanceOf(w)).available).toBe(1999);
      const entries = await stack.api.deps.db.creditLedgerEntry.findMany({ where: { workspaceId: w.workspaceId, kind: 'charge' } });
      expect(entries).toHaveLength(1);
    } finally {
      (stack.api.deps.config as { TEMPORAL_TASK_QUEUE: string }).TEMPORAL_TASK_QUEUE = taskQueue;
      await worker.stop();
    }
  });

  it('settling activities are idempotent: complete, complete, fail leaves one charge', async () => {
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['ur'] });
    const done = await waitFinal(stack.api, ws.apiKey, r.body.id);
    const before = await balanceOf(ws);
    await acts.completeJob(r.body.id, { transcriptId: done.body.result_id, charge: 1, billingKind: 'captions' });
    await acts.failJob(r.body.id, { code: 'SOURCE_TIMEOUT', message: 'late', retryable: true });
    await acts.cancelJob(r.body.id);
    expect(await balanceOf(ws)).toEqual(before);
    expect((await request(app()).get(`/v1/jobs/${r.body.id}`).set(bearer(ws.apiKey))).body.status).toBe('succeeded');
  });
});

describe('transcript deletion and retention', () => {
  it('DELETE hides at once, drops reuse and purges durably', async () => {
    const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['si'] });
    const done = await waitFinal(stack.api, ws.apiKey, r.body.id);
    const id = done.body.result_id;
    const del = await request(app()).delete(`/v1/transcripts/${id}`).set(bearer(ws.apiKey)).expect(202);
    expect(del.body).toMatchObject({ id, status: 'deletion_scheduled' });
    await request(app()).get(`/v1/transcripts/${id}`).set(bearer(ws.apiKey)).expect(404);
    await request(app()).delete(`/v1/transcripts/${id}`).set(bearer(ws.apiKey)).expect(404);
    const again = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['si'] });
    expect(again.status).toBe(202);
    await stack.api.deps.temporal.workflow.getHandle(workflowIds.transcriptPurge(id)).result();
    expect(await stack.api.deps.db.transcript.findUnique({ where: { id } })).toBeNull();
    // Its serialised form goes with it.
    expect(await stack.api.deps.db.transcriptRendering.findUnique({ where: { transcriptId: id } })).toBeNull();
    await waitFinal(stack.api, ws.apiKey, again.body.id);
  });

  it('an expired transcript is gone and never reused; the retention sweep purges it', async () => {
    const r = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['fil'] });
    const done = await waitFinal(stack.api, ws.apiKey, r.body.id);
    const id = done.body.result_id;
    await stack.api.deps.db.transcript.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await request(app()).get(`/v1/transcripts/${id}`).set(bearer(ws.apiKey)).expect(404);
    const again = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['fil'] });
    expect(again.status).toBe(202);
    expect(await stack.api.deps.db.transcriptRendering.findUnique({ where: { transcriptId: id } })).not.toBeNull();
    await stack.api.deps.temporal.workflow.execute('retentionSweepWorkflow', {
      taskQueue: stack.worker.taskQueue,
      workflowId: `sweep-${randomUUID()}`,
      args: [],
    });
    expect(await stack.api.deps.db.transcript.findUnique({ where: { id } })).toBeNull();
    expect(await stack.api.deps.db.transcriptRendering.findUnique({ where: { transcriptId: id } })).toBeNull();
    await waitFinal(stack.api, ws.apiKey, again.body.id);
  });

  it("keeps transcripts for the workspace's retention window", async () => {
    const trial = await createWorkspace(stack.api.deps);
    const r = await submit(stack.api, trial.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    const done = await waitFinal(stack.api, trial.apiKey, r.body.id);
    const t = await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(trial.apiKey)).expect(200);
    const days = (Date.parse(t.body.expires_at) - Date.parse(t.body.created_at)) / 86400_000;
    expect(days).toBeCloseTo(7, 3);
  });
});

describe("the state steps on a job's row", () => {
  it('startJob writes the first stage, storing the result writes finalize, completeJob settles in one go', async () => {
    // A job committed by hand (no workflow): the steps are called as the workflow would.
    const db = stack.api.deps.db;
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const holdId = randomUUID();
    const jobId = randomUUID();
    await db.creditHold.create({ data: { id: holdId, workspaceId: w.workspaceId, amount: 1, reason: 'job' } });
    await db.$executeRaw`UPDATE credit_accounts SET reserved = reserved + 1, active_jobs = active_jobs + 1 WHERE workspace_id = ${w.workspaceId}::uuid`;
    await db.workspace.update({ where: { id: w.workspaceId }, data: { retentionDays: 3 } });
    await db.job.create({
      data: {
        id: jobId,
        workspaceId: w.workspaceId,
        mode: 'captions_only',
        spec: { ...JOB_SPEC_DEFAULTS, mode: 'captions_only' },
        sourceUrl: VIDEO_URL,
        platform: 'videosite',
        mediaId: 'rCAS2eD-mcw',
        reuseKey: `k-${jobId}`,
        billingKind: 'captions',
        creditsReserved: 1,
        holdId,
        workflowId: `manual-${jobId}`,
      },
    });
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    const row = () => db.job.findUniqueOrThrow({ where: { id: jobId } });

    const plan = (await acts.startJob(jobId))!;
    expect(plan).toMatchObject({ status: 'processing', stage: 'captions' });
    expect(await row()).toMatchObject({ status: 'processing', stage: 'captions' });

    const { transcriptId, charge } = await acts.fetchCaptions(plan, plan.mediaId);
    expect(await row()).toMatchObject({ status: 'processing', stage: 'finalize' });

    const outcome = await acts.completeJob(jobId, { transcriptId, charge, billingKind: 'captions' });
    expect(outcome).toEqual({ status: 'succeeded', eventId: null });
    const done = await row();
    expect(done).toMatchObject({ status: 'succeeded', stage: null, resultId: transcriptId, creditsReserved: 0, creditsCharged: 1 });
    const transcript = await db.transcript.findUniqueOrThrow({ where: { id: transcriptId } });
    expect(transcript.publishedAt).toEqual(done.finishedAt);
    expect(transcript.expiresAt.getTime() - done.finishedAt!.getTime()).toBe(3 * 86_400_000);
    const account = await db.creditAccount.findUniqueOrThrow({ where: { workspaceId: w.workspaceId } });
    expect(account).toMatchObject({ reserved: 0, activeJobs: 0 });
    expect(await db.creditHold.findUniqueOrThrow({ where: { id: holdId } })).toMatchObject({ status: 'charged', charged: 1 });
    const ledger = await db.creditLedgerEntry.findMany({ where: { holdId }, orderBy: { id: 'asc' } });
    expect(ledger.map((e) => [e.kind, e.amount])).toEqual([['charge', 1]]);

    // Repeated: nothing moves twice.
    expect(await acts.completeJob(jobId, { transcriptId, charge, billingKind: 'captions' })).toEqual({
      status: 'succeeded',
      eventId: null,
    });
    expect(await db.creditAccount.findUniqueOrThrow({ where: { workspaceId: w.workspaceId } })).toMatchObject({
      reserved: 0,
      activeJobs: 0,
    });
    expect(await db.creditLedgerEntry.count({ where: { holdId } })).toBe(1);
  });

  it('a share link starts at resolve, AI transcription at acquire_audio', async () => {
    const { firstStage } = await import('../domain/jobs/state');
    expect(firstStage({ mediaId: 'share:abc', mode: 'captions_only' })).toBe('resolve');
    expect(firstStage({ mediaId: 'abc', mode: 'transcribe' })).toBe('acquire_audio');
    expect(firstStage({ mediaId: 'abc', mode: 'auto' })).toBe('captions');
  });
});
