import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import request from 'supertest';
import { scratchRoot } from '../../integrations/scratch';
import { LocalDiskObjectStore } from '../../integrations/storage';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi } from '../support/harness';
import { videositeCaptionRoutes } from '../support/job-stack';
import { startReplayOrigin, type ReplayOrigin } from '../support/replay-origin';
import { audioDir, makeSpeech, PARAGRAPHS } from '../support/speech';
import { reserveAndPut } from '../support/uploads';
import { killAll, startWorkerProcess } from '../support/worker-process';
import { workflowIds } from '../../workflows/definitions';
import { activityRetries } from '../support/activity-retries';

// A worker process SIGKILLed in the middle of jobs: caption fetches in flight
// (the replay origin answers slowly) and AI transcriptions (recognising, or
// cutting audio). A replacement worker must bring every job to a final state
// once, with credits exact. That the loss was noticed by heartbeats is read from
// the jobs' histories: every activity that timed out did so on its 10 s heartbeat
// timeout (workflows/job.ts), none on its start-to-close timeout (60 s for a
// source, 30 minutes for media), and then retried. The jobs must also be final
// within RECOVERY_BOUND_MS of the replacement being up (its own start, 5-15 s
// here, is the machine's, so it is not counted): far above what the heartbeat
// path has taken (15 to 25 s, 42 s on a loaded machine; beyond the timeouts it
// is the work itself, which is the machine's), far below a media timeout.

const RECOVERY_BOUND_MS = 120_000;
const CAPTION_JOBS = 10;
const AI_JOBS = 2;

let origin: ReplayOrigin;
let api: TestApi;
let dataDir: string;
let ownDataDir = false;
let databaseUrl: string;
// The worker processes' TMPDIR: their scratch space (integrations/scratch.ts) is this test's to inspect.
let scratchBase: string;
const workers: ChildProcess[] = [];
const taskQueue = `kill-${randomUUID()}`;
const signingSecret = 'worker-kill-test-upload-signing-secret-0123456789';

/** The real worker entry point as its own process, on this test's queue. */
async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerProcess({
    taskQueue,
    databaseUrl,
    env: { PLATFORM_ORIGIN_OVERRIDE: origin.url, DATA_DIR: dataDir, UPLOAD_SIGNING_SECRET: signingSecret, TMPDIR: scratchBase },
  });
  workers.push(child);
  return child;
}

beforeAll(async () => {
  origin = await startReplayOrigin(videositeCaptionRoutes({ captionDelayMs: 4000 }));
  scratchBase = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-kill-scratch-'));
  // The API, the worker process and the recognition worker of the test stack
  // (which reads the pieces) share the local object store of the run's DATA_DIR.
  ownDataDir = !process.env.DATA_DIR;
  dataDir = process.env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'worker-kill-'));
  const objectStore = new LocalDiskObjectStore({
    root: path.join(dataDir, 'objects'),
    baseUrl: 'http://127.0.0.1',
    signingSecret: Buffer.from(signingSecret, 'utf8'),
  });
  // The worker process runs the workflow starter, which looks at every job of its database: one of its own.
  databaseUrl = await privateDatabase('worker_kill');
  api = await startTestApi({ DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue }, { objectStore });
});

afterAll(async () => {
  await killAll(workers);
  await api.close();
  await origin.close();
  if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scratchBase, { recursive: true, force: true });
});

