import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { transcriptionCredits, wordTimedCaptionCredits } from '../core/plans';
import { getBalance } from '../domain/credits/ledger';
import { toRecognizerWav } from '../integrations/media/convert';
import { evalClips } from './support/asr-eval';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { createActivities } from '../activities';
import { toErrorObject } from '../core/errors';
import type { JobPlan } from '../workflows/definitions';
import {
  activityDepsFor,
  newKey,
  startedJobWorkflow,
  startJobStack,
  submit,
  VIDEO_URL,
  videositeCaptionRoutes,
  waitFinal,
  type JobStack,
} from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir, concatWithPauses, ffmpeg, normaliseWords } from './support/speech';
import { uploadReady } from './support/uploads';

// Forced alignment end to end (issue 25, item 2): a caption track given word times against the video's audio
// (`word_timing`), a track that is not what the audio says flagged by its match scores, and a user's own text
// aligned to an upload (`align_text`). Real speech of ../shared/asr-eval through the replay origin (captions,
// audio via yt-dlp) or an upload → job → the Python recognition worker's alignAudio → transcript. The
// alignment's own rules are tested in recognizer/tests/test_pipeline.py.

let stack: JobStack;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
const clips = evalClips();
const CLIPS = ['en/jfk_inaugural.flac', 'en/leopard_librispeech_1272-128104-0000.wav', 'en/fleurs-en-000.ogg', 'en/fleurs-en-002.ogg'];
const GAP_S = 1;

/** The recording: four English clips with a second between them (about 43 s: two alignment windows). */
let wav: string;
let mp3: string;
/** One cue per half of each clip's reference, timed where the clip lies (split by words, times shared out). */
let cues: { start: number; end: number; text: string }[];
let durationS: number;

interface Transcript {
  text: string;
  source_origin: string;
  language: string;
  timing_granularity: string;
  segments: { start: number; end: number; text: string; match: number | null }[];
  words: { start: number; end: number; text: string; confidence: number }[] | null;
  recognition: unknown;
  alignment: { method: string; model: string; match_threshold: number; segments_below_threshold: number } | null;
}

const srv3 = (list: { start: number; end: number; text: string }[]) =>
  `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3">\n<body>\n${list
    .map(
      (c) =>
        `<p t="${Math.round(c.start * 1000)}" d="${Math.round((c.end - c.start) * 1000)}">${c.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`,
    )
    .join('\n')}\n</body>\n</timedtext>\n`;

beforeAll(async () => {
  stack = await startJobStack([]);
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir('align-');
  const parts = await Promise.all(
    CLIPS.map((file) => toRecognizerWav(clips.find((c) => c.file === file)!.audio, path.join(dir.dir, `${path.basename(file)}.wav`))),
  );
  wav = await concatWithPauses(parts, path.join(dir.dir, 'talk.wav'), GAP_S);
  mp3 = path.join(dir.dir, 'talk.mp3');
  await ffmpeg(['-y', '-i', wav, '-codec:a', 'libmp3lame', '-q:a', '4', mp3]);
  cues = [];
  let at = 0;
  for (const [i, file] of CLIPS.entries()) {
    const seconds = (fs.statSync(parts[i]!).size - 44) / 32_000;
    const words = clips.find((c) => c.file === file)!.reference.split(/\s+/);
    const half = Math.ceil(words.length / 2);
    cues.push({ start: at, end: at + seconds / 2, text: words.slice(0, half).join(' ') });
    cues.push({ start: at + seconds / 2, end: at + seconds, text: words.slice(half).join(' ') });
    at += seconds + GAP_S;
  }
  durationS = at - GAP_S;
}, 120_000);

afterAll(async () => {
  await stack.close();
  await dir.cleanup();
});

const app = () => stack.api.app;

let recognized: Promise<Transcript['words']> | null = null;
/** The recognizer's own words on the recording (an AI transcription job of its upload), once for the file. */
function recognizedWords(): Promise<NonNullable<Transcript['words']>> {
  recognized ??= (async () => {
    const upload = await uploadReady(stack.api, ws, wav, 'audio/wav');
    const res = await submit(stack.api, ws.apiKey, { source: { upload_id: upload }, mode: 'transcribe', language: 'en' });
    return (await transcriptOf(await finished(res.body.id))).words;
  })();
  return recognized.then((w) => w!);
}

/** Word-start differences where the aligned words and the recognized ones agree (the longest runs of equal words, in order). */
function startErrors(aligned: { text: string; start: number }[], heard: { text: string; start: number }[]) {
  const key = (w: { text: string }) => normaliseWords(w.text).join(' ');
  const a = aligned.map(key);
  const b = heard.map(key);
  // Longest common subsequence of the two word lists.
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] && a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const diffs: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] && a[i] === b[j]) diffs.push(Math.abs(aligned[i++]!.start - heard[j++]!.start));
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  diffs.sort((x, y) => x - y);
  return { compared: diffs.length, median: diffs[Math.floor(diffs.length / 2)] ?? Infinity };
}

