import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startAssemblyAiFake, type AssemblyAiFake } from './support/assemblyai-fake';
import { AssemblyAiRecognizer } from '../integrations/recognizers/cloud';
import { bearer, createWorkspace, type TestWorkspace } from './support/harness';
import { startJobStack, submit, waitFinal, type JobStack } from './support/job-stack';
import { audioDir, makeSpeech, PARAGRAPHS, wordErrorRate } from './support/speech';
import { uploadReady } from './support/uploads';

// The cloud recognizer path against a local fake that follows AssemblyAI's v2
// API (upload, transcript, webhook with our secret header, GET transcript):
// the job waits in awaiting_provider for the callback, which reaches the
// workflow through the ingress endpoint as a signal. Polling for a lost
// callback (once a minute, giving up after three hours) is asserted in
// workflow time by test/workflows/job.test.ts.

const SECRET = 'provider-callback-secret-0123456789';
let fake: AssemblyAiFake;
let stack: JobStack;
let server: Server;
let ws: TestWorkspace;
let dir: { dir: string; cleanup: () => Promise<void> };
let speech: { path: string; text: string };
let cloud: AssemblyAiRecognizer;

beforeAll(async () => {
  fake = await startAssemblyAiFake({ apiKey: 'test-assemblyai-key' });
  // The API listens for real: the provider calls back over HTTP.
  let handler: (req: never, res: never) => void = () => undefined;
  server = createServer((req, res) => handler(req as never, res as never));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingress/asr/assemblyai`;
  cloud = new AssemblyAiRecognizer({
    apiKey: 'test-assemblyai-key',
    baseUrl: fake.url,
    webhookAuthHeaderValue: SECRET,
    pollIntervalMs: 200,
  });
  stack = await startJobStack([], { cloud, callbackUrl });
  stack.api.deps.cloudRecognizer = cloud;
  stack.api.deps.recognizer = cloud;
  handler = stack.api.app as never;
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
  dir = await audioDir();
  speech = await makeSpeech(PARAGRAPHS[1]!, dir.dir, 'cloud', { format: 'mp3' });
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await stack.close();
  await fake.close();
  await dir.cleanup();
});

const app = () => stack.api.app;

async function waitForStatus(w: TestWorkspace, jobId: string, status: string) {
  for (let i = 0; i < 400; i++) {
    const j = (await request(app()).get(`/v1/jobs/${jobId}`).set(bearer(w.apiKey))).body;
    if (j.status === status) return j;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job never reached ${status}`);
}

describe('cloud recognition provider', () => {
  it('submits the audio, waits in awaiting_provider, and finishes on the secret-verified callback', async () => {
    const uploadId = await uploadReady(stack.api, ws, speech.path, 'audio/mpeg');
    const res = await submit(stack.api, ws.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe', language: 'en' });
    const waiting = await waitForStatus(ws, res.body.id, 'awaiting_provider').catch(() => null);
    // The fake may finish before a poll sees the state; the job row keeps the provider id either way.
    if (waiting) expect(waiting.stage).toBe('wait_asr');
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
    expect(done.body).toMatchObject({ status: 'succeeded', billing: { kind: 'ai_transcription', credits_charged: 2 } });
    const job = await stack.api.deps.db.job.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(job.providerJobId).toBeTruthy();
    // The callback arrived with our secret and was accepted (the poll interval is a minute, so it was the callback).
    expect(fake.webhookDeliveries.some((w) => w.body.transcript_id === job.providerJobId && w.responseStatus === 200)).toBe(true);
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(ws.apiKey))).body;
    expect(t.recognition).toMatchObject({ model: 'assemblyai/default', profile: 'standard', quality_status: 'provider_supported' });
    expect(t.words.length).toBeGreaterThan(10);
    expect(wordErrorRate(speech.text, t.text)).toBeLessThan(0.35);
    // Cancelling is refused once the audio went to the provider.
    const cancel = await request(app()).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(ws.apiKey));
    expect(cancel.status).toBe(409);
  });

  it('sends speaker labels and the vocabulary as AssemblyAI names them, and takes its speakers', async () => {
    const uploadId = await uploadReady(stack.api, ws, speech.path, 'audio/mpeg');
    const res = await submit(stack.api, ws.apiKey, {
      source: { upload_id: uploadId },
      mode: 'transcribe',
      language: 'en',
      speaker_labels: true,
      speakers_expected: 1,
      vocabulary: ['Kubernetes'],
    });
    const done = await waitFinal(stack.api, ws.apiKey, res.body.id, 25);
    expect(done.body.status).toBe('succeeded');
    expect(fake.created.at(-1)).toMatchObject({ speaker_labels: true, speakers_expected: 1, word_boost: ['Kubernetes'] });
    const t = (await request(app()).get(`/v1/transcripts/${done.body.result_id}`).set(bearer(ws.apiKey))).body;
    expect(t.speakers).toEqual([{ id: 'A', words: t.words.length, seconds: expect.any(Number) }]);
    expect(t.words.every((w: { speaker: string }) => w.speaker === 'A')).toBe(true);
  });

  it('refuses a callback without the secret', async () => {
    const res = await request(app())
      .post('/ingress/asr/assemblyai')
      .set('X-Service-Provider-Secret', 'wrong')
      .send({ transcript_id: 'x', status: 'completed' });
    expect(res.status).toBe(401);
    const none = await request(app()).post('/ingress/asr/assemblyai').send({ transcript_id: 'x', status: 'completed' });
    expect(none.status).toBe(401);
  });

  it('retries PROVIDER_UNAVAILABLE automatically (once, after 5 s) and fails PROVIDER_REJECTED at once', async () => {
    const uploadId = await uploadReady(stack.api, ws, speech.path, 'audio/mpeg');
    const uploadsBefore = fake.requests.filter((r) => r === 'POST /v2/upload').length;
    fake.failNext(1, 503);
    const ok = await submit(stack.api, ws.apiKey, { source: { upload_id: uploadId }, mode: 'transcribe' });
    const done = await waitFinal(stack.api, ws.apiKey, ok.body.id, 25);
    expect(done.body.status).toBe('succeeded');
    // The audio upload answered 503 the first time; the activity's retry sent it again.
    expect(fake.requests.filter((r) => r === 'POST /v2/upload').length - uploadsBefore).toBe(2);

    fake.rejectNext();
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const up2 = await uploadReady(stack.api, w, speech.path, 'audio/mpeg');
    const bad = await submit(stack.api, w.apiKey, { source: { upload_id: up2 }, mode: 'transcribe' });
    const failed = await waitFinal(stack.api, w.apiKey, bad.body.id, 25);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toMatchObject({ code: 'PROVIDER_REJECTED', retryable: false });
    expect(failed.body.billing).toMatchObject({ credits_charged: 0, credits_reserved: 0 });
  });

  it('a callback that arrives before the service stored the transcript id still reaches the job (no wait for the 60 s poll)', async () => {
    fake.rejectNext(undefined, { callbackFirst: true });
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const up = await uploadReady(stack.api, w, speech.path, 'audio/mpeg');
    const res = await submit(stack.api, w.apiKey, { source: { upload_id: up }, mode: 'transcribe' });
    const t0 = Date.now();
    const failed = await waitFinal(stack.api, w.apiKey, res.body.id, 25);
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_REJECTED' } });
    expect(Date.now() - t0).toBeLessThan(25_000); // the poll would have taken 60 s
    await fake.idle();
    expect(fake.webhookDeliveries.at(-1)!.responseStatus).toBe(200);
  });
});
