import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { randomUUID } from 'node:crypto';
import { announceRetry, asActivity } from '../../activities/failures';
import type { JobPlan } from '../../workflows/definitions';
import { ServiceError } from '../../core/errors';
import { videoDiscoveryFacts } from '../../domain/workflow-starts';
import {
  batchStartMetadata,
  discoveryStartMetadata,
  jobStartMetadata,
  jobViewQuery,
  providerCallbackSignal,
  workflowIds,
  type JobWorkflowView,
} from '../../workflows/definitions';
import { batchWorkflow } from '../../workflows/batch';
import { discoveryWorkflow } from '../../workflows/discovery';
import { jobWorkflow } from '../../workflows/job';
import { failure, jobActivities, planFor, type JobMocks } from '../support/job-workflow';
import { gate, mockActivities, useTimeSkipping } from '../support/time-skipping';

// What an operator sees in the Temporal UI (README, "Operating it: the Temporal
// UI runbook"), on the time-skipping server with mocked activities: the search
// attributes the workflows upsert as a job moves (read back with describe; the
// test server has no visibility list, test/operator-visibility.test.ts lists
// them on the dev server), the static summary given at the start, the current
// details, the activity summaries and the jobView query.

const ts = useTimeSkipping();

/** The workflow's search attributes as name → value. */
async function attributes(handle: WorkflowHandle): Promise<Record<string, unknown>> {
  const desc = await handle.describe();
  return Object.fromEntries(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
}

const details = async (handle: WorkflowHandle) => (await handle.query(workflowMetadataQuery)).currentDetails ?? '';
const jobView = (handle: WorkflowHandle) => handle.query(jobViewQuery);

/** [activity type, summary] of every activity the workflow scheduled (local activities are markers, not listed). */
async function activitySummaries(handle: WorkflowHandle): Promise<[string, unknown][]> {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => [
      e.activityTaskScheduledEventAttributes!.activityType!.name!,
      e.userMetadata?.summary ? defaultPayloadConverter.fromPayload(e.userMetadata.summary) : undefined,
    ]);
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (ok(v)) return v;
    if (i > 200) throw new Error(`not reached in 10 s: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A job started as domain/workflow-starts.ts starts it (summary, first search attributes), before any worker serves it. */
async function startJob(plan: JobPlan, batchId: string | null = null) {
  const { taskQueue } = ts.ids();
  const facts = {
    id: plan.jobId,
    workspaceId: plan.workspaceId,
    platform: plan.platform,
    mediaId: plan.mediaId,
    mode: plan.spec.mode,
    batchId,
  };
  const handle = await ts.env.client.workflow.start(jobWorkflow, {
    taskQueue,
    workflowId: workflowIds.job(plan.jobId),
    args: [{ jobId: plan.jobId }],
    ...jobStartMetadata(facts),
  });
  return { taskQueue, handle };
}

/** An activity body through the production failure boundary: a retryable ServiceError is announced to the workflow. */
const throughBoundary = <T>(fn: () => Promise<T>) => asActivity(fn, announceRetry);

describe('a caption job, as the Temporal UI shows it', () => {
  it('queued → processing → a retry after SOURCE_RATE_LIMITED → succeeded', async () => {
    const plan = planFor({ workspaceId: `ws-${randomUUID()}` });
    const firstAttempt = gate();
    // The server's clock as the first attempt failed: the retry is DEFAULT_RETRY's first interval after it.
    let failedAt = 0;
    const acts: JobMocks = jobActivities(plan, {
      fetchCaptions: () =>
        throughBoundary(async () => {
          if (acts.fetchCaptions.mock.calls.length === 1) {
            await firstAttempt.pass();
            failedAt = await ts.now();
            throw new ServiceError('SOURCE_RATE_LIMITED', 'HTTP 429');
          }
          return { transcriptId: 'tr-second', charge: 1 };
        }),
    });
    const { taskQueue, handle } = await startJob(plan);

    // Queued: no worker has run it yet; what the start gave is there.
    const desc = await handle.describe();
    expect(await desc.staticSummary()).toBe(`captions_only · videosite rCAS2eD-mcw · workspace ${plan.workspaceId}`);
    expect(await attributes(handle)).toEqual({
      WorkspaceId: plan.workspaceId,
      JobId: plan.jobId,
      Platform: 'videosite',
      MediaId: 'rCAS2eD-mcw',
      JobMode: 'captions_only',
      JobStatus: 'queued',
    });

    await ts.withWorker(taskQueue, acts, async () => {
      // Processing: the captions are being fetched.
      await firstAttempt.reached;
      expect(await jobView(handle)).toEqual<JobWorkflowView>({
        jobId: plan.jobId,
        status: 'processing',
        stage: 'captions',
        attempt: 0,
        lastError: null,
        nextAttemptAt: null,
        error: null,
        cancelRefusal: null,
        details: expect.any(String),
      });
      expect(await attributes(handle)).toMatchObject({ JobStatus: 'processing', JobStage: 'captions' });
      expect(await attributes(handle)).not.toHaveProperty('RetryAttempt');
      expect((await details(handle)).split('\n')).toEqual([
        'Stage captions: fetching captions (en, prefer_creator) from videosite rCAS2eD-mcw.',
        'Cancel: allowed (POST /v1/jobs/{id}/cancel) until audio goes to a recognizer or the result is committed.',
      ]);

      // The first attempt fails with a retryable error: the workflow shows the wait for Temporal's retry.
      firstAttempt.open();
      const retrying = await until(
        () => jobView(handle),
        (v) => v.attempt === 1,
      );
      const seenAt = await ts.now();
      expect(retrying).toMatchObject({
        status: 'processing',
        stage: 'captions',
        attempt: 1,
        lastError: { code: 'SOURCE_RATE_LIMITED', retryable: true, details: { detail: 'HTTP 429' } },
        error: null,
      });
      // The next attempt in DEFAULT_RETRY's first interval, 5 s after the failure: stamped when the workflow heard of
      // it, between the throw and the view that showed it (however long the machine took in between).
      const retryAt = Date.parse(retrying.nextAttemptAt!) - 5_000;
      expect(retryAt).toBeGreaterThanOrEqual(failedAt);
      expect(retryAt).toBeLessThanOrEqual(seenAt);
      expect(await attributes(handle)).toMatchObject({
        JobStatus: 'processing',
        JobStage: 'captions',
        RetryAttempt: 1,
        ErrorCode: 'SOURCE_RATE_LIMITED',
      });
      const shown = await details(handle);
      expect(shown).toBe(retrying.details);
      expect(shown.split('\n')[0]).toBe(
        `Waiting to retry fetchCaptions at ${retrying.nextAttemptAt}: attempt 1 of 7 failed with SOURCE_RATE_LIMITED (HTTP 429).`,
      );

      // The retry succeeds: the job ends, the retry and the stage are gone.
      expect(await handle.result()).toMatchObject({ status: 'succeeded' });
      expect(acts.fetchCaptions).toHaveBeenCalledTimes(2);
      expect(await attributes(handle)).toEqual({
        WorkspaceId: plan.workspaceId,
        JobId: plan.jobId,
        Platform: 'videosite',
        MediaId: 'rCAS2eD-mcw',
        JobMode: 'captions_only',
        JobStatus: 'succeeded',
        // Temporal's own record of the patches a run took (the search-index step): operators can find by it the
        // jobs that ran a change, as the runbook says.
        TemporalChangeVersion: ['search-index'],
      });
      expect(await jobView(handle)).toMatchObject({
        status: 'succeeded',
        stage: null,
        attempt: 0,
        lastError: null,
        error: null,
        cancelRefusal: 'status=final',
        details: 'Succeeded.',
      });
      expect(await details(handle)).toBe('Succeeded.');
      expect(await activitySummaries(handle)).toEqual([['fetchCaptions', 'videosite captions of rCAS2eD-mcw (en, prefer_creator)']]);
    });
  });

  it('a share link: MediaId becomes the video it resolved to', async () => {
    const plan = planFor({ platform: 'shortvideo', mediaId: 'share:abc' });
    const acts = jobActivities(plan, { resolveSource: async () => ({ mediaId: '7234567890123456789' }) });
    const { taskQueue, handle } = await startJob(plan);
    expect(await attributes(handle)).toMatchObject({ MediaId: 'share:abc' });
    await ts.withWorker(taskQueue, acts, async () => {
      expect(await handle.result()).toMatchObject({ status: 'succeeded' });
      expect(await attributes(handle)).toMatchObject({ Platform: 'shortvideo', MediaId: '7234567890123456789', JobStatus: 'succeeded' });
      expect((await activitySummaries(handle)).map(([, summary]) => summary)).toEqual([
        'resolve shortvideo share:abc',
        'shortvideo captions of 7234567890123456789 (en, prefer_creator)',
      ]);
    });
  });

  it('a failure: JobStatus failed with its ErrorCode, and the error in the query', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        throw failure('SOURCE_NOT_FOUND', 'removed');
      },
    });
    const { taskQueue, handle } = await startJob(plan);
    await ts.withWorker(taskQueue, acts, async () => {
      expect(await handle.result()).toMatchObject({ status: 'failed' });
      expect(await attributes(handle)).toMatchObject({ JobStatus: 'failed', ErrorCode: 'SOURCE_NOT_FOUND' });
      expect(await attributes(handle)).not.toHaveProperty('JobStage');
      const view = await jobView(handle);
      expect(view).toMatchObject({ status: 'failed', stage: null, attempt: 0, error: { code: 'SOURCE_NOT_FOUND' } });
      expect(await details(handle)).toBe('Failed with SOURCE_NOT_FOUND: Video does not exist or was removed. (removed)');
    });
  });

  it('retries used up: failed with the retried ErrorCode, no retry left in the view', async () => {
    const plan = planFor();
    const acts = jobActivities(plan, {
      fetchCaptions: () =>
        throughBoundary(async () => {
          throw new ServiceError('SOURCE_RATE_LIMITED', 'HTTP 429');
        }),
    });
    const { taskQueue, handle } = await startJob(plan);
    await ts.withWorker(taskQueue, acts, async () => {
      expect(await handle.result()).toMatchObject({ status: 'failed' });
      expect(acts.fetchCaptions).toHaveBeenCalledTimes(7);
      // Each failed attempt announced its retry to the workflow (the production path, activities/failures.ts).
      const { events } = await handle.fetchHistory();
      const notices = (events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'retryScheduled');
      expect(notices.length).toBeGreaterThanOrEqual(6);
      const attrs = await attributes(handle);
      expect(attrs).toMatchObject({ JobStatus: 'failed', ErrorCode: 'SOURCE_RATE_LIMITED' });
      expect(attrs).not.toHaveProperty('RetryAttempt');
      expect(await jobView(handle)).toMatchObject({
        status: 'failed',
        attempt: 0,
        lastError: null,
        error: { code: 'SOURCE_RATE_LIMITED' },
      });
    });
    // Seven attempts, each a failure announced to the workflow by a signal: a loaded machine took over a minute.
  }, 180_000);
});

describe('AI transcription, as the Temporal UI shows it', () => {
  it('names each piece being recognised, and shows the cancel refused from submit_asr on', async () => {
    const plan = planFor({ mode: 'transcribe' });
    const lastPiece = gate();
    const acts = jobActivities(plan, {
      cutAudio: async () => ({
        pieces: [0, 1, 2].map((i) => ({ startMs: i * 14_000, endMs: (i + 1) * 14_000 })),
        keys: ['piece-0', 'piece-1', 'piece-2'],
        firstPieceSha256: '',
      }),
      recognizePiece: async (_plan, key) => {
        if (key === 'piece-2') await lastPiece.pass();
        return `result-${key}`;
      },
    });
    const { taskQueue, handle } = await startJob(plan);
    await ts.withWorker(taskQueue, acts, async () => {
      await lastPiece.reached;
      expect(await attributes(handle)).toMatchObject({ JobStatus: 'processing', JobStage: 'wait_asr', JobMode: 'transcribe' });
      expect(await jobView(handle)).toMatchObject({ status: 'processing', stage: 'wait_asr', cancelRefusal: 'stage=submit_asr' });
      // The two pieces before the held one are recognised: the details say how far the growing transcript got.
      let shown = await details(handle);
      for (let i = 0; i < 100 && !shown.includes('2 recognised'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        shown = await details(handle);
      }
      expect(shown.split('\n')).toEqual([
        `Stage wait_asr: waiting for speech recognition of 3 piece(s) on task queue ${taskQueue}: 2 recognised and published, the first 28 s of 42 s.`,
        'Cancel: refused (stage=submit_asr).',
      ]);
      lastPiece.open();
      expect(await handle.result()).toMatchObject({ status: 'succeeded' });
      expect(await activitySummaries(handle)).toEqual([
        ['findLiveStream', 'is rCAS2eD-mcw on air?'],
        ['acquireAudio', 'audio of videosite rCAS2eD-mcw'],
        ['cutAudio', undefined],
        ['recognizePiece', 'piece 1 of 3'],
        ['recognizePiece', 'piece 2 of 3'],
        ['recognizePiece', 'piece 3 of 3'],
        // A growing transcript: each piece's segments, published in order once it and those before it are done.
        ['publishPieceSegments', 'segments of piece 1'],
        ['publishPieceSegments', 'segments of piece 2'],
        ['publishPieceSegments', 'segments of piece 3'],
        ['storeRecognition', undefined],
      ]);
    });
  });

  it("shows the wait for the cloud provider's callback", async () => {
    const plan = planFor({ mode: 'transcribe', recognizer: 'cloud' });
    const acts = jobActivities(plan);
    const { taskQueue, handle } = await startJob(plan);
    await ts.withWorker(taskQueue, acts, async () => {
      const view = await until(
        () => jobView(handle),
        (v) => v.status === 'awaiting_provider',
      );
      expect(view).toMatchObject({ stage: 'wait_asr', cancelRefusal: 'stage=submit_asr' });
      expect(await attributes(handle)).toMatchObject({ JobStatus: 'awaiting_provider', JobStage: 'wait_asr' });
      expect(await details(handle)).toMatch(
        /^Stage wait_asr: waiting for the recognition provider's callback on provider-job-1 \(checking every 60 s; giving up at \d{4}-\d\d-\d\dT[\d:.]+Z\)\.\nCancel: refused \(stage=submit_asr\)\.$/,
      );
      await handle.signal(providerCallbackSignal, { status: 'completed' });
      expect(await handle.result()).toMatchObject({ status: 'succeeded' });
      expect((await activitySummaries(handle)).map(([, summary]) => summary)).toEqual([
        'is rCAS2eD-mcw on air?',
        'audio of videosite rCAS2eD-mcw',
        'submit 42 s of audio to the cloud recognizer',
        'provider result of provider-job-1 (check 1)',
      ]);
    });
  });
});

describe('batches, their children and webhook deliveries', () => {
  it('children start with their summary and BatchId; the batch ends completed; its event delivery is findable', async () => {
    const batchId = randomUUID();
    const workspaceId = `ws-${randomUUID()}`;
    const plans = [planFor({ workspaceId }), planFor({ workspaceId, mode: 'auto', mediaId: 'dQw4w9WgXcQ' })];
    const jobs = plans.map((p) => ({ id: p.jobId, workspaceId, platform: p.platform, mediaId: p.mediaId, mode: p.spec.mode, batchId }));
    const byId = new Map(plans.map((p) => [p.jobId, p]));
    const acts = {
      ...jobActivities(plans[0]!, {
        startJob: async (jobId) => byId.get(jobId)!,
        // The batch's event: the first attempt fails, so its delivery becomes a workflow of its own.
        deliverWebhookAttempt: async (_eventId, attempt) => (attempt === 1 ? 'failed' : 'delivered'),
      }),
      ...mockActivities({ completeBatch: async () => ({ eventId: 'ev-batch' }) }),
    };
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      const handle = await ts.env.client.workflow.start(batchWorkflow, {
        taskQueue,
        workflowId: workflowIds.batch(batchId),
        args: [{ batchId, jobIds: jobs.map((j) => j.id), jobs }],
        ...batchStartMetadata({ batchId, workspaceId, jobs: jobs.length }),
      });
      await handle.result();
      expect(await (await handle.describe()).staticSummary()).toBe(`batch · 2 job(s) to run · workspace ${workspaceId}`);
      expect(await attributes(handle)).toEqual({ WorkspaceId: workspaceId, BatchId: batchId, JobStatus: 'completed' });
      expect(await details(handle)).toBe('Completed: all 2 jobs final, batch.completed recorded.');

      const child = ts.env.client.workflow.getHandle(workflowIds.job(plans[1]!.jobId));
      expect(await (await child.describe()).staticSummary()).toBe(
        `auto · videosite dQw4w9WgXcQ · workspace ${workspaceId} · batch ${batchId}`,
      );
      expect(await attributes(child)).toMatchObject({
        WorkspaceId: workspaceId,
        BatchId: batchId,
        JobMode: 'auto',
        JobStatus: 'succeeded',
      });

      const delivery = ts.env.client.workflow.getHandle(workflowIds.webhook('ev-batch'));
      expect(await delivery.result()).toBe('delivered');
      expect(await (await delivery.describe()).staticSummary()).toBe(
        `webhook batch.completed · batch ${batchId} · workspace ${workspaceId}`,
      );
      expect(await attributes(delivery)).toEqual({ WorkspaceId: workspaceId, BatchId: batchId, DeliveryAttempt: 2 });
      expect(await details(delivery)).toBe('Done at attempt 2: delivered.');
    });
  });
});

describe('a discovery, as the Temporal UI shows it', () => {
  it('shows a retry after SOURCE_RATE_LIMITED, then succeeded', async () => {
    const id = randomUUID();
    const workspaceId = `ws-${randomUUID()}`;
    const page = { videos: [], profile: null, nextCursor: null } as never;
    const acts = mockActivities({
      fetchVideoPage: () =>
        throughBoundary(async () => {
          if (acts.fetchVideoPage.mock.calls.length === 1) throw new ServiceError('SOURCE_RATE_LIMITED', 'unusual traffic');
          return page;
        }),
      completeVideoDiscovery: async () => undefined,
      failDiscovery: async () => undefined,
    });
    const facts = videoDiscoveryFacts({
      id,
      workspaceId,
      kind: 'videosite_channel_videos',
      request: { channel: '@somechannel', limit: 20 },
    });
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      const handle = await ts.env.client.workflow.start(discoveryWorkflow, {
        taskQueue,
        workflowId: workflowIds.videoDiscovery(id),
        args: [{ type: 'video', discoveryId: id }],
        ...discoveryStartMetadata(facts),
      });
      expect(await (await handle.describe()).staticSummary()).toBe(`videosite_channel_videos · @somechannel · workspace ${workspaceId}`);
      const retrying = await until(
        () => attributes(handle),
        (a) => a.RetryAttempt === 1,
      );
      expect(retrying).toEqual({
        WorkspaceId: workspaceId,
        Platform: 'videosite',
        JobMode: 'videosite_channel_videos',
        JobStatus: 'processing',
        RetryAttempt: 1,
        ErrorCode: 'SOURCE_RATE_LIMITED',
      });
      expect(await details(handle)).toMatch(
        /^Waiting to retry fetchVideoPage at .+Z: attempt 1 of 7 failed with SOURCE_RATE_LIMITED \(unusual traffic\)\./,
      );
      expect(await handle.result()).toBe('succeeded');
      expect(await attributes(handle)).toEqual({
        WorkspaceId: workspaceId,
        Platform: 'videosite',
        JobMode: 'videosite_channel_videos',
        JobStatus: 'succeeded',
      });
    });
  });

  it('a discovery already final when its workflow runs: nothing fetched or stored, no status shown', async () => {
    const id = randomUUID();
    const workspaceId = `ws-${randomUUID()}`;
    const acts = mockActivities({
      fetchVideoPage: async () => null,
      completeVideoDiscovery: async () => undefined,
      failDiscovery: async () => undefined,
    });
    const facts = videoDiscoveryFacts({ id, workspaceId, kind: 'videosite_search', request: { query: 'q', limit: 20 } });
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      const handle = await ts.env.client.workflow.start(discoveryWorkflow, {
        taskQueue,
        workflowId: workflowIds.videoDiscovery(id),
        args: [{ type: 'video', discoveryId: id }],
        ...discoveryStartMetadata(facts),
      });
      expect(await handle.result()).toBe('already_final');
      expect(acts.completeVideoDiscovery).not.toHaveBeenCalled();
      expect(acts.failDiscovery).not.toHaveBeenCalled();
      expect(await attributes(handle)).toEqual({ WorkspaceId: workspaceId, Platform: 'videosite', JobMode: 'videosite_search' });
      expect(await details(handle)).toBe('Already final: nothing to do.');
    });
  });
});
