import type { WorkflowExecutionInfo } from '@temporalio/client';
import request from 'supertest';
import { jobViewQuery, workflowIds } from '../workflows/definitions';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import {
  newKey,
  startJobStack,
  startedJobWorkflow,
  submit,
  videositeCaptionRoutes,
  VIDEO_URL,
  waitFinal,
  type JobStack,
} from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';

// The operator's runbook (README, "Operating it: the Temporal UI runbook") on
// the real stack: jobs submitted through the API are found by a visibility
// query on their search attributes (registered by the dev server's start flags,
// stack/temporal.ts) and answer the jobView query through the client. Workflow
// time details (every upsert, summaries, details): test/workflows/operator-view.test.ts.

let stack: JobStack;
let ws: TestWorkspace;

beforeAll(async () => {
  stack = await startJobStack(videositeCaptionRoutes());
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
});
afterAll(() => stack.close());
afterEach(() => stack.origin.setRoutes(videositeCaptionRoutes()));

const temporal = () => stack.api.deps.temporal;
const rateLimited: ReplayRoute[] = ['/youtubei/v1/reel/reel_item_watch', '/youtubei/v1/player'].map((path) => ({
  method: 'POST',
  path,
  status: 429,
  fixture: 'videosite/errors/rate-limited/youtube_too_many_requests.html.static',
}));

