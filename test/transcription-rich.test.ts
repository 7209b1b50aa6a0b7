import path from 'node:path';
import request from 'supertest';
import { createActivities } from '../activities';
import { getBalance } from '../domain/credits/ledger';
import type { JobPlan } from '../workflows/definitions';
import { toRecognizerWav } from '../integrations/media/convert';
import { evalClips } from './support/asr-eval';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { activityDepsFor, startJobStack, submit, waitFinal, type JobStack } from './support/job-stack';
import { audioDir, concatWithPauses } from './support/speech';
import { uploadReady } from './support/uploads';

// Richer transcripts end to end (issue 25): speaker labels across pieces, every region in its spoken
// language without a hint, vocabulary and the fast profile, on real speech of ../shared/asr-eval through
// upload → job → the Python recognition worker → transcript. The recognizer's own rules are tested in
// recognizer/tests/test_pipeline.py; the finishing rules in test/unit/recognizers/labels.test.ts.

let stack: JobStack;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
const clips = evalClips();
const clipPath = (file: string) => clips.find((c) => c.file === file)!.audio;

beforeAll(async () => {
  // Pieces of at most 20 s: a conversation of 35 s is two pieces, whose voices must be clustered together.
  stack = await startJobStack([], { maxPieceMs: 20_000 });
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir('rich-');
}, 120_000);

afterAll(async () => {
  await stack.close();
  await dir.cleanup();
});

const app = () => stack.api.app;

interface Transcript {
  language: string;
  text: string;
  segments: { start: number; end: number; text: string; speaker: string | null; language: string | null }[];
  words: { start: number; end: number; text: string; speaker: string | null }[];
  speakers: { id: string; words: number; seconds: number }[] | null;
  languages: { language: string; seconds: number }[];
  recognition: { profile: string };
}

async function wavOf(file: string): Promise<string> {
  return toRecognizerWav(clipPath(file), path.join(dir.dir, `${path.basename(file)}.wav`));
}

