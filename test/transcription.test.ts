import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { toRecognizerWav } from '../integrations/media/convert';
import { bearer, createWorkspace, textBody, type TestWorkspace } from './support/harness';
import { evalClips, pooled, score, type EvalClip } from './support/asr-eval';
import { startJobStack, submit, waitFinal, waitUntilFinal, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir, concatWithPauses, ffmpeg, makeSilence, makeSpeech, PARAGRAPHS, wordErrorRate } from './support/speech';
import { testTls } from './support/tls';
import { uploadReady } from './support/uploads';
import { toTranscriptView } from '../domain/transcripts/view';

// AI transcription end to end on real components: real human speech from
// ../shared/asr-eval (and flite speech where only the path matters) → upload
// or direct link → job on Temporal → the job worker (conversion, pieces) →
// the Python recognition worker that npm test starts (Whisper base, on the
// `recognition` task queue) → stitched transcript.
//
// WER bounds: Whisper base through this pipeline measured, pooled over the
// clips (npm run eval:asr, the same settings; deterministic for the same
// audio): en 7.7 % (4 clips), es 4.8 % (3 clips); flite's slt voice 3 %. The
// bounds leave room for nothing but rounding: a word lost or doubled at a
// cut, a wrong language, or audio cut short shows as several points.
const EN_WER_BOUND = 0.12;
const ES_WER_BOUND = 0.1;
const FLITE_WER_BOUND = 0.1;

let stack: JobStack;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
let speech: { path: string; text: string };
let media: Server;
let mediaBase: string;
const served = new Map<string, { body: Buffer; type: string; length?: number }>();
const clips = evalClips();
const en = clips.filter((c) => c.lang === 'en');
const es = clips.filter((c) => c.lang === 'es');
const clip = (file: string) => clips.find((c) => c.file === file)!;

beforeAll(async () => {
  // Pieces of at most 20 s, so a long file is recognised as several pieces in parallel.
  stack = await startJobStack([], { maxPieceMs: 20_000 });
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir();
  speech = await makeSpeech(`${PARAGRAPHS[0]} ${PARAGRAPHS[1]}`, dir.dir, 'two', { format: 'mp3' });

  // A direct-link host on loopback https (the test allowance lets loopback through, nothing else).
  const tls = testTls();
  media = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const item = served.get(req.url ?? '');
    if (!item) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': item.type, 'content-length': String(item.length ?? item.body.length) });
    res.end(item.length && item.length > item.body.length ? undefined : item.body);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `https://127.0.0.1:${(media.address() as AddressInfo).port}`;
  served.set('/talk.mp3', { body: fs.readFileSync(speech.path), type: 'audio/mpeg' });
}, 120_000);

afterAll(async () => {
  media.closeAllConnections();
  media.close();
  await stack.close();
  await dir.cleanup();
});

const app = () => stack.api.app;

interface TranscriptBody {
  id: string;
  language: string | null;
  text: string;
  words: { start: number; end: number; confidence: number; text: string }[];
  duration_seconds: number;
  recognition: { model: string; profile: string; quality_status: string; language_probability: number | null };
}

/** Word times monotonic (each starts at or after the previous one ended) and inside the media; confidences in 0..1. */
function expectGoodWords(t: TranscriptBody, minWords = 5) {
  expect(t.words.length).toBeGreaterThanOrEqual(minWords);
  let prevEnd = 0;
  for (const w of t.words) {
    expect(w.start).toBeGreaterThanOrEqual(prevEnd);
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(t.duration_seconds + 1e-6);
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    prevEnd = w.end;
  }
}

/** Long polls until the job is final (several jobs may queue for the one recognition worker). */
async function waitDone(w: TestWorkspace, jobId: string, deadlineMs = 50_000) {
  const until = Date.now() + deadlineMs;
  let res = await waitFinal(stack.api, w.apiKey, jobId, 25);
  while (!['succeeded', 'failed', 'cancelled'].includes(res.body.status) && Date.now() < until)
    res = await waitFinal(stack.api, w.apiKey, jobId, Math.max(1, Math.min(25, Math.round((until - Date.now()) / 1000))));
  return res;
}

