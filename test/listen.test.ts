import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { promisify } from 'node:util';
import request from 'supertest';
import WebSocket from 'ws';
import { createHttpServer } from '../api/http/server';
import { closeListenSession, openListenSession, settleStaleListenSessions } from '../domain/listen/sessions';
import { bearer, createWorkspace, startTestApi, type TestApi } from './support/harness';
import { evalClips, score } from './support/asr-eval';
import { oggOpusPackets } from './support/ogg';
import { opusPacketMs } from '../domain/listen/opus';
import { KEPT_AUDIO_CHUNK_BYTES, purgeExpiredKeptAudio } from '../domain/listen/kept-audio';

// GET /v1/listen end to end on the real stack: the API (a real HTTP server on loopback) authenticates, limits and
// bills the stream and relays it to the recognition worker's stream port (recognizer/stream_server.py), which
// runs Whisper on real speech and sends the segments back. The test stack's recognizer runs two streams at a time.

const run = promisify(execFile);
let api: TestApi;
let server: Server;
let wsBase: string;

beforeAll(async () => {
  if (!process.env.RECOGNIZER_STREAM_URL) throw new Error('RECOGNIZER_STREAM_URL is not set: run through npm test (stack/test-env.ts)');
  api = await startTestApi({ LISTEN_STREAMS_PER_WORKSPACE: '1' });
  server = createHttpServer(api.app, api.deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  wsBase = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await api.close();
});

/** A clip as the stream takes it: 16 kHz mono 16-bit PCM. */
async function pcmOf(file: string): Promise<Buffer> {
  const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '16000', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout as unknown as Buffer;
}

type Message = { type: string; [k: string]: any };

interface Stream {
  ws: WebSocket;
  messages: Message[];
  closed: Promise<{ code: number }>;
  next(type: string): Promise<Message>;
}

/**
 * Opens a stream, as a client should: again after a 503 (a recognizer slot frees once the stream that held it
 * has stopped decoding). Rejects with any other refusal's status and envelope.
 */
async function connect(query = '', headers: Record<string, string> = {}): Promise<Stream> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connectOnce(query, headers);
    } catch (err) {
      if ((err as { status?: number }).status !== 503 || attempt >= 60) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function connectOnce(query = '', headers: Record<string, string> = {}, base = wsBase): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base}/v1/listen${query}`, { headers });
    const messages: Message[] = [];
    const waiters: Array<{ type: string; resolve: (m: Message) => void }> = [];
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const m = JSON.parse(data.toString()) as Message;
      messages.push(m);
      for (const w of waiters.filter((w) => w.type === m.type)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    });
    const closed = new Promise<{ code: number }>((res) => ws.on('close', (code) => res({ code })));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject({ status: res.statusCode, headers: res.headers, body: JSON.parse(body) }));
    });
    ws.on('error', () => undefined);
    ws.on('open', () =>
      resolve({
        ws,
        messages,
        closed,
        next: (type) => {
          const seen = messages.find((m) => m.type === type);
          return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ type, resolve: res }));
        },
      }),
    );
  });
}

async function refusal(query = '', headers: Record<string, string> = {}): Promise<{ status: number; headers: any; body: any }> {
  try {
    const s = await connectOnce(query, headers);
    s.ws.close();
  } catch (err) {
    return err as { status: number; headers: any; body: any };
  }
  throw new Error('the stream was opened');
}

/** Sends `pcm` in 0.1 s messages, `pace` times faster than real time. */
async function stream(s: Stream, pcm: Buffer, pace: number): Promise<void> {
  const chunk = 3200;
  for (let at = 0; at < pcm.length; at += chunk) {
    s.ws.send(pcm.subarray(at, at + chunk));
    await new Promise((r) => setTimeout(r, 100 / pace));
  }
}

async function account(workspaceId: string) {
  return api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId } });
}

test('real speech streamed in real time: partials while it is spoken, finals that read as the clip, then the charge by the second', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const before = await account(ws.workspaceId);
  const clip = evalClips().find((c) => c.lang === 'en' && c.durationSec > 8 && c.durationSec < 20)!;
  const pcm = await pcmOf(clip.audio);
  const s = await connect('?language=en', bearer(ws.apiKey));
  const session = await s.next('session');
  expect(session).toMatchObject({ type: 'session', language: 'en', sample_rate: 16000 });
  // While the stream is open its credits are held, a minute ahead.
  expect((await account(ws.workspaceId)).reserved).toBe(before.reserved + 2);
  await stream(s, Buffer.concat([pcm, Buffer.alloc(32_000)]), 1);
  s.ws.send(JSON.stringify({ type: 'stop' }));
  const closed = await s.next('closed');
  expect((await s.closed).code).toBe(1000);

  const partials = s.messages.filter((m) => m.type === 'partial');
  const finals = s.messages.filter((m) => m.type === 'final');
  expect(partials.length).toBeGreaterThan(0);
  expect(finals.length).toBeGreaterThan(0);
  // Each utterance's partials come before its final, and finals are in time order.
  for (const f of finals) {
    const after = s.messages.slice(s.messages.indexOf(f));
    expect(after.filter((m) => m.type === 'partial' && m.seq === f.seq)).toEqual([]);
  }
  expect(finals.map((f) => f.start)).toEqual([...finals.map((f) => f.start)].sort((a, b) => a - b));
  expect(score('en', clip.reference, finals.map((f) => f.text).join(' ')).rate).toBeLessThanOrEqual(0.25);

  const seconds = pcm.length / 32000 + 1;
  expect(closed.audio_seconds).toBeCloseTo(seconds, 2);
  expect(closed.credits_charged).toBe(Math.ceil(seconds / 30));
  const after = await account(ws.workspaceId);
  expect(after.reserved).toBe(before.reserved);
  expect(before.periodCredits - after.periodCredits).toBe(closed.credits_charged);
  const row = await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } });
  expect(row).toMatchObject({ active: false, creditsCharged: closed.credits_charged });
}, 120_000);

test('Opus packets of real speech, one a message, sent as they are made: the same finals, billed by the duration the packets say', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const before = await account(ws.workspaceId);
  const clip = evalClips().find((c) => c.lang === 'en' && c.durationSec > 8 && c.durationSec < 20)!;
  // libopus at 20 ms frames, as WebCodecs' AudioEncoder makes them; a second of silence after the speech.
  const { stdout } = await run(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-i', clip.audio, '-af', 'apad=pad_dur=1', '-ac', '1', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg', '-'],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  const packets = oggOpusPackets(stdout as unknown as Buffer);
  const s = await connect('?language=en&encoding=opus', bearer(ws.apiKey));
  expect(await s.next('session')).toMatchObject({ encoding: 'opus', sample_rate: 48000 });
  s.ws.send(Buffer.alloc(0)); // an empty message carries nothing and does not end the audio
  for (const packet of packets) {
    s.ws.send(packet);
    await new Promise((r) => setTimeout(r, 20));
  }
  s.ws.send(JSON.stringify({ type: 'stop' }));
  const closed = await s.next('closed');
  expect((await s.closed).code).toBe(1000);
  const finals = s.messages.filter((m) => m.type === 'final');
  expect(score('en', clip.reference, finals.map((f) => f.text).join(' ')).rate).toBeLessThanOrEqual(0.25);
  const seconds = packets.reduce((sum, p) => sum + opusPacketMs(p)!, 0) / 1000;
  expect(closed.audio_seconds).toBeCloseTo(seconds, 2);
  expect(closed.credits_charged).toBe(Math.ceil(seconds / 30));
  expect(before.periodCredits - (await account(ws.workspaceId)).periodCredits).toBe(closed.credits_charged);
}, 120_000);

test('bytes that are not an Opus packet, or a message over 64 KiB, end a stream with INVALID_REQUEST naming what was wrong; a rate that is not the encoding’s is refused', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const rate = await refusal('?encoding=opus&sample_rate=16000', bearer(ws.apiKey));
  expect(rate.status).toBe(422);
  expect(rate.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'sample_rate' } });
  const s = await connect('?language=en&encoding=opus', bearer(ws.apiKey));
  await s.next('session');
  s.ws.send(Buffer.from([(1 << 3) | 3, 0])); // a code-3 packet of zero frames
  expect((await s.next('error')).error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'audio' } });
  expect(await s.next('closed')).toMatchObject({ audio_seconds: 0, credits_charged: 0 });
  expect((await s.closed).code).toBe(1000);

  // A message over 64 KiB is answered in the stream, naming the limit; the audio before it is charged.
  const big = await connect('?language=en', bearer(ws.apiKey));
  await big.next('session');
  big.ws.send(Buffer.alloc(32_000));
  big.ws.send(Buffer.alloc(64 * 1024 + 2));
  expect((await big.next('error')).error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'max_frame_bytes=65536' } });
  expect(await big.next('closed')).toMatchObject({ audio_seconds: 1, credits_charged: 1 });
  expect((await big.closed).code).toBe(1000);
}, 60_000);

/** A REST read of the stream's record or audio, as its workspace (or another) sees it. */
const getBinary = (path: string, apiKey: string) =>
  request(api.app)
    .get(path)
    .set(bearer(apiKey))
    .buffer(true)
    .parse((res, done) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => done(null, Buffer.concat(parts)));
    });

test('keep_audio=true keeps the audio as received, downloaded whole as WAV by its workspace only, until deleted', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const other = await createWorkspace(api.deps, { plan: 'starter' });
  const clip = evalClips().find((c) => c.lang === 'en' && c.durationSec > 8 && c.durationSec < 20)!;
  // 40 s: real speech, then silence, so the audio spans two stored chunks.
  const speech = await pcmOf(clip.audio);
  const pcm = Buffer.concat([speech, Buffer.alloc(40 * 32_000 - speech.length)]);
  expect(pcm.length).toBeGreaterThan(KEPT_AUDIO_CHUNK_BYTES);
  const s = await connect('?language=en&keep_audio=true', bearer(ws.apiKey));
  const session = await s.next('session');
  expect(session.keep_audio).toBe(true);
  await stream(s, pcm.subarray(0, 32_000), 50);
  const running = await request(api.app).get(`/v1/listen/sessions/${session.id}/audio`).set(bearer(ws.apiKey));
  expect(running.status).toBe(409);
  expect(running.body.error).toMatchObject({ code: 'CONFLICT', details: { detail: 'status' } });
  await stream(s, pcm.subarray(32_000), 50);
  s.ws.send(JSON.stringify({ type: 'stop' }));
  expect(await s.next('closed')).toMatchObject({ audio_seconds: 40, credits_charged: 2 });

  const record = await request(api.app).get(`/v1/listen/sessions/${session.id}`).set(bearer(ws.apiKey)).expect(200);
  expect(record.body).toMatchObject({
    id: session.id,
    status: 'ended',
    encoding: 'pcm_s16le',
    audio_seconds: 40,
    credits_charged: 2,
    audio: { content_type: 'audio/wav', bytes: pcm.length, url: `/v1/listen/sessions/${session.id}/audio` },
  });
  const file = await getBinary(`/v1/listen/sessions/${session.id}/audio`, ws.apiKey);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toMatch(/^audio\/wav/);
  expect(file.headers['content-disposition']).toMatch(/attachment; filename="stream-[0-9a-f]{8}\.wav"/);
  const wav = file.body as Buffer;
  expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
  expect(wav.readUInt32LE(24)).toBe(16_000);
  expect(wav.readUInt32LE(40)).toBe(pcm.length);
  expect(wav.subarray(44).equals(pcm)).toBe(true);

  // Another workspace sees neither the stream nor its audio.
  expect((await request(api.app).get(`/v1/listen/sessions/${session.id}`).set(bearer(other.apiKey))).status).toBe(404);
  expect((await getBinary(`/v1/listen/sessions/${session.id}/audio`, other.apiKey)).status).toBe(404);
  expect((await request(api.app).delete(`/v1/listen/sessions/${session.id}/audio`).set(bearer(other.apiKey))).status).toBe(404);

  const row = await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } });
  expect(row.audioChunks).toBe(2);
  const keys = [0, 1].map((n) => `listen-audio/${ws.workspaceId}/${session.id}/${String(n).padStart(6, '0')}`);
  for (const key of keys) expect(await api.deps.objectStore.stat(key)).not.toBeNull();
  await request(api.app).delete(`/v1/listen/sessions/${session.id}/audio`).set(bearer(ws.apiKey)).expect(204);
  await request(api.app).delete(`/v1/listen/sessions/${session.id}/audio`).set(bearer(ws.apiKey)).expect(204);
  const gone = await request(api.app).get(`/v1/listen/sessions/${session.id}/audio`).set(bearer(ws.apiKey));
  expect(gone.status).toBe(404);
  expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', details: { detail: 'audio' } });
  expect((await request(api.app).get(`/v1/listen/sessions/${session.id}`).set(bearer(ws.apiKey))).body).toMatchObject({
    audio: null,
    credits_charged: 2,
  });
  for (const key of keys) expect(await api.deps.objectStore.stat(key)).toBeNull();
}, 120_000);

test('kept Opus audio downloads as Ogg Opus holding the packets sent, and leaves the store when its retention ends; by default nothing is kept', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const clip = evalClips().find((c) => c.lang === 'en' && c.durationSec > 8 && c.durationSec < 20)!;
  const { stdout } = await run(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-i', clip.audio, '-ac', '1', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg', '-'],
    {
      encoding: 'buffer',
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const packets = oggOpusPackets(stdout as unknown as Buffer);
  const s = await connect('?language=en&encoding=opus&keep_audio=true', bearer(ws.apiKey));
  const session = await s.next('session');
  for (const packet of packets) s.ws.send(packet);
  s.ws.send(JSON.stringify({ type: 'stop' }));
  await s.next('closed');
  const file = await getBinary(`/v1/listen/sessions/${session.id}/audio`, ws.apiKey);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toMatch(/^audio\/ogg/);
  const ogg = file.body as Buffer;
  // The packets come back as sent, and ffmpeg reads the file for as long as they play.
  expect(oggOpusPackets(ogg).map((p) => p.toString('hex'))).toEqual(packets.map((p) => p.toString('hex')));
  const decoded = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile(
      'ffmpeg',
      ['-nostdin', '-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '48000', 'pipe:1'],
      {
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, out, errors) => (err || errors.length ? reject(err ?? new Error(errors.toString())) : resolve(out)),
    );
    child.stdin!.end(ogg);
  });
  const seconds = packets.reduce((sum, p) => sum + opusPacketMs(p)!, 0) / 1000;
  expect(decoded.length / 96_000).toBeCloseTo(seconds, 1);

  await api.deps.db.listenSession.update({ where: { id: session.id }, data: { audioExpiresAt: new Date(Date.now() - 1000) } });
  expect(await purgeExpiredKeptAudio(api.deps.db, api.deps.objectStore)).toBeGreaterThanOrEqual(1);
  expect(await api.deps.objectStore.stat(`listen-audio/${ws.workspaceId}/${session.id}/000000`)).toBeNull();
  expect((await request(api.app).get(`/v1/listen/sessions/${session.id}`).set(bearer(ws.apiKey))).body.audio).toBeNull();
  expect((await getBinary(`/v1/listen/sessions/${session.id}/audio`, ws.apiKey)).status).toBe(404);

  // Without keep_audio nothing is written.
  const plain = await connect('?language=en', bearer(ws.apiKey));
  const plainSession = await plain.next('session');
  expect(plainSession.keep_audio).toBe(false);
  await stream(plain, Buffer.alloc(32_000), 50);
  plain.ws.send(JSON.stringify({ type: 'stop' }));
  await plain.next('closed');
  expect((await request(api.app).get(`/v1/listen/sessions/${plainSession.id}`).set(bearer(ws.apiKey))).body).toMatchObject({
    audio: null,
    audio_seconds: 1,
  });
  expect(await api.deps.objectStore.stat(`listen-audio/${ws.workspaceId}/${plainSession.id}/000000`)).toBeNull();
}, 120_000);

test('refusals come before the upgrade, in the error envelope: no credential, a bad token, the trial plan, a bad query', async () => {
  const none = await refusal();
  expect(none.status).toBe(401);
  expect(none.body.error).toMatchObject({ code: 'UNAUTHENTICATED', details: { detail: 'Authorization' } });
  expect(none.body.request_id).toBe(none.headers['x-request-id']);

  const forged = await refusal('?token=lt_e30.AAAA');
  expect(forged.status).toBe(401);
  expect(forged.body.error.details.detail).toBe('token');

  const trial = await createWorkspace(api.deps);
  const plan = await refusal('', bearer(trial.apiKey));
  expect(plan.status).toBe(402);
  expect(plan.body.error.code).toBe('PLAN_REQUIRED');

  const paid = await createWorkspace(api.deps, { plan: 'starter' });
  const rate = await refusal('?sample_rate=8000', bearer(paid.apiKey));
  expect(rate.status).toBe(422);
  expect(rate.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: 'sample_rate' } });
  const lang = await refusal('?language=tlh', bearer(paid.apiKey));
  expect(lang.status).toBe(422);
  expect(lang.body.error).toMatchObject({ code: 'LANGUAGE_UNSUPPORTED', details: { detail: 'language' } });
  const readOnly = await createWorkspace(api.deps, { plan: 'starter', scopes: ['jobs:read'] });
  expect((await refusal('', bearer(readOnly.apiKey))).status).toBe(403);
  // Nothing was held by any of them.
  expect((await account(paid.workspaceId)).reserved).toBe(0);
});

test("a plain GET runs the upgrade's checks without holding anything: the same refusal, or 426 when a stream would open", async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const res = await request(api.app).get('/v1/listen').set(bearer(ws.apiKey)).expect(426);
  expect(res.body.error).toMatchObject({ code: 'UPGRADE_REQUIRED', details: { detail: 'Upgrade' } });
  expect((await request(api.app).get('/v1/listen').expect(401)).body.error.code).toBe('UNAUTHENTICATED');
  const trial = await createWorkspace(api.deps);
  expect((await request(api.app).get('/v1/listen').set(bearer(trial.apiKey)).expect(402)).body.error.code).toBe('PLAN_REQUIRED');
  expect((await request(api.app).get('/v1/listen?language=tlh').set(bearer(ws.apiKey)).expect(422)).body.error.code).toBe(
    'LANGUAGE_UNSUPPORTED',
  );
  // The workspace's one stream is running: the GET says what the upgrade would.
  const open = await connect('', bearer(ws.apiKey));
  await open.next('session');
  const busy = await request(api.app).get('/v1/listen').set(bearer(ws.apiKey)).expect(429);
  expect(busy.body.error.details.detail).toBe('streams_per_workspace=1');
  open.ws.send(JSON.stringify({ type: 'stop' }));
  await open.closed;
  // Too few credits to hold the first minute.
  const poor = await createWorkspace(api.deps, { plan: 'starter' });
  await api.deps.db.creditAccount.update({ where: { workspaceId: poor.workspaceId }, data: { periodCredits: 1, prepaidCredits: 0 } });
  const short = await request(api.app).get('/v1/listen').set(bearer(poor.apiKey)).expect(402);
  expect(short.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { detail: 'credits_remaining' } });
  expect((await refusal('', bearer(poor.apiKey))).body.error.code).toBe('INSUFFICIENT_BALANCE');
  // A browser token is checked and not used up.
  const minted = await request(api.app).post('/v1/listen/tokens').set(bearer(ws.apiKey)).expect(201);
  await request(api.app).get('/v1/listen').query({ token: minted.body.token }).expect(426);
  const s = await connect(`?token=${encodeURIComponent(minted.body.token)}`);
  await s.next('session');
  s.ws.close();
  await s.closed;
}, 60_000);

test('a browser token opens one stream of its workspace, once', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const minted = await request(api.app).post('/v1/listen/tokens').set(bearer(ws.apiKey)).expect(201);
  expect(minted.body.token).toMatch(/^lt_/);
  expect(Date.parse(minted.body.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
  const q = `?token=${encodeURIComponent(minted.body.token)}`;
  const s = await connect(q);
  const session = await s.next('session');
  s.ws.send(JSON.stringify({ type: 'stop' }));
  await s.next('closed');
  await s.closed;
  expect((await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } })).workspaceId).toBe(ws.workspaceId);
  const again = await refusal(q);
  expect(again.status).toBe(401);
  expect(again.body.error.details.detail).toBe('token');
  // Altered by one character, it is refused too.
  const altered = minted.body.token.slice(0, -1) + (minted.body.token.endsWith('A') ? 'B' : 'A');
  expect((await refusal(`?token=${encodeURIComponent(altered)}`)).status).toBe(401);
});

test('the per-workspace limit holds across the stream’s life; a closed stream frees its slot', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const first = await connect('', bearer(ws.apiKey));
  await first.next('session');
  const second = await refusal('', bearer(ws.apiKey));
  expect(second.status).toBe(429);
  expect(second.body.error.details.detail).toBe('streams_per_workspace=1');
  expect(second.headers['retry-after']).toBeDefined();
  first.ws.send(JSON.stringify({ type: 'stop' }));
  await first.next('closed');
  await first.closed;
  const third = await connect('', bearer(ws.apiKey));
  await third.next('session');
  third.ws.close();
  await third.closed;
});

test('a client that goes away mid-stream is charged for the audio it sent, and nothing stays held', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const before = await account(ws.workspaceId);
  const s = await connect('', bearer(ws.apiKey));
  const session = await s.next('session');
  // 45 s of silence, fast: more than one credit's worth. Then the socket closes without a stop.
  await stream(s, Buffer.alloc(45 * 32000), 50);
  s.ws.close();
  // The relay settles on the socket's close.
  let row = await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } });
  for (let i = 0; i < 100 && row.active; i++) {
    await new Promise((r) => setTimeout(r, 100));
    row = await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } });
  }
  expect(row).toMatchObject({ active: false, audioMs: 45_000, creditsCharged: 2 });
  const after = await account(ws.workspaceId);
  expect(after.reserved).toBe(before.reserved);
  expect(before.periodCredits - after.periodCredits).toBe(2);
}, 60_000);

test('the hold is raised a minute ahead as the audio grows; a stream that outruns the credits is told so, ends, and pays for what it sent', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  // 4 credits pay for 120 s: 2 held at the start, raised to 4 at 30 s, and the raise due at 90 s cannot be held.
  await api.deps.db.creditAccount.update({ where: { workspaceId: ws.workspaceId }, data: { periodCredits: 4, prepaidCredits: 0 } });
  const s = await connect('', bearer(ws.apiKey));
  await s.next('session');
  await stream(s, Buffer.alloc(150 * 32000), 200);
  const error = await s.next('error');
  expect(error.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { detail: 'credits_remaining' } });
  const closed = await s.next('closed');
  expect(closed.audio_seconds).toBeGreaterThan(90);
  expect(closed.audio_seconds).toBeLessThanOrEqual(120);
  expect(closed.credits_charged).toBe(4);
  expect(await account(ws.workspaceId)).toMatchObject({ reserved: 0, periodCredits: 0 });
}, 60_000);

test('every recognizer slot busy: 503 PROVIDER_UNAVAILABLE before the upgrade, and the hold is released', async () => {
  // The test stack's recognizer has two stream slots.
  const holders = await Promise.all([0, 1].map(() => createWorkspace(api.deps, { plan: 'starter' })));
  const b = await createWorkspace(api.deps, { plan: 'starter' });
  const open: Stream[] = [];
  for (const h of holders) {
    const s = await connect('', bearer(h.apiKey));
    await s.next('session');
    open.push(s);
  }
  const busy = await refusal('', bearer(b.apiKey));
  expect(busy.status).toBe(503);
  expect(busy.body.error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  expect(await account(b.workspaceId)).toMatchObject({ reserved: 0 });
  const rows = await api.deps.db.listenSession.findMany({ where: { workspaceId: b.workspaceId } });
  expect(rows.map((r) => [r.active, r.creditsCharged])).toEqual([[false, 0]]);
  for (const s of open) {
    s.ws.send(JSON.stringify({ type: 'stop' }));
    await s.closed;
  }
});

test('a recognizer that fails mid-stream: one error, then closed with the charge for the audio sent, close code 1011', async () => {
  // A stand-in for the recognizer's stream port that takes the stream, reads some audio, then fails the way
  // recognizer/stream_server.py does on a decoder fault (its own test shows that side on the real engine).
  const sockets: Socket[] = [];
  const faulty = createTcpServer((socket) => {
    sockets.push(socket);
    let received = 0;
    socket.once('data', () => {
      socket.write('{"type":"ready"}\n');
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 40 * 32000)
          socket.end(`${JSON.stringify({ type: 'error', code: 'INTERNAL_ERROR', message: "The stream's recognition failed." })}\n`);
      });
    });
  });
  await new Promise<void>((resolve) => faulty.listen(0, '127.0.0.1', resolve));
  const other = await startTestApi({ RECOGNIZER_STREAM_URL: `tcp://127.0.0.1:${(faulty.address() as AddressInfo).port}` });
  const otherServer = createHttpServer(other.app, other.deps);
  await new Promise<void>((resolve) => otherServer.listen(0, '127.0.0.1', resolve));
  try {
    const ws = await createWorkspace(other.deps, { plan: 'starter' });
    const before = await account(ws.workspaceId);
    const s = await connectOnce('', bearer(ws.apiKey), `ws://127.0.0.1:${(otherServer.address() as AddressInfo).port}`);
    await s.next('session');
    await stream(s, Buffer.alloc(45 * 32000), 50).catch(() => undefined);
    expect(await s.closed).toEqual({ code: 1011 });
    const errors = s.messages.filter((m) => m.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(errors[0].error.message).toContain('recognition failed');
    const closed = s.messages.find((m) => m.type === 'closed')!;
    expect(closed.audio_seconds).toBeGreaterThanOrEqual(40);
    expect(closed.credits_charged).toBe(Math.ceil(closed.audio_seconds / 30));
    const after = await account(ws.workspaceId);
    expect(after.reserved).toBe(before.reserved);
    expect(before.periodCredits - after.periodCredits).toBe(closed.credits_charged);
  } finally {
    otherServer.closeAllConnections();
    await new Promise((resolve) => otherServer.close(resolve));
    await other.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => faulty.close(resolve));
  }
}, 60_000);

