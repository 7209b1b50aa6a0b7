// A private stack for the speech measurements (bench/asr.bench.ts, bench/asr-eval.ts):
// its own PostgreSQL database and Temporal dev server, the speech recognition
// worker (recognizer/, Python), the API in this process and a real job worker,
// all sharing one local object store under .data/<name>-data-<pid>. Jobs go
// the way a user's do: upload, POST /v1/jobs, wait, GET the transcript.

import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import type { RecognizerHandle } from '../stack/recognizer';
import { startThrowawayStack } from '../stack/throwaway-stack';

export interface Transcript {
  id: string;
  language: string | null;
  text: string;
  words: { start: number; end: number; text: string; confidence: number }[];
  duration_seconds: number;
  recognition: { model: string; quality_status: string; language_probability?: number | null };
}

export interface JobRun {
  status: string;
  error?: { code: string; message: string };
  transcript: Transcript | null;
  /** POST /v1/jobs → final status seen by the client. */
  ms: number;
}

export interface AsrStack {
  recognizer: RecognizerHandle;
  /** Upload → job (transcribe) → transcript, as a client does it. */
  transcribe(file: string, opts?: { language?: string; profile?: 'standard' | 'fast' }): Promise<JobRun>;
  /** Stops the recognition worker and starts a new one (new process: a cold start), returning it. */
  restartRecognizer(env?: Record<string, string>): Promise<RecognizerHandle>;
  /** Stops the recognition worker (jobs then wait for one at the recognition queue). */
  stopRecognizer(): Promise<void>;
  /** Starts the recognition worker after stopRecognizer. */
  startRecognizer(env?: Record<string, string>): Promise<RecognizerHandle>;
  /** One more recognition worker process on the same queue (stopped by close). */
  addRecognizer(env?: Record<string, string>): Promise<RecognizerHandle>;
  /** Replaces the job worker by one cutting audio into pieces of at most `maxPieceMs`. */
  setMaxPieceMs(maxPieceMs: number | undefined): Promise<void>;
  /** The job's stage and status as stored (for waiting until it reached the recognizer). */
  jobStage(jobId: string): Promise<{ stage: string | null; status: string }>;
  /** Uploads and submits without waiting: the job's id, and when POST /v1/jobs was sent (performance.now()). */
  submit(file: string, opts?: { language?: string; profile?: 'standard' | 'fast' }): Promise<{ id: string; postedAt: number }>;
  /** Submits a link (a live stream's HLS playlist) without waiting: the job's id, and when POST /v1/jobs was sent. */
  submitLink(url: string, opts?: { language?: string }): Promise<{ id: string; postedAt: number }>;
  /** GET /v1/jobs/{id}/segments?after=&wait= as a client reads a growing transcript. */
  readSegments(
    jobId: string,
    after: number,
    waitSeconds: number,
  ): Promise<{ status: string; segments: Array<{ seq: number; start: number; end: number; text: string }>; next_after: number }>;
  /** Waits until the job is final; `ms` counts from `postedAt`. */
  waitJob(jobId: string, postedAt: number): Promise<JobRun>;
  close(): Promise<void>;
}

const UPLOAD_TYPES: Record<string, string> = { '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.m4a': 'audio/mp4' };