test(`after a SIGKILLed worker every job is final once, credits exact, within ${RECOVERY_BOUND_MS / 1000} s of the replacement being up`, async () => {
  const first = await startWorker();
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  const before = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;

  const audio = await audioDir();
  const speech = await makeSpeech(`${PARAGRAPHS[0]} ${PARAGRAPHS[1]}`, audio.dir, 'talk', { format: 'mp3' });
  const uploadIds: string[] = [];
  for (let i = 0; i < AI_JOBS; i++) {
    const { slot } = await reserveAndPut(api, ws, speech.path, 'audio/mpeg');
    const done = await request(api.app).post(`/v1/uploads/${slot.id}/complete`).set(bearer(ws.apiKey));
    expect(done.body.status).toBe('ready');
    uploadIds.push(slot.id);
  }
  await audio.cleanup();

  const jobIds: string[] = [];
  const submit = async (body: object) => {
    const res = await request(api.app).post('/v1/jobs').set(bearer(ws.apiKey)).set('Idempotency-Key', randomUUID()).send(body);
    expect(res.status).toBe(202);
    jobIds.push(res.body.id);
  };
  // Half the AI jobs ask for speaker labels: their workflow has one more step on the recognition queue (labelSpeakers).
  const labelled = new Set<string>();
  for (const [i, uploadId] of uploadIds.entries()) {
    await submit({ source: { upload_id: uploadId }, mode: 'transcribe', language: 'en', ...(i % 2 === 0 ? { speaker_labels: true } : {}) });
    if (i % 2 === 0) labelled.add(jobIds.at(-1)!);
  }
  for (let i = 0; i < CAPTION_JOBS; i++)
    await submit({ source: { url: `https://www.youtube.com/watch?v=kill${String(i).padStart(7, '0')}` }, mode: 'captions_only' });

  // Kill once the caption fetches are in flight (the origin holds them 4 s).
  for (let i = 0; i < 100; i++) {
    const inCaptions = await api.deps.db.job.count({ where: { id: { in: jobIds }, stage: 'captions' } });
    if (inCaptions >= CAPTION_JOBS / 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  first.kill('SIGKILL');
  const killedAt = Date.now();
  await new Promise((r) => first.once('exit', r));
  const stagesAtKill = await api.deps.db.job.findMany({ where: { id: { in: jobIds } }, select: { status: true, stage: true } });
  expect(stagesAtKill.filter((j) => j.stage === 'captions').length).toBeGreaterThanOrEqual(CAPTION_JOBS / 2);

  // What the killed worker left on disk (a job's media, as an acquisition in flight leaves it) is the
  // replacement's to remove at its start.
  const killedScratch = path.join(scratchRoot(scratchBase), `worker-${first.pid}`);
  fs.mkdirSync(path.join(killedScratch, 'job-left'), { recursive: true });
  fs.writeFileSync(path.join(killedScratch, 'job-left', 'audio.wav'), Buffer.alloc(64 * 1024));

  const replacement = await startWorker();
  const replacementReady = Date.now();
  expect(fs.existsSync(killedScratch)).toBe(false);
  let final = 0;
  while (Date.now() - replacementReady < RECOVERY_BOUND_MS + 15_000) {
    final = await api.deps.db.job.count({ where: { id: { in: jobIds }, status: { in: ['succeeded', 'failed', 'cancelled'] } } });
    if (final === jobIds.length) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const recoveredMs = Date.now() - replacementReady;
  console.log(
    `[worker-kill] ${jobIds.length} jobs final ${recoveredMs} ms after the replacement was up (bound ${RECOVERY_BOUND_MS} ms); it took ${replacementReady - killedAt} ms to start`,
  );
  expect(final).toBe(jobIds.length);
  expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);

  // Every job succeeded, once: one published transcript each, one charge per hold.
  const jobs = await api.deps.db.job.findMany({ where: { id: { in: jobIds } } });
  expect(jobs.map((j) => j.status)).toEqual(jobIds.map(() => 'succeeded'));
  for (const job of jobs) {
    expect(await api.deps.db.transcript.count({ where: { jobId: job.id, publishedAt: { not: null } } })).toBe(1);
    if (labelled.has(job.id)) {
      const t = await api.deps.db.transcript.findUniqueOrThrow({ where: { jobId: job.id } });
      expect(t.speakers).toEqual([{ id: 'A', words: (t.words as unknown[]).length, seconds: expect.any(Number) }]);
    }
    const settlements = await api.deps.db.creditLedgerEntry.count({ where: { holdId: job.holdId!, kind: 'charge' } });
    expect(settlements).toBe(1);
  }
  const charged = jobs.reduce((sum, j) => sum + j.creditsCharged, 0);
  const after = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;
  expect(after.credits_reserved).toBe(0);
  expect(before.credits_remaining - after.credits_remaining).toBe(charged);
  expect(charged).toBe(CAPTION_JOBS * 1 + AI_JOBS * 2);
  expect(await api.deps.db.creditHold.count({ where: { workspaceId: ws.workspaceId, status: 'held' } })).toBe(0);

  // The activities in flight at the kill were found lost by their heartbeats, then retried. Which ones were in
  // flight is the moment's (a job whose workflow task was cut short before its fetch was scheduled starts the fetch
  // afresh, at its first attempt), but the kill always catches some.
  const retried: Array<{ activity: string; timeout: string }> = [];
  for (const id of jobIds) {
    const { events } = await api.deps.temporal.workflow.getHandle(workflowIds.job(id)).fetchHistory();
    for (const r of activityRetries(events))
      retried.push({
        activity: r.activity,
        timeout: proto.api.enums.v1.TimeoutType[r.lastFailure?.timeoutFailureInfo?.timeoutType ?? 0] ?? 'unknown',
      });
  }
  console.log(`[worker-kill] activities retried after the kill: ${retried.map((t) => `${t.activity} (${t.timeout})`).join(', ')}`);
  expect(retried.length).toBeGreaterThan(0);
  for (const t of retried) expect(t).toEqual({ activity: t.activity, timeout: 'TIMEOUT_TYPE_HEARTBEAT' });

  // Whatever media steps the replacement ran, it removed each one's folder from its scratch space.
  const ownScratch = path.join(scratchRoot(scratchBase), `worker-${replacement.pid}`);
  expect(fs.existsSync(ownScratch) ? fs.readdirSync(ownScratch) : []).toEqual([]);
}, 330_000);
