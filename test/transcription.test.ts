import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { getBalance } from '../domain/credits/ledger';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, submit, waitFinal, type JobStack } from './support/job-stack';
import type { ReplayRoute } from './support/replay-origin';
import { audioDir, concatWithPauses, ffmpeg, makeSilence, makeSpeech, PARAGRAPHS, wordErrorRate } from './support/speech';
import { testTls } from './support/tls';
import { uploadReady } from './support/uploads';

// AI transcription end to end on real components: flite speech → upload or
// direct link → job on Temporal → pocketsphinx in the worker → transcript.
// pocketsphinx en-us on flite's slt voice measured 23 % WER here (3 paragraphs);
// the bound leaves room for the voice/recognizer variance, not for broken timing.
const WER_BOUND = 0.35;

let stack: JobStack;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
let speech: { path: string; text: string };
let longSpeech: string;
let longText: string;
let media: Server;
let mediaBase: string;
const served = new Map<string, { body: Buffer; type: string; length?: number }>();

beforeAll(async () => {
  // Pieces of at most 20 s, so the long file is recognised as several pieces in parallel.
  stack = await startJobStack([], { maxPieceMs: 20_000 });
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir();
  speech = await makeSpeech(`${PARAGRAPHS[0]} ${PARAGRAPHS[1]}`, dir.dir, 'two', { format: 'mp3' });
  const parts = await Promise.all([2, 3, 4, 5].map((i) => makeSpeech(PARAGRAPHS[i]!, dir.dir, `p${i}`)));
  longSpeech = await concatWithPauses(
    parts.map((p) => p.path),
    path.join(dir.dir, 'long.wav'),
    1.5,
  );
  longText = parts.map((p) => p.text).join(' ');

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

function expectGoodWords(t: { words: { start: number; end: number; confidence: number; text: string }[]; duration_seconds: number }) {
  expect(t.words.length).toBeGreaterThan(10);
  let last = 0;
  for (const w of t.words) {
    expect(w.start).toBeGreaterThanOrEqual(last - 1e-6);
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(t.duration_seconds + 0.05);
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    last = w.start;
  }
}

describe('AI transcription', () => {
  it('upload → complete → job → transcript with word timing, billed per started minute', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const uploadId = await uploadReady(stack.api, w, speech.path, 'audio/mpeg');
    const res = await submit(stack.api, w.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', language: 'en' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      source: { platform: 'upload', upload_id: uploadId },
      billing: { kind: 'ai_transcription', credits_reserved: 2 },
    });
    const done = await waitFinal(stack.api, w.apiKey, res.body.id, 25);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      billing: { kind: 'ai_transcription', credits_charged: 2, credits_reserved: 0 },
    });
    expect((await getBalance(stack.api.deps.db, w.workspaceId)).available).toBe(1998);

    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(t).toMatchObject({
      source_origin: 'speech_recognition',
      timing_granularity: 'word',
      language: 'en',
      recognition: { model: 'pocketsphinx-en-us', profile: 'standard', quality_status: 'validated_language' },
    });
    expect(t.duration_seconds).toBeGreaterThan(15);
    expectGoodWords(t);
    expect(wordErrorRate(speech.text, t.text)).toBeLessThan(WER_BOUND);

    const srt = await request(app()).get(`/v1/transcripts/${t.id}/export`).query({ format: 'srt' }).set(bearer(w.apiKey)).expect(200);
    expect(srt.text).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\r?\n/);
    const vtt = await request(app()).get(`/v1/transcripts/${t.id}/export`).query({ format: 'vtt' }).set(bearer(w.apiKey)).expect(200);
    expect(vtt.text.startsWith('WEBVTT')).toBe(true);
  });

  it('transcribes a direct https link', async () => {
    const res = await submit(stack.api, ws.apiKey, { source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe' });
    expect(res.status).toBe(202);
    expect(res.body.source.platform).toBe('direct');
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
    expect(done.body.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(ws.apiKey))).body;
    expect(wordErrorRate(speech.text, t.text)).toBeLessThan(WER_BOUND);
  });

  it('cuts long media into pieces recognised in parallel and stitches continuous timing; no cancel once audio went to the recognizer', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const uploadId = await uploadReady(stack.api, w, longSpeech, 'audio/wav');
    const res = await submit(stack.api, w.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe' });
    // Wait until the audio is with the recognizer, then try to cancel.
    for (let i = 0; i < 200; i++) {
      const j = (await request(app()).get(`/v1/jobs/${res.body.id}`).set(bearer(w.apiKey))).body;
      if (j.stage === 'wait_asr' || j.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancel = await request(app()).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(w.apiKey));
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('CANCELLATION_NOT_ALLOWED');

    const done = await waitFinal(stack.api, w.apiKey, res.body.id, 25);
    expect(done.body.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(w.apiKey))).body;
    expect(t.duration_seconds).toBeGreaterThan(40);
    expectGoodWords(t);
    // Words from the last paragraph sit late in the file: timing was moved by each piece's start.
    expect(t.words[t.words.length - 1].end).toBeGreaterThan(t.duration_seconds - 12);
    expect(wordErrorRate(longText, t.text)).toBeLessThan(WER_BOUND);
    const pieces = stack.origin.requests.length; // (no platform traffic for uploads)
    expect(pieces).toBe(0);
    const cost = Math.ceil(t.duration_seconds / 60) * 2;
    expect(done.body.billing.credits_charged).toBe(cost);
  }, 60000);

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
      const done = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
      expect(done.body).toMatchObject({ status: 'succeeded', billing: { kind: 'ai_transcription', credits_charged: 2 } });
      const download = stack.origin.requests.find((r) => r.path === '/watch');
      expect(download?.forwardedHost).toBe('www.youtube.com');
      expect(download?.query.get('v')).toBe('dsMFmonKDD4');
    } finally {
      stack.origin.setRoutes([]);
    }
  }, 60000);
});

describe('AI transcription errors', () => {
  it('LANGUAGE_UNSUPPORTED at submit for a language the recognizer cannot do', async () => {
    const res = await submit(stack.api, ws.apiKey, { source: { url: `${mediaBase}/talk.mp3` }, mode: 'transcribe', language: 'ja' });
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
    const done = await waitFinal(stack.api, w.apiKey, res.body.id, 25);
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
      [longSpeech, await makeSilence(path.join(dir.dir, 'pad.wav'), 15)],
      path.join(dir.dir, 'over-minute.wav'),
      1,
    );
    served.set('/long.wav', { body: fs.readFileSync(overMinute), type: 'audio/wav' });
    await failsWith({ source: { url: `${mediaBase}/long.wav` }, mode: 'transcribe' }, 'INSUFFICIENT_BALANCE', w);
    expect(await getBalance(stack.api.deps.db, w.workspaceId)).toMatchObject({ available: 3, reserved: 0 });
  });

  it('NO_SPEECH for silence, NO_AUDIO for a video without sound', async () => {
    served.set('/silence.wav', { body: fs.readFileSync(await makeSilence(path.join(dir.dir, 'silence.wav'), 8)), type: 'audio/wav' });
    await failsWith({ source: { url: `${mediaBase}/silence.wav` }, mode: 'transcribe' }, 'NO_SPEECH');
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
