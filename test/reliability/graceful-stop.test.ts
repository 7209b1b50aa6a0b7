import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import request from 'supertest';
import { scratchRoot } from '../../integrations/scratch';
import { freePort, ROOT } from '../../stack/proc';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi } from '../support/harness';
import { videositeCaptionRoutes } from '../support/job-stack';
import { startReplayOrigin, type ReplayOrigin } from '../support/replay-origin';

// Issue 27, item 5: SIGTERM stops a process without losing work. The API process answers new requests 503
// with Retry-After (readiness false, liveness still ok) while the requests it holds finish (a request that only
// waits, a long poll or an upload's verification, answers at once what it has), then exits 0; a
// worker stops polling, lets the activity it runs finish, and exits 0, and the job goes on with the next worker.

const taskQueue = `graceful-${randomUUID()}`;
let origin: ReplayOrigin;
let api: TestApi;
let databaseUrl: string;

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** A service entry point as its own process (node with tsx as a loader), resolved once it logs `ready`. */
function start(entry: string, ready: string, env: Record<string, string>): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { ...process.env, APP_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((r) =>
      child.once('exit', (code, signal) => r({ code, signal, at: Date.now() })),
    );
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`${entry} exited with ${code} before it was ready:\n${out}`)));
  });
}

beforeAll(async () => {
  origin = await startReplayOrigin(videositeCaptionRoutes({ captionDelayMs: 4000 }));
  // The worker runs the workflow starter, which looks at every job of its database: one of its own.
  databaseUrl = await privateDatabase('graceful');
  api = await startTestApi({ DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await origin?.close();
});

test('the API drains on SIGTERM: 503 with Retry-After for new requests, the waits in flight answer at once, exit 0', async () => {
  const port = await freePort();
  // A cancel waits this long for the job's workflow to decide (no worker runs it here): the request that holds
  // the process while the test looks at it draining.
  const cancelWaitSeconds = 4;
  const proc = await start('api/main.ts', 'api listening', {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    CANCEL_WAIT_SECONDS: String(cancelWaitSeconds),
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    // Jobs no worker runs (none polls this queue yet): they stay queued, so a long poll on one would be held 20 s.
    const submit = (n: number) =>
      request(base)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', randomUUID())
        .send({ source: { url: `https://www.youtube.com/watch?v=drain00000${n}` }, mode: 'captions_only' });
    const [job, cancelled] = [await submit(1), await submit(2)];
    expect(job.status).toBe(202);
    expect(cancelled.status).toBe(202);
    const held = request(base)
      .get(`/v1/jobs/${job.body.id}`)
      .query({ wait: 20 })
      .set(bearer(ws.apiKey))
      .then((r) => r);
    // An upload whose verification no worker runs: its completion would wait UPLOAD_VERIFY_WAIT_SECONDS (20).
    const bytes = Buffer.alloc(4096, 1);
    const slot = await request(base)
      .post('/v1/uploads')
      .set(bearer(ws.apiKey))
      .send({ filename: 'clip.wav', content_type: 'audio/wav', bytes: bytes.length });
    expect(slot.status).toBe(201);
    const putUrl = new URL(slot.body.signed_upload_url);
    expect(
      (
        await request(base)
          .put(putUrl.pathname + putUrl.search)
          .set('content-type', 'audio/wav')
          .send(bytes)
      ).status,
    ).toBeLessThan(300);
    const completing = request(base)
      .post(`/v1/uploads/${slot.body.id}/complete`)
      .set(bearer(ws.apiKey))
      .then((r) => r);
    // An agent's wait_for_job on the tool server (it would wait up to 30 s).
    const agent = new McpClient({ name: 'graceful-stop', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(ws.apiKey) } }));
    const agentWaiting = agent.callTool(
      { name: 'wait_for_job', arguments: { job_id: job.body.id, timeout_seconds: 30 } },
      { timeout: 60_000 },
    );
    const cancelling = request(base)
      .post(`/v1/jobs/${cancelled.body.id}/cancel`)
      .set(bearer(ws.apiKey))
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 1_000));
    const signalledAt = Date.now();
    proc.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));

    const refused = await request(base).get('/v1/usage').set(bearer(ws.apiKey));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    expect(refused.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true, details: { detail: 'shutting_down' } });
    expect(refused.body.request_id).toEqual(expect.any(String));
    expect((await request(base).get('/readyz')).status).toBe(503);
    expect((await request(base).get('/healthz')).status).toBe(200);

    // Both waits ended when the stop began and answered what they had, as a wait that ran out does: the job
    // as it is, and the upload still verifying with where to read it (the client asks another instance).
    const answered = await held;
    const waitsEndedAt = Date.now();
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: job.body.id, status: 'queued' });
    const completion = await completing;
    expect(completion.status).toBe(202);
    expect(completion.body).toMatchObject({ id: slot.body.id, status: 'verifying' });
    expect(completion.headers.location).toBe(`/v1/uploads/${slot.body.id}`);
    const toolResult = (await agentWaiting) as { isError?: boolean; structuredContent?: Record<string, any> };
    expect(toolResult.isError).toBeFalsy();
    expect(toolResult.structuredContent).toMatchObject({
      job: { id: job.body.id, status: 'queued' },
      next: expect.stringContaining('wait_for_job'),
    });
    // Well before the 20 s (30 s for the tool) they asked for.
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(waitsEndedAt - signalledAt).toBeLessThan(10_000);
    // The cancel in flight finished as it does without a stop (202: the workflow decides when a worker runs it).
    expect((await cancelling).status).toBe(202);
    const { code, at } = await proc.exited;
    expect(code).toBe(0);
    // It stayed for the cancel (about 3 s after the signal), and no longer: not the 20 s the waits asked for.
    expect(at - signalledAt).toBeGreaterThan(1_500);
    expect(at - signalledAt).toBeLessThan(12_000);
    expect(proc.output()).toMatch(/"finished_in_flight":true/);
  } finally {
    proc.child.kill('SIGKILL');
  }
}, 90_000);