/** The workflows a visibility query lists, polled until `ok` (visibility is eventually consistent). */
async function listUntil(query: string, ok: (found: WorkflowExecutionInfo[]) => boolean, withinMs = 10_000) {
  const until = Date.now() + withinMs;
  for (;;) {
    const found: WorkflowExecutionInfo[] = [];
    for await (const wf of temporal().workflow.list({ query })) found.push(wf);
    if (ok(found) || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const attributesOf = (wf: WorkflowExecutionInfo) => Object.fromEntries(wf.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));

describe('finding jobs in Temporal', () => {
  it('a caption job is listed by its workspace and status, shows its summary, and answers the jobView query', async () => {
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;
    expect((await waitFinal(stack.api, ws.apiKey, jobId)).body.status).toBe('succeeded');

    const query = `WorkspaceId = "${ws.workspaceId}" AND JobStatus = "succeeded"`;
    const found = await listUntil(query, (list) => list.some((wf) => wf.workflowId === workflowIds.job(jobId)));
    const listed = found.find((wf) => wf.workflowId === workflowIds.job(jobId));
    expect(listed).toBeDefined();
    expect(listed!.type).toBe('jobWorkflow');
    const listedAttributes = attributesOf(listed!);
    expect(listedAttributes).toMatchObject({
      WorkspaceId: ws.workspaceId,
      JobId: jobId,
      Platform: 'videosite',
      MediaId: 'rCAS2eD-mcw',
      JobMode: 'captions_only',
      JobStatus: 'succeeded',
    });
    for (const gone of ['JobStage', 'RetryAttempt', 'ErrorCode', 'BatchId']) expect(listedAttributes).not.toHaveProperty(gone);

    const handle = temporal().workflow.getHandle(workflowIds.job(jobId));
    expect(await (await handle.describe()).staticSummary()).toBe(`captions_only · videosite rCAS2eD-mcw · workspace ${ws.workspaceId}`);
    expect(await handle.query(jobViewQuery)).toMatchObject({
      jobId,
      status: 'succeeded',
      stage: null,
      attempt: 0,
      lastError: null,
      error: null,
      cancelRefusal: 'status=final',
    });
  });

  it('the Temporal web UI of the stack finds the job by the same filter (dev server and production UI server alike)', async () => {
    const uiUrl = process.env.TEMPORAL_UI_URL!;
    // A video of its own: the same video again would be answered from the workspace's transcript, with no workflow.
    const res = await submit(stack.api, ws.apiKey, {
      source: { url: 'https://www.youtube.com/watch?v=uiView00001' },
      mode: 'captions_only',
    });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;
    expect((await waitFinal(stack.api, ws.apiKey, jobId)).body.status).toBe('succeeded');
    const page = await fetch(`${uiUrl}/namespaces/default/workflows`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // What the UI's workflow list asks for (its HTTP API in front of the frontend) with the runbook's filter.
    const query = `WorkspaceId = "${ws.workspaceId}" AND JobId = "${jobId}" AND JobStatus = "succeeded"`;
    let ids: string[] = [];
    for (let i = 0; i < 50 && ids.length === 0; i++) {
      const list = await fetch(`${uiUrl}/api/v1/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
      expect(list.status).toBe(200);
      const body = (await list.json()) as { executions?: { execution: { workflowId: string } }[] };
      ids = (body.executions ?? []).map((e) => e.execution.workflowId);
      if (ids.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(ids).toEqual([workflowIds.job(jobId)]);
  });

  it('a job waiting for a retry after SOURCE_RATE_LIMITED is found by its stage and error, and the query shows the attempt', async () => {
    stack.origin.setRoutes(rateLimited);
    const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['ar'] });
    const jobId: string = res.body.id;
    const handle = await startedJobWorkflow(stack.api, jobId);
    // The failed attempt tells its workflow (activities/failures.ts announceRetry) before Temporal waits 5 s to retry.
    let view = await handle.query(jobViewQuery);
    for (let i = 0; view.attempt === 0 && i < 80; i++) {
      await new Promise((r) => setTimeout(r, 50));
      view = await handle.query(jobViewQuery);
    }
    expect(view).toMatchObject({
      status: 'processing',
      stage: 'captions',
      attempt: 1,
      lastError: { code: 'SOURCE_RATE_LIMITED', retryable: true },
    });
    expect(view.details).toMatch(/^Waiting to retry fetchCaptions at .+: attempt 1 of 7 failed with SOURCE_RATE_LIMITED/);

    const query = `WorkspaceId = "${ws.workspaceId}" AND JobStage = "captions" AND ErrorCode = "SOURCE_RATE_LIMITED" AND RetryAttempt >= 1`;
    const found = await listUntil(query, (list) => list.some((wf) => wf.workflowId === workflowIds.job(jobId)), 4_000);
    expect(found.map((wf) => wf.workflowId)).toContain(workflowIds.job(jobId));

    // The platform recovers before the second attempt: the retry is gone from the view.
    stack.origin.setRoutes(videositeCaptionRoutes());
    expect((await waitFinal(stack.api, ws.apiKey, jobId)).body.status).toBe('succeeded');
    expect(await handle.query(jobViewQuery)).toMatchObject({ status: 'succeeded', attempt: 0, lastError: null });
    const listedDone = await listUntil(`WorkspaceId = "${ws.workspaceId}" AND JobStatus = "succeeded" AND ErrorCode IS NULL`, (list) =>
      list.some((wf) => wf.workflowId === workflowIds.job(jobId)),
    );
    expect(listedDone.map((wf) => wf.workflowId)).toContain(workflowIds.job(jobId));
  }, 30_000);

  it('a batch and its jobs are found by BatchId, each with its summary; the batch ends completed', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const res = await request(stack.api.app)
      .post('/v1/batches')
      .set(bearer(w.apiKey))
      .set('Idempotency-Key', newKey())
      .send({
        items: [
          { source: { url: VIDEO_URL }, mode: 'captions_only', caption_languages: ['de'] },
          { source: { url: VIDEO_URL }, mode: 'auto', caption_languages: ['fr'] },
        ],
      });
    expect(res.status).toBe(202);
    const batchId: string = res.body.id;
    const found = await listUntil(`BatchId = "${batchId}" AND WorkspaceId = "${w.workspaceId}"`, (list) =>
      list.some((wf) => wf.type === 'batchWorkflow' && attributesOf(wf).JobStatus === 'completed'),
    );
    expect(found.map((wf) => wf.type).sort()).toEqual(['batchWorkflow', 'jobWorkflow', 'jobWorkflow']);
    const batch = temporal().workflow.getHandle(workflowIds.batch(batchId));
    expect(await (await batch.describe()).staticSummary()).toBe(`batch · 2 job(s) to run · workspace ${w.workspaceId}`);
    const auto = found.find((wf) => wf.type === 'jobWorkflow' && attributesOf(wf).JobMode === 'auto')!;
    const summary = await (await temporal().workflow.getHandle(auto.workflowId).describe()).staticSummary();
    expect(summary).toBe(`auto · videosite rCAS2eD-mcw · workspace ${w.workspaceId} · batch ${batchId}`);
  });

  it('a language discovery is found by its workspace and kind, with its summary', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const res = await request(stack.api.app)
      .post('/v1/language-discoveries')
      .set(bearer(w.apiKey))
      .set('Idempotency-Key', newKey())
      .send({ source: { url: 'https://youtu.be/rCAS2eD-mcw' } });
    expect(res.status).toBe(202);
    const workflowId = workflowIds.languageDiscovery(res.body.id);
    const found = await listUntil(
      `WorkspaceId = "${w.workspaceId}" AND JobMode = "language_discovery" AND JobStatus = "succeeded"`,
      (list) => list.some((wf) => wf.workflowId === workflowId),
      20_000,
    );
    expect(attributesOf(found.find((wf) => wf.workflowId === workflowId)!)).toMatchObject({
      WorkspaceId: w.workspaceId,
      Platform: 'videosite',
      MediaId: 'rCAS2eD-mcw',
    });
    const summary = await (await temporal().workflow.getHandle(workflowId).describe()).staticSummary();
    expect(summary).toBe(`language_discovery · videosite rCAS2eD-mcw · workspace ${w.workspaceId}`);
  });
});
