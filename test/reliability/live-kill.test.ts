import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { LocalDiskObjectStore } from '../../integrations/storage';
import { startRecognizer, type RecognizerHandle } from '../../stack/recognizer';
import type { LiveStreamOutcome } from '../../workflows/definitions';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi } from '../support/harness';
import { airLive, startHlsOrigin, type HlsOrigin, type LiveEncoder } from '../support/hls-origin';
import { audioDir, englishTalk, wordErrorRate } from '../support/speech';
import { testTls } from '../support/tls';
import { killAll, startWorkerProcess } from '../support/worker-process';
import { activityRetries } from '../support/activity-retries';

// A live stream followed while the worker that follows it is SIGKILLed, and then the recognizer that hears it.
// A replacement of each takes over: the stream's transcript must have every second of the recording once (no
// gap, no repeat), its segments published in order once each, and the credits charged exactly once.

const taskQueue = `live-kill-${randomUUID()}`;
const recognitionQueue = `live-kill-recognition-${randomUUID()}`;
const signingSecret = 'live-kill-test-upload-signing-secret-0123456789';
const workers: ChildProcess[] = [];
const recognizers: RecognizerHandle[] = [];
let api: TestApi;
let databaseUrl: string;
let dataDir: string;
let ownDataDir = false;
let scratch: string;
let caFile: string;
let origin: HlsOrigin;
let encoder: LiveEncoder | null = null;
let audio: { dir: string; cleanup: () => Promise<void> };
let talk: string;
let reference: string;
let talkSeconds: number;

async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerProcess({
    taskQueue,
    databaseUrl,
    // The origin's certificate is the test CA's: trusted by the worker process as an extra root.
    env: { DATA_DIR: dataDir, UPLOAD_SIGNING_SECRET: signingSecret, RECOGNITION_TASK_QUEUE: recognitionQueue, NODE_EXTRA_CA_CERTS: caFile },
  });
  workers.push(child);
  return child;
}

async function startRecognitionWorker(): Promise<RecognizerHandle> {
  const r = await startRecognizer({ temporalAddress: process.env.TEMPORAL_ADDRESS!, taskQueue: recognitionQueue, dataDir });
  recognizers.push(r);
  return r;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'live-kill-'));
  caFile = path.join(scratch, 'ca.pem');
  fs.writeFileSync(caFile, testTls().cert);
  ownDataDir = !process.env.DATA_DIR;
  dataDir = process.env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'live-kill-data-'));
  const objectStore = new LocalDiskObjectStore({
    root: path.join(dataDir, 'objects'),
    baseUrl: 'http://127.0.0.1',
    signingSecret: Buffer.from(signingSecret, 'utf8'),
  });
  databaseUrl = await privateDatabase('live_kill');
  api = await startTestApi(
    { DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue, RECOGNITION_TASK_QUEUE: recognitionQueue },
    { objectStore },
  );
  audio = await audioDir('live-kill-');
  // Twice over (about a minute and a half): the stream is still on air after both kills.
  ({ file: talk, reference, seconds: talkSeconds } = await englishTalk(audio.dir, { times: 2 }));
  const hlsDir = path.join(scratch, 'hls');
  fs.mkdirSync(hlsDir);
  origin = await startHlsOrigin(hlsDir);
}, 180_000);