/** The video's captions from the replay origin (a body, or a recorded one) and its audio (the recording, as mp3) at /watch for yt-dlp. */
function videoRoutes(captions: string | { captionFixture: string }): ReplayRoute[] {
  return [
    ...videositeCaptionRoutes(typeof captions === 'string' ? { captionBody: captions } : captions),
    { path: '/watch', body: fs.readFileSync(mp3) as unknown as string, headers: { 'content-type': 'audio/mpeg' } },
  ];
}

async function finished(id: string, w = ws) {
  let job = await waitFinal(stack.api, w.apiKey, id, 25);
  for (let i = 0; i < 6 && !['succeeded', 'failed', 'cancelled'].includes(job.body.status); i++)
    job = await waitFinal(stack.api, w.apiKey, id, 25);
  return job.body;
}

async function transcriptOf(job: { result_id: string }, w = ws): Promise<Transcript> {
  return (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body as Transcript;
}

describe('word_timing: caption transcripts timed word by word', () => {
  it('aligns the cues to the audio: every cue matches, its words come back in order with times inside it, priced as captions plus audio minutes', async () => {
    stack.origin.setRoutes(videoRoutes(srv3(cues)));
    try {
      const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
      stack.origin.requests.length = 0;
      const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true });
      expect(res.status).toBe(202);
      // Held at acceptance: the caption credit and the minimum of the audio's price.
      expect(res.body.billing.credits_reserved).toBe(wordTimedCaptionCredits(0));
      expect(res.body.options).toMatchObject({ word_timing: true, align_text_chars: null });
      const job = await finished(res.body.id, w);
      expect(job).toMatchObject({ status: 'succeeded', billing: { kind: 'captions' } });
      const t = await transcriptOf(job, w);
      expect(job.billing.credits_charged).toBe(wordTimedCaptionCredits(Math.round(durationS * 1000)));
      expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ reserved: 0 });
      expect(stack.origin.requests.some((r) => r.path === '/watch')).toBe(true);

      expect(t.timing_granularity).toBe('word');
      expect(t.source_origin).not.toBe('speech_recognition');
      expect(t.alignment).toMatchObject({ method: 'word_timing', match_threshold: 0.3, segments_below_threshold: 0 });
      expect(t.segments.map((s) => s.text)).toEqual(cues.map((c) => c.text));
      expect(t.segments.every((s) => s.match !== null && s.match >= 0.3)).toBe(true);
      // Every word of the captions, in order, as written.
      expect(normaliseWords(t.words!.map((w) => w.text).join(' '))).toEqual(normaliseWords(cues.map((c) => c.text).join(' ')));
      for (let i = 1; i < t.words!.length; i++) expect(t.words![i]!.start).toBeGreaterThanOrEqual(t.words![i - 1]!.start);
      // Where the words agree with the recognizer's on the same audio, they start within 0.1 s of its (median).
      expect(startErrors(t.words!, await recognizedWords()).median).toBeLessThanOrEqual(0.1);
      // Storing again (an attempt whose worker was lost after it stored) finds the work done: the result file is gone.
      const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
      await acts.storeCaptionAlignment({ jobId: job.id } as JobPlan, job.result_id, `work/${job.id}/alignment.json`);
      expect((await transcriptOf(job, w)).words).toEqual(t.words);
      // The word-timed exports: srt cues from the words.
      const srt = await request(app()).get(`/v1/transcripts/${job.result_id}/export`).query({ format: 'srt' }).set(bearer(w.apiKey));
      expect(srt.status).toBe(200);
      expect(srt.text).toContain('ask not what your country');
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 180_000);

  it('flags a track that is not what the audio says (another video): at least 90 % of its cues below the threshold', async () => {
    // The Mesmerizer lyrics over this speech: the track of another video.
    stack.origin.setRoutes(videoRoutes({ captionFixture: 'videosite/caption-bodies/srv3/mesmerizer.srv3.xml' }));
    try {
      const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true });
      const job = await finished(res.body.id);
      expect(job.status).toBe('succeeded');
      const t = await transcriptOf(job);
      const flagged = t.segments.filter((s) => s.match !== null && s.match < 0.3).length;
      expect(flagged / t.segments.length).toBeGreaterThanOrEqual(0.9);
      expect(t.alignment!.segments_below_threshold).toBe(flagged);
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 180_000);

  it('without word_timing nothing changes: no audio is fetched, no words, the caption price', async () => {
    stack.origin.setRoutes(videoRoutes(srv3(cues)));
    stack.origin.requests.length = 0;
    try {
      const res = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
      const job = await finished(res.body.id);
      expect(job).toMatchObject({
        status: 'succeeded',
        billing: { kind: 'captions', credits_charged: 1 },
        options: { word_timing: false },
      });
      const t = await transcriptOf(job);
      expect(t).toMatchObject({ timing_granularity: 'segment', words: null, alignment: null });
      expect(t.segments.every((s) => s.match === null)).toBe(true);
      expect(stack.origin.requests.some((r) => r.path === '/watch')).toBe(false);
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 60_000);

  it('is a different request for reuse: the word-timed transcript is not handed to a plain caption request, nor the other way', async () => {
    stack.origin.setRoutes(videoRoutes(srv3(cues.slice(0, 2))));
    try {
      const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
      const plain = await finished((await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' })).body.id, w);
      const timed = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true });
      expect(timed.status).toBe(202);
      const done = await finished(timed.body.id, w);
      expect(done.result_id).not.toBe(plain.result_id);
      const again = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ result_id: done.result_id, billing: { kind: 'cached', credits_charged: 0 } });
      // The other way: a plain request after both gets the plain transcript, not the word-timed one.
      const plainAgain = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only' });
      expect(plainAgain.body).toMatchObject({ result_id: plain.result_id, billing: { kind: 'cached' } });
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 180_000);
});

describe('align_text: a given text timed against an upload', () => {
  it('returns that text by sentence with word times where the audio says them, priced as AI transcription', async () => {
    const upload = await uploadReady(stack.api, ws, wav, 'audio/wav');
    const sentences = CLIPS.map((file) => clips.find((c) => c.file === file)!.reference);
    const text = sentences.join('\n');
    const res = await submit(stack.api, ws.apiKey, { source: { upload_id: upload }, mode: 'transcribe', language: 'en', align_text: text });
    expect(res.status).toBe(202);
    expect(res.body.options).toMatchObject({ align_text_chars: Array.from(text).length, word_timing: false });
    const job = await finished(res.body.id);
    expect(job).toMatchObject({ status: 'succeeded', billing: { kind: 'ai_transcription' } });
    expect(job.billing.credits_charged).toBe(transcriptionCredits(Math.round(durationS * 1000)));
    const t = await transcriptOf(job);
    expect(t).toMatchObject({ source_origin: 'provided_text', text, language: 'en', timing_granularity: 'word', recognition: null });
    expect(t.alignment).toMatchObject({ method: 'align_text', segments_below_threshold: 0 });
    expect(t.segments.map((s) => s.text)).toEqual(sentences);
    expect(normaliseWords(t.words!.map((w) => w.text).join(' '))).toEqual(normaliseWords(text));
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    const again = await acts.storeTextAlignment({ jobId: job.id } as JobPlan, `work/${job.id}/alignment.json`, 1000);
    expect(again.transcriptId).toBe(job.result_id);
    // Where the words agree with the recognizer's on the same audio, they start within 0.1 s of its (median).
    const errors = startErrors(t.words!, await recognizedWords());
    expect(errors.compared).toBeGreaterThan(t.words!.length * 0.7);
    expect(errors.median).toBeLessThanOrEqual(0.1);
  }, 180_000);

  it('refuses what cannot be aligned before accepting it, naming the field', async () => {
    const trial = await createWorkspace(stack.api.deps, { plan: 'trial' });
    const cases: [object, string, number, string, TestWorkspace?][] = [
      [{ source: { url: VIDEO_URL }, mode: 'transcribe', word_timing: true }, 'word_timing', 422, 'INVALID_REQUEST'],
      [{ source: { url: VIDEO_URL }, mode: 'captions_only', align_text: 'hello' }, 'align_text', 422, 'INVALID_REQUEST'],
      [{ source: { url: VIDEO_URL }, mode: 'transcribe', align_text: '   \n ' }, 'align_text', 422, 'INVALID_REQUEST'],
      [{ source: { url: VIDEO_URL }, mode: 'transcribe', align_text: 'a\u0000b' }, 'align_text', 422, 'INVALID_REQUEST'],
      [{ source: { url: VIDEO_URL }, mode: 'transcribe', align_text: 'x'.repeat(200_001) }, 'align_text', 422, 'INVALID_REQUEST'],
      [
        { source: { url: VIDEO_URL }, mode: 'transcribe', align_text: 'hi', speaker_labels: true },
        'speaker_labels',
        422,
        'INVALID_REQUEST',
      ],
      [{ source: { url: VIDEO_URL }, mode: 'transcribe', align_text: 'hi', vocabulary: ['x'] }, 'vocabulary', 422, 'INVALID_REQUEST'],
      [{ source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true }, 'word_timing', 402, 'PLAN_REQUIRED', trial],
    ];
    for (const [body, detail, status, code, w] of cases) {
      const res = await submit(stack.api, (w ?? ws).apiKey, body);
      expect({ status: res.status, code: res.body.error?.code, detail: res.body.error?.details?.detail }).toEqual({ status, code, detail });
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    }
    // The longest text is accepted: 200,000 characters, counted as characters (an emoji is one).
    const longest = '😀 '.repeat(100_000);
    const ok = await submit(stack.api, ws.apiKey, { source: { url: `${VIDEO_URL}&x=1` }, mode: 'transcribe', align_text: longest });
    expect(ok.status).toBe(202);
    expect(ok.body.options.align_text_chars).toBe(200_000);
    await request(app()).post(`/v1/jobs/${ok.body.id}/cancel`).set(bearer(ws.apiKey));

    // However the client's JSON encoder writes it: Python's json.dumps escapes every non-ASCII character, an emoji as
    // 12 bytes, so the longest text without spaces is a body of 2.4 MB (refused with 413 under a 1 MiB limit).
    const asciiJson = (body: object) =>
      JSON.stringify(body).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const item = { source: { url: `${VIDEO_URL}&x=2` }, mode: 'transcribe', align_text: '😀'.repeat(200_000) };
    const post = (path: string, body: string) =>
      request(app()).post(path).set(bearer(ws.apiKey)).set('Idempotency-Key', newKey()).set('Content-Type', 'application/json').send(body);
    const job = await post('/v1/jobs', asciiJson(item));
    expect(Buffer.byteLength(asciiJson(item))).toBeGreaterThan(2_400_000);
    expect(job.status).toBe(202);
    expect(job.body.options.align_text_chars).toBe(200_000);
    await request(app()).post(`/v1/jobs/${job.body.id}/cancel`).set(bearer(ws.apiKey));
    const batch = await post('/v1/batches', asciiJson({ items: [{ ...item, source: { url: `${VIDEO_URL}&x=3` } }] }));
    expect(batch.status).toBe(202);
    await request(app()).post(`/v1/jobs/${batch.body.items[0].job_id}/cancel`).set(bearer(ws.apiKey));
    // Past the 4 MiB of these routes: 413 naming their limit (the other routes keep 1 MiB: test/http-contract.test.ts).
    const over = await post('/v1/batches', asciiJson({ items: [item, item] }));
    expect({ status: over.status, code: over.body.error?.code, detail: over.body.error?.details?.detail }).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      detail: 'body_limit_bytes=4194304',
    });
  }, 60_000);
});