/** Uploads a clip (FLAC, not an upload type, as the same samples in wav) and transcribes it: the final job and its transcript. */
async function transcribeClip(c: EvalClip, w: TestWorkspace, body: object = {}) {
  let file = c.audio;
  let type = c.audio.endsWith('.ogg') ? 'audio/ogg' : 'audio/wav';
  if (c.audio.endsWith('.flac')) file = await toRecognizerWav(c.audio, path.join(dir.dir, `${path.basename(c.audio)}.wav`));
  else if (!c.audio.endsWith('.ogg') && !c.audio.endsWith('.wav')) type = 'application/octet-stream';
  const uploadId = await uploadReady(stack.api, w, file, type);
  const res = await submit(stack.api, w.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', ...body });
  expect(res.status).toBe(202);
  const done = await waitDone(w, res.body.id);
  expect(done.body.status).toBe('succeeded');
  const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey)).expect(200)).body as TranscriptBody;
  return { job: done.body, t };
}

describe('AI transcription', () => {
  it('upload → complete → job → transcript with word timing, billed per started minute; the measured quality status', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const jfk = clip('en/jfk_inaugural.flac');
    const { job, t } = await transcribeClip(jfk, w, { language: 'en' });
    expect(job).toMatchObject({
      source: { platform: 'upload' },
      billing: { kind: 'ai_transcription', credits_charged: 2, credits_reserved: 0 },
    });
    expect((await getBalance(stack.api.deps.db, w.workspaceId)).available).toBe(1998);
    expect(t).toMatchObject({
      source_origin: 'speech_recognition',
      timing_granularity: 'word',
      language: 'en',
      // en is validated_language by the stored measurements (integrations/recognizers/measured-quality.json).
      recognition: { model: 'whisper-base', profile: 'standard', quality_status: 'validated_language', language_probability: null },
    });
    expect(t.duration_seconds).toBeCloseTo(jfk.durationSec, 0);
    expectGoodWords(t, 15);
    expect(score('en', jfk.reference, t.text).rate).toBeLessThan(EN_WER_BOUND);

    const srt = await request(app()).get(`/v1/transcripts/${t.id}/export`).query({ format: 'srt' }).set(bearer(w.apiKey)).expect(200);
    expect(srt.text).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\r?\n/);
    const vtt = await request(app()).get(`/v1/transcripts/${t.id}/export`).query({ format: 'vtt' }).set(bearer(w.apiKey)).expect(200);
    expect(vtt.text.startsWith('WEBVTT')).toBe(true);
    await expectServedFromRendering(w, t.id);
  });

  /**
   * GET and the json export serve the JSON stored when the transcript was written, byte for byte the view
   * of its row; one written before renderings (none stored) is served the same, serialised on the read.
   */
  async function expectServedFromRendering(w: TestWorkspace, id: string) {
    const db = stack.api.deps.db;
    const view = JSON.stringify(toTranscriptView(await db.transcript.findUniqueOrThrow({ where: { id } })));
    const get = () => request(app()).get(`/v1/transcripts/${id}`).set(bearer(w.apiKey)).buffer(true).parse(textBody).expect(200);
    const json = () =>
      request(app())
        .get(`/v1/transcripts/${id}/export`)
        .query({ format: 'json' })
        .set(bearer(w.apiKey))
        .buffer(true)
        .parse(textBody)
        .expect(200);
    expect((await get()).body).toBe(view);
    expect((await get()).headers['content-type']).toBe('application/json; charset=utf-8');
    const file = await json();
    expect(file.body).toBe(`${view}\n`);
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename=".+-[0-9a-f]{8}\.json"/);

    // Served from the rendering, not from the row: a marked rendering shows in both.
    const { body } = await db.transcriptRendering.findUniqueOrThrow({ where: { transcriptId: id } });
    await db.transcriptRendering.update({ where: { transcriptId: id }, data: { body: body.replace('"text":"', '"text":"MARK ') } });
    expect(JSON.parse((await get()).body).text).toMatch(/^MARK /);
    expect(JSON.parse((await json()).body).text).toMatch(/^MARK /);
    await db.transcriptRendering.delete({ where: { transcriptId: id } });
    expect((await get()).body).toBe(view);
    expect((await json()).body).toBe(`${view}\n`);
    await db.transcriptRendering.create({ data: { transcriptId: id, body } });
  }

  it.each([
    ['English', en, EN_WER_BOUND],
    ['Spanish', es, ES_WER_BOUND],
  ] as const)(
    '%s speech without a language hint: detected with its probability, WER under the measured bound',
    async (_name, set, bound) => {
      const results = await Promise.all(set.map(async (c) => ({ c, ...(await transcribeClip(c, ws)) })));
      for (const { c, t } of results) {
        expect(t.language).toBe(c.lang);
        expect(t.recognition.language_probability).toBeGreaterThan(0.5);
        expect(t.recognition.language_probability).toBeLessThanOrEqual(1);
        expectGoodWords(t, 5);
      }
      const lang = set[0]!.lang;
      const wer = pooled(results.map((r) => score(lang, r.c.reference, r.t.text))).rate;
      console.log(`Whisper base through the pipeline, no language given: ${lang} WER ${(wer * 100).toFixed(1)} % (${set.length} clips)`);
      expect(wer).toBeLessThan(bound);
    },
  );

  it('detects German and Japanese; Japanese is scored by characters and written without spaces', async () => {
    const [de, ja] = await Promise.all(['de/fleurs-de-003.ogg', 'ja/leopard_test_ja.wav'].map((f) => transcribeClip(clip(f), ws)));
    expect(de.t.language).toBe('de');
    expect(ja.t.language).toBe('ja');
    expect(de.t.recognition.quality_status).toMatch(/^(validated_language|provider_supported)$/);
    // One Japanese clip in the set: not enough to validate the language.
    expect(ja.t.recognition.quality_status).toBe('provider_supported');
    expect(ja.t.text).not.toMatch(/ /);
    expect(score('de', clip('de/fleurs-de-003.ogg').reference, de.t.text).rate).toBeLessThan(0.2);
    expect(score('ja', clip('ja/leopard_test_ja.wav').reference, ja.t.text).rate).toBeLessThan(0.2);
    expectGoodWords(ja.t, 5);
  }, 60_000);

  it('transcribes a direct https link', async () => {
    const res = await submit(stack.api, ws.apiKey, { source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe' });
    expect(res.status).toBe(202);
    expect(res.body.source.platform).toBe('direct');
    const done = await waitUntilFinal(stack.api, ws.apiKey, res.body.id);
    expect(done.body.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(ws.apiKey))).body;
    expect(t.language).toBe('en');
    expect(wordErrorRate(speech.text, t.text)).toBeLessThan(FLITE_WER_BOUND);
  }, 180_000);

  it('cuts long media at pauses into pieces recognised in parallel and stitches them: no word lost or doubled, times continuous; no cancel once audio went to the recognizer', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    // Six flite paragraphs with 1.5 s pauses: about 68 s, pieces of at most 20 s. (One voice: Whisper
    // base is steady on it, 3 % WER; glued recordings of different real voices make it fall back to
    // sampling now and then, which would test the model's luck, not the cutting and stitching.)
    const parts = await Promise.all(PARAGRAPHS.map((p, i) => makeSpeech(p, dir.dir, `long-${i}`)));
    const long = await concatWithPauses(
      parts.map((p) => p.path),
      path.join(dir.dir, 'long.wav'),
      1.5,
    );
    const uploadId = await uploadReady(stack.api, w, long, 'audio/wav');
    const res = await submit(stack.api, w.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', language: 'en' });
    // Wait until the audio is with the recognizer, then try to cancel.
    for (let i = 0; i < 400; i++) {
      const j = (await request(app()).get(`/v1/jobs/${res.body.id}`).set(bearer(w.apiKey))).body;
      if (j.stage === 'wait_asr' || j.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancel = await request(app()).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(w.apiKey));
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('CANCELLATION_NOT_ALLOWED');

    const done = await waitDone(w, res.body.id);
    expect(done.body.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey))).body as TranscriptBody;
    expect(t.duration_seconds).toBeGreaterThan(60);
    expectGoodWords(t, 150);
    // The last paragraph's words sit at the end of the file: each piece's times were moved by its start.
    expect(t.words[t.words.length - 1]!.end).toBeGreaterThan(t.duration_seconds - 4);
    // Pieces cut in pauses lose and double nothing: a sentence lost or doubled at a cut adds about 6 %.
    const wer = wordErrorRate(PARAGRAPHS.join(' '), t.text);
    console.log(`stitched from pieces of ≤ 20 s: WER ${(wer * 100).toFixed(1)} % over ${t.words.length} words`);
    expect(wer).toBeLessThan(FLITE_WER_BOUND);
    expect(done.body.billing.credits_charged).toBe(Math.ceil(t.duration_seconds / 60) * 2);
  }, 60_000);

  it('capabilities list the eight languages and Hindi with the measured quality', async () => {
    const caps = (await request(app()).get('/v1/capabilities').expect(200)).body;
    expect(caps.recognition_model).toBe('whisper-base');
    const by = Object.fromEntries(caps.transcription_languages.map((r: { language: string }) => [r.language, r]));
    expect(Object.keys(by)).toEqual(['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko', 'hi']);
    expect(by.en).toMatchObject({ quality_status: 'validated_language', metric: 'wer', clips: 15 });
    expect(by.ja).toMatchObject({ quality_status: 'provider_supported', metric: 'cer', clips: 5 });
    // Below 20 % on 21 clips is the rule's other half: French is measured but not validated.
    expect(by.fr).toMatchObject({ quality_status: 'provider_supported', metric: 'wer', clips: 21 });
    expect(by.hi).toMatchObject({ quality_status: 'experimental_language', error_rate: null, clips: 0 });
  });

  it('falls back from missing captions to AI transcription in auto mode (audio via yt-dlp through the replay origin)', async () => {
    const routes: ReplayRoute[] = [
      { method: 'POST', path: '/youtubei/v1/reel/reel_item_watch', status: 404, body: '' },
      {
        method: 'POST',
        path: '/youtubei/v1/player',
        fixture: 'videosite/errors/no-captions/android-player-dsMFmonKDD4-no-captions.innertube.json',
      },
      { path: '/watch', body: fs.readFileSync(speech.path) as unknown as string, headers: { 'content-type': 'audio/mpeg' } },
    ];
    stack.origin.setRoutes(routes);
    try {
      const res = await submit(stack.api, ws.apiKey, { source: { url: 'https://www.youtube.com/watch?v=dsMFmonKDD4' }, mode: 'auto' });
      expect(res.body.billing.credits_reserved).toBe(2);
      const done = await waitUntilFinal(stack.api, ws.apiKey, res.body.id);
      expect(done.body).toMatchObject({ status: 'succeeded', billing: { kind: 'ai_transcription', credits_charged: 2 } });
      const download = stack.origin.requests.find((r) => r.path === '/watch');
      expect(download?.forwardedHost).toBe('www.youtube.com');
      expect(download?.query.get('v')).toBe('dsMFmonKDD4');
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 180_000);
});