test('a stream whose API instance died is settled from its last report and frees its slot', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'starter' });
  const before = await account(ws.workspaceId);
  const session = await openListenSession(api.deps.db, { workspaceId: ws.workspaceId, plan: 'starter', limit: 1, language: null });
  await api.deps.db.listenSession.update({ where: { id: session.id }, data: { audioMs: 31_000, seenAt: new Date(Date.now() - 120_000) } });
  expect(await settleStaleListenSessions(api.deps.db, ws.workspaceId)).toBe(1);
  const row = await api.deps.db.listenSession.findUniqueOrThrow({ where: { id: session.id } });
  expect(row).toMatchObject({ active: false, creditsCharged: 2 });
  expect(before.periodCredits - (await account(ws.workspaceId)).periodCredits).toBe(2);
  // Settling again charges nothing more.
  expect(await closeListenSession(api.deps.db, session.id, 90_000)).toEqual({ credits: 2, audioMs: 31_000 });
  expect((await account(ws.workspaceId)).reserved).toBe(0);
});

test('the AsyncAPI document describes the socket’s messages from the same schemas', async () => {
  const doc = (await request(api.app).get('/asyncapi.json').expect(200)).body;
  expect(doc.asyncapi).toBe('3.0.0');
  expect(doc.channels.listen.address).toBe('/v1/listen');
  expect(Object.keys(doc.components.messages).sort()).toEqual(['audio', 'closed', 'error', 'final', 'partial', 'session', 'stop']);
  expect(doc.components.schemas.ListenFinalMessage.properties).toHaveProperty('seq');
  const openapi = (await request(api.app).get('/openapi.json').expect(200)).body;
  expect(openapi.paths['/v1/listen'].get.responses).toHaveProperty('101');
  expect(openapi.paths['/v1/listen/tokens'].post).toBeDefined();
});