describe('retries and cancel keep the alignment options, with credits exact', () => {
  /** A job's last step after a retryable failure, run here (the whole retry schedule takes minutes: test/workflows). */
  async function failRetryably(jobId: string) {
    await (await startedJobWorkflow(stack.api, jobId)).terminate('the retry schedule is asserted in test/workflows');
    await createActivities(activityDepsFor(stack.api, stack.outbound)).failJob(
      jobId,
      toErrorObject('STORAGE_UNAVAILABLE', 'object store: 503'),
    );
  }

  const retry = (jobId: string, w = ws) =>
    request(app()).post(`/v1/jobs/${jobId}/retry`).set(bearer(w.apiKey)).set('Idempotency-Key', newKey()).send({});

  it('a retried align_text job aligns the same text; a retried word_timing job times the words again', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const upload = await uploadReady(stack.api, w, wav, 'audio/wav');
    const text = CLIPS.map((file) => clips.find((c) => c.file === file)!.reference).join('\n');
    const first = await submit(stack.api, w.apiKey, {
      source: { upload_id: upload },
      mode: 'transcribe',
      language: 'en',
      align_text: text,
    });
    await failRetryably(first.body.id);
    const again = await retry(first.body.id, w);
    expect(again.status).toBe(202);
    expect(again.body.options).toMatchObject({ align_text_chars: Array.from(text).length, profile: 'standard', speaker_labels: false });
    const done = await finished(again.body.id, w);
    expect(done.status).toBe('succeeded');
    expect((await transcriptOf(done, w)).text).toBe(text);

    stack.origin.setRoutes(videoRoutes(srv3(cues.slice(0, 4))));
    try {
      const captions = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'auto', word_timing: true, language: 'en' });
      await failRetryably(captions.body.id);
      const timed = await retry(captions.body.id, w);
      expect(timed.body.options).toMatchObject({ mode: 'auto', word_timing: true, language: 'en' });
      const t = await transcriptOf(await finished(timed.body.id, w), w);
      expect(t.timing_granularity).toBe('word');
      expect(t.alignment).toMatchObject({ method: 'word_timing' });
    } finally {
      stack.origin.setRoutes([]);
    }
    // Two failures released their holds; two successes charged theirs once each.
    const jobs = await stack.api.deps.db.job.findMany({ where: { workspaceId: w.workspaceId } });
    const charged = jobs.reduce((n, j) => n + j.creditsCharged, 0);
    expect(jobs.filter((j) => j.status === 'failed').every((j) => j.creditsCharged === 0)).toBe(true);
    expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ reserved: 0, available: 6000 - charged });
  }, 240_000);

  it('a word_timing job cancelled while its audio is fetched is cancelled: nothing charged, the hold released, nothing published', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    stack.origin.setRoutes([
      ...videositeCaptionRoutes({ captionBody: srv3(cues) }),
      { path: '/watch', body: fs.readFileSync(mp3) as unknown as string, headers: { 'content-type': 'audio/mpeg' }, delayMs: 8000 },
    ]);
    try {
      const res = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', word_timing: true });
      let job = res.body;
      for (let i = 0; i < 200 && job.stage !== 'acquire_audio'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        job = (await request(app()).get(`/v1/jobs/${res.body.id}`).set(bearer(w.apiKey))).body;
      }
      expect(job.stage).toBe('acquire_audio');
      const cancel = await request(app()).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(w.apiKey));
      expect([200, 202]).toContain(cancel.status);
      const done = await finished(res.body.id, w);
      expect(done).toMatchObject({ status: 'cancelled', result_id: null, billing: { credits_charged: 0, credits_reserved: 0 } });
      expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ reserved: 0, available: 6000 });
      expect(await stack.api.deps.db.transcript.count({ where: { jobId: res.body.id, publishedAt: { not: null } } })).toBe(0);
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 60_000);
});