afterAll(async () => {
  await encoder?.stop();
  await killAll(workers);
  await Promise.all(recognizers.map((r) => r.stop().catch(() => undefined)));
  await api.close();
  await origin.close();
  await audio.cleanup();
  if (ownDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Waits until the follower of `jobId` runs an activity of `type` (started by a worker, not finished). */
async function whileRunning(jobId: string, type: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const d = await api.deps.temporal.workflow.getHandle(`live-${jobId}`).describe();
    const started = (d.raw.pendingActivities ?? []).some(
      (a) => a.activityType?.name === type && (String(a.state) === 'PENDING_ACTIVITY_STATE_STARTED' || a.state === 2),
    );
    if (started) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${type} of job ${jobId} was seen running`);
}

/** Waits until the job has published at least `count` segments. */
async function published(jobId: string, count: number): Promise<number> {
  for (let i = 0; i < 1200; i++) {
    const n = await api.deps.db.jobSegment.count({ where: { jobId } });
    if (n >= count) return n;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not publish ${count} segments`);
}

test('a live stream survives a SIGKILLed worker and a SIGKILLed recognizer: every second once, segments once, credits exact', async () => {
  const recognizer = await startRecognitionWorker();
  const first = await startWorker();
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  const before = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;
  // A playlist of the last 30 segments (a minute): what airs while a worker is replaced is still listed.
  encoder = await airLive(talk, origin.dir, { name: 'kill', listSize: 30 });
  const res = await request(api.app)
    .post('/v1/jobs')
    .set(bearer(ws.apiKey))
    .set('Idempotency-Key', randomUUID())
    .send({ source: { url: `${origin.base}/${encoder.playlist}` }, mode: 'transcribe', language: 'en' });
  expect(res.status).toBe(202);
  const jobId = res.body.id as string;

  // The worker that follows the stream dies after the first segments are out; a new one takes over.
  const beforeWorkerKill = await published(jobId, 2);
  // A segment's answer is held back, so the capture that asks for it is surely in flight when its worker dies.
  origin.segmentDelayMs = 5000;
  const asked = origin.requests.length;
  while (!origin.requests.slice(asked).some((r) => r.path.endsWith('.ts'))) await new Promise((r) => setTimeout(r, 20));
  await whileRunning(jobId, 'captureLiveAudio');
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  origin.segmentDelayMs = 0;
  await startWorker();
  // Then the recognizer dies while pieces keep coming (one is usually being heard), and a new one takes over.
  const beforeRecognizerKill = await published(jobId, beforeWorkerKill + 2);
  await whileRunning(jobId, 'recognizePiece');
  process.kill(recognizer.pid, 'SIGKILL');
  await recognizer.exited;
  await startRecognitionWorker();
  console.log(`[live-kill] worker killed after ${beforeWorkerKill} segments, recognizer after ${beforeRecognizerKill}`);

  let job: { status: string; result_id: string; billing: { credits_charged: number } } | null = null;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    job = (await request(api.app).get(`/v1/jobs/${jobId}`).query({ wait: 10 }).set(bearer(ws.apiKey)).expect(200)).body;
    if (['succeeded', 'failed', 'cancelled'].includes(job!.status)) break;
  }
  expect(job!.status).toBe('succeeded');
  const outcome: LiveStreamOutcome = await api.deps.temporal.workflow.getHandle(`live-${jobId}`).result();
  expect(outcome.ended).toBe('ended');
  expect(outcome.missedMs).toBe(0);
  // No gap and no repeat: the pieces tile the stream from its first second to its last.
  expect(outcome.pieces[0]!.startMs).toBe(0);
  for (let i = 1; i < outcome.pieces.length; i++) expect(outcome.pieces[i]!.startMs).toBe(outcome.pieces[i - 1]!.endMs);
  expect(outcome.pieces.at(-1)!.endMs / 1000).toBeGreaterThan(talkSeconds - 3);
  expect(outcome.pieces.at(-1)!.endMs / 1000).toBeLessThan(talkSeconds + 3);
  const t = (await request(api.app).get(`/v1/transcripts/${job!.result_id}`).set(bearer(ws.apiKey)).expect(200)).body;
  expect(wordErrorRate(reference, t.text)).toBeLessThan(0.3);
  for (let i = 1; i < t.segments.length; i++) expect(t.segments[i].start).toBeGreaterThanOrEqual(t.segments[i - 1].end - 0.05);
  // Each piece recognised into the transcript once: as many pieces as recognised results stitched, one charge.
  const charged = 2 * Math.ceil(t.duration_seconds / 60);
  expect(job!.billing.credits_charged).toBe(charged);
  const after = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;
  expect(after.credits_reserved).toBe(0);
  expect(before.credits_remaining - after.credits_remaining).toBe(charged);
  // The kills were felt: a capture and a recognition of this stream each ran a second attempt.
  const history = await api.deps.temporal.workflow.getHandle(`live-${jobId}`).fetchHistory();
  const retried = new Set(activityRetries(history.events).map((r) => r.activity));
  console.log(`[live-kill] ${outcome.pieces.length} pieces, ${t.segments.length} segments; retried: ${[...retried].join(', ')}`);
  // (A publish in flight beside the killed capture may have been retried too: it is idempotent.)
  expect([...retried]).toEqual(expect.arrayContaining(['captureLiveAudio', 'recognizePiece']));
}, 480_000);