export async function startAsrStack(opts: {
  name: string;
  pgPort: number;
  temporalPort: number;
  maxPieceMs?: number;
  recognizerEnv?: Record<string, string>;
}): Promise<AsrStack> {
  const stack = await startThrowawayStack({
    name: opts.name,
    pgPort: opts.pgPort,
    temporalPort: opts.temporalPort,
    recognizer: true,
    recognizerEnv: opts.recognizerEnv,
  });
  const dataDir = stack.dataDir;
  Object.assign(process.env, { ...stack.env, LOG_LEVEL: 'silent' });
  const startRec = (env: Record<string, string> = {}) => stack.startRecognizer(env);
  let recognizer: RecognizerHandle = stack.recognizer!;

  // Imported after the environment is set: they read it.
  const { startTestApi, createWorkspace, bearer } = await import('../test/support/harness');
  const { startTestWorker } = await import('../test/support/worker');
  const { activityDepsFor } = await import('../test/support/job-stack');
  const { uploadReady } = await import('../test/support/uploads');
  const taskQueue = `${opts.name}-${randomUUID()}`;
  const api = await startTestApi({ TEMPORAL_TASK_QUEUE: taskQueue });
  const outbound = createOutbound({ originOverride: null, timeoutMs: 2000 });
  let worker = await startTestWorker(createActivities(activityDepsFor(api, outbound, { maxPieceMs: opts.maxPieceMs })), taskQueue);
  const extra: RecognizerHandle[] = [];
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  const scratch = fs.mkdtempSync(path.join(dataDir, 'scratch-'));

  async function submit(
    file: string,
    o: { language?: string; profile?: 'standard' | 'fast' } = {},
  ): Promise<{ id: string; postedAt: number }> {
    let upload = file;
    let type = UPLOAD_TYPES[path.extname(file).toLowerCase()];
    if (!type) {
      // FLAC is lossless and not an upload type: the same samples as PCM wav.
      upload = path.join(scratch, `${path.basename(file)}.wav`);
      const { ffmpeg } = await import('../test/support/speech');
      await ffmpeg(['-i', file, '-c:a', 'pcm_s16le', upload]);
      type = 'audio/wav';
    }
    const uploadId = await uploadReady(api, ws, upload, type);
    const postedAt = performance.now();
    const res = await request(api.app)
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({
        source: { upload_id: uploadId },
        mode: 'transcribe',
        ...(o.language ? { language: o.language } : {}),
        ...(o.profile ? { profile: o.profile } : {}),
      });
    if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { id: (res.body as { id: string }).id, postedAt };
  }

  async function waitJob(jobId: string, postedAt: number): Promise<JobRun> {
    let job = { id: jobId, status: 'queued' } as {
      id: string;
      status: string;
      result_id?: string;
      error?: { code: string; message: string };
    };
    while (!['succeeded', 'failed', 'cancelled'].includes(job.status)) {
      job = (await request(api.app).get(`/v1/jobs/${job.id}`).query({ wait: 25 }).set(bearer(ws.apiKey))).body;
    }
    const ms = performance.now() - postedAt;
    const transcript =
      job.status === 'succeeded'
        ? ((await request(api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(ws.apiKey))).body as Transcript)
        : null;
    return { status: job.status, error: job.error, transcript, ms };
  }

  /** The time counts from POST /v1/jobs (the upload before it is not part of the job). */
  async function transcribe(file: string, o: { language?: string; profile?: 'standard' | 'fast' } = {}): Promise<JobRun> {
    const { id, postedAt } = await submit(file, o);
    return waitJob(id, postedAt);
  }

  return {
    get recognizer() {
      return recognizer;
    },
    transcribe,
    submit,
    async submitLink(url, o = {}) {
      const postedAt = performance.now();
      const res = await request(api.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', randomUUID())
        .send({ source: { url }, mode: 'transcribe', ...(o.language ? { language: o.language } : {}) });
      if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
      return { id: (res.body as { id: string }).id, postedAt };
    },
    waitJob,
    async readSegments(jobId, after, waitSeconds) {
      const res = await request(api.app).get(`/v1/jobs/${jobId}/segments`).query({ after, wait: waitSeconds }).set(bearer(ws.apiKey));
      if (res.status !== 200) throw new Error(`segments answered ${res.status}: ${res.text}`);
      return res.body;
    },
    async restartRecognizer(env = {}) {
      await recognizer.stop();
      recognizer = await startRec(env);
      return recognizer;
    },
    stopRecognizer: () => recognizer.stop(),
    async startRecognizer(env = {}) {
      recognizer = await startRec(env);
      return recognizer;
    },
    async addRecognizer(env = {}) {
      const r = await startRec(env);
      extra.push(r);
      return r;
    },
    async setMaxPieceMs(maxPieceMs) {
      await worker.stop();
      worker = await startTestWorker(createActivities(activityDepsFor(api, outbound, { maxPieceMs })), taskQueue);
    },
    async jobStage(jobId) {
      return api.deps.db.job.findUniqueOrThrow({ where: { id: jobId }, select: { stage: true, status: true } });
    },
    async close() {
      for (const r of extra) await r.stop().catch(() => undefined);
      await recognizer.stop().catch(() => undefined);
      await worker.stop();
      await outbound.close();
      await api.close();
      await stack.stop();
    },
  };
}