describe('AI transcription errors', () => {
  it('LANGUAGE_UNSUPPORTED at submit for a language outside the eight and the experimental one', async () => {
    const res = await submit(stack.api, ws.apiKey, { source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe', language: 'nl' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'LANGUAGE_UNSUPPORTED', details: { detail: 'language' } });
  });

  it('UNSAFE_URL for private and metadata addresses', async () => {
    for (const url of [
      'https://10.1.2.3/a.mp3',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:10.0.0.1]/a.mp3',
      'https://100.100.1.1/a.mp3',
    ]) {
      const res = await submit(stack.api, ws.apiKey, { source: { url }, mode: 'transcribe' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'UNSAFE_URL', details: { detail: 'source.url' } });
    }
  });

  async function failsWith(body: object, code: string, w = ws) {
    const res = await submit(stack.api, w.apiKey, body);
    expect(res.status).toBe(202);
    const done = await waitUntilFinal(stack.api, w.apiKey, res.body.id);
    expect(done.body.status).toBe('failed');
    expect(done.body.error.code).toBe(code);
    expect(done.body.billing).toMatchObject({ credits_charged: 0, credits_reserved: 0 });
    return done.body;
  }

  it('BUDGET_EXCEEDED before any charge when max_credits is below the measured cost', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    await failsWith({ source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe', max_credits: 1 }, 'BUDGET_EXCEEDED', w);
    expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ available: 6000, reserved: 0 });
  });

  it('INSUFFICIENT_BALANCE when the measured cost does not fit the balance', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    await stack.api.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 3 WHERE workspace_id = ${w.workspaceId}::uuid`;
    // Over a minute (cost 4), so the 2-credit hold cannot be raised to the price.
    const overMinute = await concatWithPauses(
      [speech.path, await makeSilence(path.join(dir.dir, 'pad.wav'), 50)],
      path.join(dir.dir, 'over-minute.wav'),
      1,
    );
    served.set('/long.wav', { body: fs.readFileSync(overMinute), type: 'audio/wav' });
    await failsWith({ source: { url: `${mediaBase}/long.wav` }, mode: 'transcribe' }, 'INSUFFICIENT_BALANCE', w);
    expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ available: 3, reserved: 0 });
  });

  it('NO_SPEECH for silence and for noise (voice-activity detection), NO_AUDIO for a video without sound', async () => {
    served.set('/silence.wav', { body: fs.readFileSync(await makeSilence(path.join(dir.dir, 'silence.wav'), 8)), type: 'audio/wav' });
    const noise = path.join(dir.dir, 'noise.wav');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'anoisesrc=r=16000:color=pink:amplitude=0.3:seed=3',
      '-t',
      '8',
      '-ac',
      '1',
      '-c:a',
      'pcm_s16le',
      noise,
    ]);
    served.set('/noise.wav', { body: fs.readFileSync(noise), type: 'audio/wav' });
    await Promise.all([
      failsWith({ source: { url: `${mediaBase}/silence.wav` }, mode: 'transcribe' }, 'NO_SPEECH'),
      failsWith({ source: { url: `${mediaBase}/noise.wav` }, mode: 'transcribe' }, 'NO_SPEECH'),
    ]);
    const video = path.join(dir.dir, 'mute.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', video]);
    served.set('/mute.mp4', { body: fs.readFileSync(video), type: 'video/mp4' });
    await failsWith({ source: { url: `${mediaBase}/mute.mp4` }, mode: 'transcribe' }, 'NO_AUDIO');
  });

  it('UNSUPPORTED_MEDIA, INVALID_MEDIA and FILE_TOO_LARGE for direct links', async () => {
    served.set('/page.html', { body: Buffer.from('<html><body>hello</body></html>'), type: 'text/html' });
    await failsWith({ source: { url: `${mediaBase}/page.html` }, mode: 'transcribe' }, 'UNSUPPORTED_MEDIA');
    served.set('/broken.mp3', {
      body: Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(5000, 0x11)]),
      type: 'audio/mpeg',
    });
    const broken = await failsWith({ source: { url: `${mediaBase}/broken.mp3` }, mode: 'transcribe' }, 'INVALID_MEDIA').catch(async () =>
      failsWith({ source: { url: `${mediaBase}/broken.mp3?again` }, mode: 'transcribe' }, 'UNSUPPORTED_MEDIA'),
    );
    expect(broken.error.retryable).toBe(false);
    served.set('/huge.mp3', { body: fs.readFileSync(speech.path), type: 'audio/mpeg', length: 262_144_001 });
    const huge = await failsWith({ source: { url: `${mediaBase}/huge.mp3` }, mode: 'transcribe' }, 'FILE_TOO_LARGE');
    expect(huge.error.details.detail).toMatch(/262144000/);
  });

  it('DURATION_LIMIT_EXCEEDED past two hours', async () => {
    const long = path.join(dir.dir, 'twohours.mp3');
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '7201', '-c:a', 'libmp3lame', '-b:a', '8k', long]);
    served.set('/twohours.mp3', { body: fs.readFileSync(long), type: 'audio/mpeg' });
    await failsWith({ source: { url: `${mediaBase}/twohours.mp3` }, mode: 'transcribe' }, 'DURATION_LIMIT_EXCEEDED');
  }, 60000);
});
