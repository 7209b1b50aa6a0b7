import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import request from 'supertest';
import { getBalance } from '../../domain/credits/ledger';
import { toRecognizerWav } from '../../integrations/media/convert';
import { scratchRoot } from '../../integrations/scratch';
import { readyFields, startRecognizer, type RecognizerHandle } from '../../stack/recognizer';
import { workflowIds } from '../../workflows/definitions';
import { evalClips } from '../support/asr-eval';
import { bearer, createWorkspace } from '../support/harness';
import { startJobStack, submit, VIDEO_URL, videositeCaptionRoutes, waitFinal, type JobStack } from '../support/job-stack';
import { audioDir, concatWithPauses, ffmpeg } from '../support/speech';
import { uploadReady } from '../support/uploads';

// The recognition worker SIGKILLed while it works on jobs that use issue 25's options: speaker labels with a
// vocabulary and the fast profile (recognizePiece, then labelSpeakers), a text aligned to an upload
// (alignAudio) and a caption track given word times (alignAudio). Its activity is found lost by the 10 s
// heartbeat timeout and retried on a new recognizer; every job must succeed once, with its options' result,
// and with credits exact.

const queue = `recognition-kill-${randomUUID()}`;
const recognizers: RecognizerHandle[] = [];
let stack: JobStack;
let dir: { dir: string; cleanup: () => Promise<void> };
let wav: string;
let mp3: string;
// The recognizers' TMPDIR: their scratch space (recognizer/scratch.py) is this test's to inspect.
const scratchBase = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-kill-scratch-'));
const clips = evalClips();
const FILES = ['en/jfk_inaugural.flac', 'en/leopard_librispeech_1272-128104-0000.wav', 'en/fleurs-en-000.ogg', 'en/fleurs-en-002.ogg'];

const newRecognizer = async () => {
  const r = await startRecognizer({
    temporalAddress: process.env.TEMPORAL_ADDRESS!,
    taskQueue: queue,
    dataDir: process.env.DATA_DIR ?? '.data',
    env: { TMPDIR: scratchBase },
  });
  recognizers.push(r);
  return r;
};

beforeAll(async () => {
  dir = await audioDir('rec-kill-');
  const parts = await Promise.all(
    FILES.map((f) => toRecognizerWav(clips.find((c) => c.file === f)!.audio, path.join(dir.dir, `${path.basename(f)}.wav`))),
  );
  // Twice over: about 85 s, so that each job keeps the recognizer busy for a while.
  wav = await concatWithPauses([...parts, ...parts], path.join(dir.dir, 'talk.wav'), 1);
  mp3 = path.join(dir.dir, 'talk.mp3');
  await ffmpeg(['-y', '-i', wav, '-codec:a', 'libmp3lame', '-q:a', '4', mp3]);
  const cue = (text: string, start: number, end: number) => `<p t="${start * 1000}" d="${(end - start) * 1000}">${text}</p>`;
  const captions = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3">\n<body>\n${cue(clips.find((c) => c.file === FILES[0])!.reference, 0, 11)}\n</body>\n</timedtext>\n`;
  stack = await startJobStack(
    [
      ...videositeCaptionRoutes({ captionBody: captions }),
      { path: '/watch', body: fs.readFileSync(mp3) as unknown as string, headers: { 'content-type': 'audio/mpeg' } },
    ],
    { recognitionTaskQueue: queue },
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(recognizers.map((r) => r.stop().catch(() => undefined)));
  await stack?.close();
  await dir?.cleanup();
  fs.rmSync(scratchBase, { recursive: true, force: true });
});

/** The recognition activities a job's workflow has started and not finished, with the worker that took each. */
async function startedRecognitionActivities(jobId: string): Promise<{ type: string; worker: string }[]> {
  // The API starts a job's workflow just after its commit: not there yet is nothing running yet.
  const d = await stack.api.deps.temporal.workflow
    .getHandle(workflowIds.job(jobId))
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    });
  if (!d) return [];
  return (d.raw.pendingActivities ?? [])
    .filter((a) => String(a.state) === 'PENDING_ACTIVITY_STATE_STARTED' || a.state === 2)
    .map((a) => ({ type: a.activityType?.name ?? '', worker: a.lastWorkerIdentity ?? '' }));
}