async function transcribe(uploadId: string, body: object = {}) {
  const res = await submit(stack.api, ws.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', ...body });
  // 202 for new work; 200 when the workspace already holds the transcript for the same options (reuse).
  expect([200, 202]).toContain(res.status);
  let job = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
  for (let i = 0; i < 4 && !['succeeded', 'failed', 'cancelled'].includes(job.body.status); i++)
    job = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
  expect(job.body).toMatchObject({ status: 'succeeded' });
  const t = (await request(app()).get(`/v1/transcripts/${job.body.result_id}`).set(bearer(ws.apiKey)).expect(200)).body as Transcript;
  return { job: job.body, t };
}

describe('speaker labels', () => {
  let conversation: string;
  beforeAll(async () => {
    // Voice A (JFK), voice B (a LibriSpeech reader), voice A again: about 35 s, two pieces.
    const a = await wavOf('en/jfk_inaugural.flac');
    const b = await wavOf('en/leopard_librispeech_1272-128104-0000.wav');
    const wav = await concatWithPauses([a, b, a], path.join(dir.dir, 'conversation.wav'), 0.8);
    conversation = await uploadReady(stack.api, ws, wav, 'audio/wav');
  });

  it('every word and segment gets its speaker, one voice is one speaker across pieces, and the transcript lists them', async () => {
    const { job, t } = await transcribe(conversation, { language: 'en', speaker_labels: true });
    expect(job.options).toMatchObject({ speaker_labels: true, speakers_expected: null, profile: 'standard', vocabulary: [] });
    expect(t.speakers!.map((s) => s.id)).toEqual(['A', 'B']);
    expect(t.speakers!.reduce((n, s) => n + s.words, 0)).toBe(t.words.length);
    expect(t.words.every((w) => w.speaker === 'A' || w.speaker === 'B')).toBe(true);
    // The turns in order: JFK, the reader, JFK again (the second JFK turn is in the second piece).
    const turns = t.segments.map((s) => s.speaker).filter((s, i, all) => i === 0 || s !== all[i - 1]);
    expect(turns).toEqual(['A', 'B', 'A']);
    const said = (speaker: string) =>
      t.segments
        .filter((s) => s.speaker === speaker)
        .map((s) => s.text)
        .join(' ')
        .toLowerCase();
    expect(said('A')).toContain('fellow americans');
    expect(said('B')).toContain('middle classes');
    // A segment's words all have its speaker: no segment straddles a change.
    for (const s of t.segments) {
      const inside = t.words.filter((w) => w.start >= s.start && w.end <= s.end);
      expect(new Set(inside.map((w) => w.speaker))).toEqual(new Set([s.speaker]));
    }
  });

  it('the speaker count given is kept; without labels words say null and the job is not a reuse of a labelled one', async () => {
    const { t } = await transcribe(conversation, { language: 'en', speaker_labels: true, speakers_expected: 2 });
    expect(t.speakers!.map((s) => s.id)).toEqual(['A', 'B']);
    const plain = await transcribe(conversation, { language: 'en' });
    expect(plain.job.billing.kind).toBe('ai_transcription');
    expect(plain.t.speakers).toBeNull();
    expect(plain.t.words.every((w) => w.speaker === null)).toBe(true);
    expect(plain.t.segments.every((s) => s.speaker === null)).toBe(true);
    // The same options again: the labelled transcript is reused, free.
    const again = await transcribe(conversation, { language: 'en', speaker_labels: true, speakers_expected: 2 });
    expect(again.job.billing).toMatchObject({ kind: 'cached', credits_charged: 0 });
    expect(again.t.speakers!.length).toBe(2);
  });
});

describe('languages', () => {
  it('without a hint every region is written in its own language, never translated; languages lists each with its seconds', async () => {
    const en = await wavOf('en/jfk_inaugural.flac');
    const es = await wavOf('es/fleurs-es-000.ogg');
    const wav = await concatWithPauses([en, es], path.join(dir.dir, 'en-es.wav'), 1);
    const { t } = await transcribe(await uploadReady(stack.api, ws, wav, 'audio/wav'));
    expect(t.languages.map((l) => l.language).sort()).toEqual(['en', 'es']);
    expect(t.language).toBe(t.languages[0]!.language);
    const first = t.segments.findIndex((s) => s.language === 'es');
    expect(first).toBeGreaterThan(0);
    expect(t.segments.slice(0, first).every((s) => s.language === 'en')).toBe(true);
    expect(t.segments.slice(first).every((s) => s.language === 'es')).toBe(true);
    expect(t.text.toLowerCase()).toContain('my fellow americans');
  });
});

describe('vocabulary and profiles', () => {
  it('the vocabulary brings rare names, the fast profile is recorded, and both are echoed', async () => {
    const uploadId = await uploadReady(stack.api, ws, clipPath('pt/fleurs-pt-003.ogg'), 'audio/ogg');
    const names = ['Goethe', 'Fichte', 'Schlegel'];
    const plain = await transcribe(uploadId, { language: 'pt' });
    expect(names.filter((n) => plain.t.text.includes(n))).toEqual([]);
    const before = (await getBalance(stack.api.deps.db, ws.workspaceId)).available;
    const told = await transcribe(uploadId, { language: 'pt', vocabulary: [...names, 'Fichte'], profile: 'fast' });
    expect(names.filter((n) => told.t.text.includes(n))).toEqual(names);
    expect(told.t.recognition.profile).toBe('fast');
    expect(told.job.options).toMatchObject({ profile: 'fast', vocabulary: names, speaker_labels: false });
    // A second attempt of the storing step (its first one's answer lost after the work files were removed)
    // answers the same transcript instead of failing the job with NOT_FOUND (found by the scale test).
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    const again = await acts.storeRecognition({ jobId: told.job.id } as JobPlan, [`work/${told.job.id}/result-0.json`], [], 1000);
    expect(again).toEqual({ transcriptId: told.job.result_id });
    // Priced like any AI transcription: the same credits for either profile and any vocabulary.
    expect(told.job.billing).toMatchObject({ kind: 'ai_transcription', credits_charged: plain.job.billing.credits_charged });
    expect(await getBalance(stack.api.deps.db, ws.workspaceId)).toMatchObject({
      available: before - told.job.billing.credits_charged,
      reserved: 0,
    });
  });

  it('capabilities list both profiles with their measurements', async () => {
    const caps = (await request(app()).get('/v1/capabilities').expect(200)).body;
    expect(caps.recognition_profiles).toEqual(['standard', 'fast']);
    const by = Object.fromEntries(caps.recognition_profile_measurements.map((p: { profile: string }) => [p.profile, p]));
    for (const profile of ['standard', 'fast']) {
      expect(by[profile].real_time_factor).toBeGreaterThan(0);
      expect(by[profile].languages.map((l: { language: string }) => l.language)).toEqual(expect.arrayContaining(['en', 'es', 'de']));
    }
  });
});

describe('refusals name the field', () => {
  const refuse = async (body: object, detail: string) => {
    const res = await submit(stack.api, ws.apiKey, body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail } });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  };
  const upload = { upload_id: '00000000-0000-4000-8000-000000000001' };

  it('recognition options on a captions job, a count without labels, and every bound', async () => {
    await refuse(
      { source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'captions_only', speaker_labels: true },
      'speaker_labels',
    );
    await refuse({ source: upload, mode: 'transcribe', speakers_expected: 2 }, 'speakers_expected');
    await refuse({ source: upload, mode: 'transcribe', speaker_labels: true, speakers_expected: 11 }, 'speakers_expected');
    await refuse({ source: upload, mode: 'transcribe', vocabulary: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'vocabulary');
    await refuse({ source: upload, mode: 'transcribe', vocabulary: ['é'.repeat(51)] }, 'vocabulary[0]');
    await refuse({ source: upload, mode: 'transcribe', profile: 'turbo' }, 'profile');
    const batch = await request(app())
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', `rich-${Date.now()}`)
      .send({ items: [{ source: upload, mode: 'transcribe', speaker_labels: 'yes' }] });
    expect(batch.status).toBe(422);
    expect(batch.body.error.details.detail).toBe('items[0].speaker_labels');
  });
});