test('a worker told to stop finishes the activity it runs, exits 0, and the job goes on with the next worker', async () => {
  // The workers' TMPDIR: their scratch space (integrations/scratch.ts) is this test's to inspect.
  const scratchBase = fs.mkdtempSync(path.join(os.tmpdir(), 'graceful-scratch-'));
  const worker = () =>
    start('worker/main.ts', 'worker running', { PLATFORM_ORIGIN_OVERRIDE: origin.url, WORKER_METRICS_PORT: '0', TMPDIR: scratchBase });
  const first = await worker();
  const firstScratch = path.join(scratchRoot(scratchBase), `worker-${first.child.pid}`);
  let second: Proc | undefined;
  try {
    const ws = await createWorkspace(api.deps, { plan: 'pro' });
    origin.requests.length = 0;
    const job = await request(api.app)
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ source: { url: 'https://www.youtube.com/watch?v=grace000001' }, mode: 'captions_only' });
    expect(job.status).toBe(202);
    // The caption fetch is under way (the replay origin holds its answer 4 s): stop the worker now.
    const deadline = Date.now() + 20_000;
    while (!origin.requests.some((r) => /\/api\/timedtext/.test(r.url)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    fs.mkdirSync(path.join(firstScratch, 'job-done'), { recursive: true });
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    const { code, at } = await first.exited;
    expect(code).toBe(0);
    // Its scratch folder went with it (nothing for the next start to sweep).
    expect(fs.existsSync(firstScratch)).toBe(false);
    // It stayed for the running fetch (about 4 s), and left soon after it: a worker that left its database pool
    // open lingered 10 s more (pg's idle timeout), 14 s in all, and a deploy waited on every such stop.
    expect(at - signalledAt).toBeGreaterThan(1500);
    expect(at - signalledAt).toBeLessThan(10_000);

    second = await worker();
    const done = await request(api.app).get(`/v1/jobs/${job.body.id}`).query({ wait: 25 }).set(bearer(ws.apiKey));
    expect(done.body.status).toBe('succeeded');
    expect(done.body.retry).toBeNull();
    // Finished by the stopping worker, not retried: one attempt of the caption fetch, completed.
    const { events } = await api.deps.temporal.workflow.getHandle(`job-${job.body.id}`).fetchHistory();
    const fetch = events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchCaptions')!;
    const about = (e: NonNullable<typeof events>[number]) =>
      [
        e.activityTaskStartedEventAttributes,
        e.activityTaskCompletedEventAttributes,
        e.activityTaskFailedEventAttributes,
        e.activityTaskTimedOutEventAttributes,
      ].find((a) => a && Number(a.scheduledEventId) === Number(fetch.eventId));
    const outcomes = events!
      .filter(about)
      .map((e) =>
        e.activityTaskStartedEventAttributes
          ? `started ${e.activityTaskStartedEventAttributes.attempt}`
          : e.activityTaskCompletedEventAttributes
            ? 'completed'
            : 'failed',
      );
    expect(outcomes).toEqual(['started 1', 'completed']);
  } finally {
    first.child.kill('SIGKILL');
    second?.child.kill('SIGKILL');
    await second?.exited;
    fs.rmSync(scratchBase, { recursive: true, force: true });
  }
}, 120_000);