test('a SIGKILLed recognizer loses no job: each succeeds once on the next recognizer, with its options, credits exact', async () => {
  await newRecognizer();
  const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const upload = await uploadReady(stack.api, ws, wav, 'audio/wav');
  const text = [...FILES, ...FILES].map((f) => clips.find((c) => c.file === f)!.reference).join('\n');
  const bodies = [
    { source: { upload_id: upload }, mode: 'transcribe', language: 'en', speaker_labels: true, vocabulary: ['Quilter'], profile: 'fast' },
    { source: { upload_id: upload }, mode: 'transcribe', language: 'en', align_text: text },
    { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true },
  ];
  const ids: string[] = [];
  for (const body of bodies) {
    const res = await submit(stack.api, ws.apiKey, body);
    expect(res.status).toBe(202);
    ids.push(res.body.id);
  }

  // Kill the recognizer while it holds a recognition activity. Whether one is still in flight at the moment of
  // the kill is a race (a short one may just finish), so it is checked after the kill: an activity that a dead
  // process had started stays STARTED with that process as its worker until the heartbeat timeout retries it.
  // Without one, the next recognizer is killed the same way (each job has minutes of work left).
  let felt = false;
  for (let round = 0; round < 5 && !felt; round++) {
    const victim = recognizers.at(-1)!;
    let working: { type: string; worker: string }[] = [];
    for (let i = 0; i < 600 && working.length === 0; i++) {
      working = (await Promise.all(ids.map(startedRecognitionActivities))).flat().filter((a) => a.worker.startsWith(`${victim.pid}@`));
      if (working.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(working.length).toBeGreaterThan(0);
    process.kill(victim.pid, 'SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    felt = (await Promise.all(ids.map(startedRecognitionActivities))).flat().some((a) => a.worker.startsWith(`${victim.pid}@`));
    // A piece's audio as the killed process left it (or would have, had it been downloading): the next
    // recognizer removes it at its start.
    const killedScratch = path.join(scratchRoot(scratchBase), `recognizer-${victim.pid}`);
    fs.mkdirSync(path.join(killedScratch, 'piece-left'), { recursive: true });
    fs.writeFileSync(path.join(killedScratch, 'piece-left', 'piece.wav'), Buffer.alloc(64 * 1024));
    const next = await newRecognizer();
    expect(fs.existsSync(killedScratch)).toBe(false);
    expect(Number(readyFields(next.readyLine).scratch_swept)).toBeGreaterThanOrEqual(1);
  }
  expect(felt).toBe(true);

  const jobs = [];
  for (const id of ids) {
    let job = (await waitFinal(stack.api, ws.apiKey, id, 25)).body;
    for (let i = 0; i < 10 && !['succeeded', 'failed', 'cancelled'].includes(job.status); i++)
      job = (await waitFinal(stack.api, ws.apiKey, id, 25)).body;
    jobs.push(job);
  }
  expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  const transcripts = await Promise.all(
    jobs.map(async (j) => (await request(stack.api.app).get(`/v1/transcripts/${j.result_id}`).set(bearer(ws.apiKey)).expect(200)).body),
  );
  // Each with what its options asked for.
  expect(transcripts[0].speakers.length).toBeGreaterThanOrEqual(2);
  expect(transcripts[0].recognition.profile).toBe('fast');
  expect(transcripts[1]).toMatchObject({ source_origin: 'provided_text', text });
  expect(transcripts[2]).toMatchObject({ timing_granularity: 'word', alignment: { method: 'word_timing' } });

  // Once: one published transcript and one charge per job; the holds settled; what was charged is what was priced.
  const db = stack.api.deps.db;
  for (const j of jobs) {
    expect(await db.transcript.count({ where: { jobId: j.id, publishedAt: { not: null } } })).toBe(1);
    const row = await db.job.findUniqueOrThrow({ where: { id: j.id } });
    expect(await db.creditLedgerEntry.count({ where: { holdId: row.holdId!, kind: 'charge' } })).toBe(1);
  }
  const minutes = Math.ceil(transcripts[1].duration_seconds / 60) * 2;
  expect(jobs.map((j) => j.billing.credits_charged)).toEqual([minutes, minutes, 1 + minutes]);
  expect(await getBalance(db, ws.workspaceId)).toMatchObject({ reserved: 0, available: 6000 - (3 * minutes + 1) });
  // The kill was felt: some recognition activity of these jobs ran a second attempt.
  const attempts = await Promise.all(
    ids.map(async (id) => {
      const history = await stack.api.deps.temporal.workflow.getHandle(workflowIds.job(id)).fetchHistory();
      return Math.max(0, ...(history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 0));
    }),
  );
  expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
  // The recognizer still running removed each piece's folder from its scratch space, and its own folder at its stop.
  const last = path.join(scratchRoot(scratchBase), `recognizer-${recognizers.at(-1)!.pid}`);
  expect(fs.existsSync(last) ? fs.readdirSync(last) : []).toEqual([]);
  fs.mkdirSync(last, { recursive: true });
  await recognizers.at(-1)!.stop();
  expect(fs.existsSync(last)).toBe(false);
}, 420_000);
