import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { bearer, createWorkspace, testObjectStore, type TestWorkspace } from './support/harness';
import { startJobStack, type JobStack } from './support/job-stack';
import { audioDir, ffmpeg, makeSpeech, PARAGRAPHS } from './support/speech';
import { complete, reserveAndPut } from './support/uploads';

let stack: JobStack;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
let speechMp3: string;

beforeAll(async () => {
  stack = await startJobStack();
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir();
  speechMp3 = (await makeSpeech(PARAGRAPHS[0]!, dir.dir, 'p0', { format: 'mp3' })).path;
});
afterAll(async () => {
  await stack.close();
  await dir.cleanup();
});

const app = () => stack.api.app;

describe('POST /v1/uploads', () => {
  it.each([
    ['filename over 255', { filename: 'a'.repeat(256), content_type: 'audio/mpeg', bytes: 10 }, 'filename'],
    ['not a media type', { filename: 'a.txt', content_type: 'text/plain', bytes: 10 }, 'content_type'],
    ['over 250 MB', { filename: 'a.mp3', content_type: 'audio/mpeg', bytes: 262_144_001 }, 'bytes'],
    ['zero bytes', { filename: 'a.mp3', content_type: 'audio/mpeg', bytes: 0 }, 'bytes'],
    ['missing bytes', { filename: 'a.mp3', content_type: 'audio/mpeg' }, 'bytes'],
  ])('rejects %s', async (_n, body, detail) => {
    const res = await request(app()).post('/v1/uploads').set(bearer(ws.apiKey)).send(body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail } });
  });

  it('needs the uploads:write scope', async () => {
    const reader = await createWorkspace(stack.api.deps, { plan: 'pro', scopes: ['jobs:read'] });
    const res = await request(app())
      .post('/v1/uploads')
      .set(bearer(reader.apiKey))
      .send({ filename: 'a.mp3', content_type: 'audio/mpeg', bytes: 10 });
    expect(res.status).toBe(403);
  });

  it('reserves, takes the file and verifies it at completion', async () => {
    const size = fs.statSync(speechMp3).size;
    const { slot, put } = await reserveAndPut(stack.api, ws, speechMp3, 'audio/mpeg');
    expect(slot).toMatchObject({ status: 'pending', bytes: size, content_type: 'audio/mpeg', duration_ms: null });
    expect(Date.parse(slot.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(put.status).toBeLessThan(300);
    const done = await complete(stack.api, ws, slot.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: slot.id, status: 'ready', signed_upload_url: null, error: null });
    expect(done.body.duration_ms).toBeGreaterThan(5000);
    const again = await complete(stack.api, ws, slot.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { detail: 'status=ready' } });
  });

  it('refuses a PUT of another size or type at once', async () => {
    const body = fs.readFileSync(speechMp3);
    const wrongSize = await reserveAndPut(stack.api, ws, body, 'audio/mpeg', { declaredBytes: body.length + 10 });
    expect(wrongSize.put.status).toBeGreaterThanOrEqual(400);
    const slot = await request(app())
      .post('/v1/uploads')
      .set(bearer(ws.apiKey))
      .send({ filename: 'a.mp3', content_type: 'audio/mpeg', bytes: body.length });
    const url = new URL(slot.body.signed_upload_url);
    const wrongType = await request(app())
      .put(url.pathname + url.search)
      .set('content-type', 'audio/wav')
      .send(body);
    expect(wrongType.status).toBe(422);
    // Nothing was stored, so completion says so and the slot stays pending.
    const early = await complete(stack.api, ws, slot.body.id);
    expect(early.status).toBe(409);
    const row = await stack.api.deps.db.upload.findUniqueOrThrow({ where: { id: slot.body.id } });
    expect(row.status).toBe('pending');
  });

  it('fails a file that is not audio or video, and removes it', async () => {
    const fake = Buffer.from('this is not an mp3 file at all, just text '.repeat(20));
    const { slot } = await reserveAndPut(stack.api, ws, fake, 'audio/mpeg');
    const res = await complete(stack.api, ws, slot.id);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA');
    const row = await stack.api.deps.db.upload.findUniqueOrThrow({ where: { id: slot.id } });
    expect(row.status).toBe('failed');
    expect(await testObjectStore().stat(row.objectKey)).toBeNull();
    const job = await request(app())
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', `k-${slot.id}`)
      .send({ source: { upload_id: slot.id }, mode: 'transcribe' });
    expect(job.status).toBe(422);
    expect(job.body.error.details.detail).toBe('source.upload_id');
  });

  it('fails an unreadable file that looks like media (INVALID_MEDIA)', async () => {
    const garbage = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(4000, 0x5a)]);
    const { slot } = await reserveAndPut(stack.api, ws, garbage, 'audio/mpeg');
    const res = await complete(stack.api, ws, slot.id);
    expect(res.status).toBe(422);
    expect(['INVALID_MEDIA', 'UNSUPPORTED_MEDIA']).toContain(res.body.error.code);
  });

  it('fails a video without audio (NO_AUDIO) and media over two hours (DURATION_LIMIT_EXCEEDED)', async () => {
    const silentVideo = path.join(dir.dir, 'noaudio.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', silentVideo]);
    const v = await reserveAndPut(stack.api, ws, silentVideo, 'video/mp4', { filename: 'v.mp4' });
    const noAudio = await complete(stack.api, ws, v.slot.id);
    expect(noAudio.status).toBe(422);
    expect(noAudio.body.error.code).toBe('NO_AUDIO');

    const long = path.join(dir.dir, 'long.mp3');
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '7201', '-c:a', 'libmp3lame', '-b:a', '8k', long]);
    const l = await reserveAndPut(stack.api, ws, long, 'audio/mpeg');
    const tooLong = await complete(stack.api, ws, l.slot.id);
    expect(tooLong.status).toBe(413);
    expect(tooLong.body.error.code).toBe('DURATION_LIMIT_EXCEEDED');
  }, 60000);

  it("refuses an expired slot and another workspace's upload", async () => {
    const { slot } = await reserveAndPut(stack.api, ws, speechMp3, 'audio/mpeg');
    const stranger = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const theirs = await complete(stack.api, stranger, slot.id);
    expect(theirs.status).toBe(404);
    await stack.api.deps.db.upload.update({ where: { id: slot.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await complete(stack.api, ws, slot.id);
    expect(expired.status).toBe(409);
    expect(expired.body.error.details.detail).toBe('expires_at');
    expect((await stack.api.deps.db.upload.findUniqueOrThrow({ where: { id: slot.id } })).status).toBe('expired');
  });
});
