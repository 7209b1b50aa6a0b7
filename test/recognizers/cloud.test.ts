import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ServiceError } from '../../core/errors';
import { AssemblyAiFake, startAssemblyAiFake } from '../support/assemblyai-fake';
import { AssemblyAiRecognizer, type ProviderCallback } from '../../integrations/recognizers/cloud';
import { PARAGRAPHS, audioDir, makeSilence, makeSpeech, wordErrorRate } from '../support/speech';
import { caughtServiceError } from '../support/service-errors';

// The AssemblyAI client against the local fake of AssemblyAI's v2 API, which
// really recognises the audio (Whisper, python -m recognizer) and calls our webhook with the
// auth header. A small HTTP server stands in for our webhook endpoint and
// checks every call with verifyCallback, as the API route will.

const SECRET = 'whsec-test-0123456789abcdef';
let fake: AssemblyAiFake;
let client: AssemblyAiRecognizer;
let dir: string;
let cleanup: () => Promise<void>;
let speech: { path: string; text: string };

// Our webhook endpoint: answers 204 to a verified call, 401 otherwise, and hands verified calls to waiters.
let hook: Server;
let hookUrl: string;
const received: Array<{ headers: IncomingHttpHeaders; body: string; verified: ProviderCallback | null; error: string | null }> = [];
const waiters = new Map<string, (cb: ProviderCallback) => void>();
function callbackFor(id: string): Promise<ProviderCallback> {
  const done = received.find((r) => r.verified?.providerJobId === id);
  return done ? Promise.resolve(done.verified!) : new Promise((resolve) => waiters.set(id, resolve));
}

beforeAll(async () => {
  ({ dir, cleanup } = await audioDir('cloud-'));
  fake = await startAssemblyAiFake();
  client = new AssemblyAiRecognizer({ apiKey: fake.apiKey, baseUrl: fake.url, webhookAuthHeaderValue: SECRET, pollIntervalMs: 200 });
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const verified = client.verifyCallback(req.headers, body);
        received.push({ headers: req.headers, body, verified, error: null });
        waiters.get(verified.providerJobId)?.(verified);
        res.writeHead(204).end();
      } catch (err) {
        received.push({ headers: req.headers, body, verified: null, error: (err as ServiceError).code });
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/v1/provider-callbacks/assemblyai`;
  speech = await makeSpeech(PARAGRAPHS[1], dir, 'speech', { format: 'mp3' });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
  await cleanup?.();
});

test('submit → webhook with the secret → fetchResult: a real transcript in seconds', async () => {
  const id = await client.submit(speech.path, { language: 'en', webhookUrl: hookUrl });
  // The documented request shape reached the provider.
  expect(fake.created[fake.created.length - 1]).toEqual({
    audio_url: expect.stringMatching(new RegExp(`^${fake.url}/upload/`)),
    language_code: 'en',
    webhook_url: hookUrl,
    webhook_auth_header_name: 'X-Service-Provider-Secret',
    webhook_auth_header_value: '[redacted]',
  });
  expect(await client.fetchResult(id)).toBe('pending'); // recognition takes a while; nothing is ready yet

  expect(await callbackFor(id)).toEqual({ providerJobId: id, status: 'completed' });
  await fake.idle(); // the fake records our endpoint's answer after we have sent it
  const delivery = fake.webhookDeliveries.find((d) => d.body.transcript_id === id)!;
  expect(delivery.headers['X-Service-Provider-Secret']).toBe(SECRET);
  expect(delivery.responseStatus).toBe(204);

  const result = await client.fetchResult(id);
  if (result === 'pending') throw new Error('still pending after the completed webhook');
  expect(result.language).toBe('en');
  expect(wordErrorRate(speech.text, result.text)).toBeLessThan(0.1); // Whisper base on flite: about 3 % (test/media/split.test.ts)
  // Milliseconds became seconds: the last word ends inside the ~12 s recording.
  const last = result.words[result.words.length - 1];
  expect(last.end).toBeGreaterThan(5);
  expect(last.end).toBeLessThan(20);
  for (let i = 1; i < result.words.length; i++) expect(result.words[i].start).toBeGreaterThanOrEqual(result.words[i - 1].end);
  for (const w of result.words) expect(w.confidence).toBeGreaterThanOrEqual(0);
  expect(result.segments.length).toBeGreaterThan(0);
}, 90_000);

test('no language asked: language_detection, and the provider code comes back as BCP 47', async () => {
  const result = await client.recognize(speech.path);
  expect(fake.created[fake.created.length - 1]).toMatchObject({ language_detection: true });
  expect(fake.created[fake.created.length - 1]).not.toHaveProperty('language_code');
  expect(result.language).toBe('en-US'); // upstream `en_us`
}, 90_000);

describe('verifyCallback', () => {
  const body = JSON.stringify({ transcript_id: 'abc', status: 'completed' });

  test('accepts the right secret in any header case, with a Buffer, string or parsed body', () => {
    for (const b of [body, Buffer.from(body), JSON.parse(body)]) {
      expect(client.verifyCallback({ 'x-service-provider-secret': SECRET }, b)).toEqual({ providerJobId: 'abc', status: 'completed' });
    }
  });

  test.each([
    ['a wrong secret', { 'x-service-provider-secret': SECRET + 'x' }],
    ['a secret prefix', { 'x-service-provider-secret': SECRET.slice(0, 8) }],
    ['no header', {}],
    ['an empty header', { 'x-service-provider-secret': '' }],
  ])('rejects %s as UNAUTHENTICATED', (_, headers) => {
    expect(() => client.verifyCallback(headers, body)).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
  });

  test('a body of the wrong shape is INVALID_REQUEST', () => {
    const h = { 'x-service-provider-secret': SECRET };
    for (const b of ['not json', '{}', JSON.stringify({ transcript_id: 'abc', status: 'queued' })]) {
      expect(() => client.verifyCallback(h, b)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
    }
  });

  test('a webhook signed with another secret is refused by our endpoint', async () => {
    const other = new AssemblyAiRecognizer({ apiKey: fake.apiKey, baseUrl: fake.url, webhookAuthHeaderValue: 'someone-else' });
    const silence = await makeSilence(join(dir, 'short-silence.wav'), 1);
    const before = received.length;
    await other.submit(silence, { webhookUrl: hookUrl });
    await fake.idle();
    expect(received.slice(before).map((r) => r.error)).toEqual(['UNAUTHENTICATED']);
    expect(fake.webhookDeliveries[fake.webhookDeliveries.length - 1].responseStatus).toBe(401);
  }, 60_000);
});

describe('failures', () => {
  test('5xx on upload is PROVIDER_UNAVAILABLE (retryable); the retry goes through', async () => {
    fake.failNext(1, 503);
    const err = await caughtServiceError(client.submit(speech.path));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.detail).toContain('HTTP 503');
    const id = await client.submit(speech.path);
    expect(typeof id).toBe('string');
    await fake.idle();
  }, 60_000);

  test('429 on reading the transcript is PROVIDER_UNAVAILABLE', async () => {
    fake.failNext(1, 429);
    expect((await caughtServiceError(client.fetchResult('any'))).code).toBe('PROVIDER_UNAVAILABLE');
  });

  test('no answer at all (connection refused) is PROVIDER_UNAVAILABLE', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const down = new AssemblyAiRecognizer({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, webhookAuthHeaderValue: SECRET });
    const err = await caughtServiceError(down.submit(speech.path));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.detail).toContain('no answer');
  });

  test('a transcript that ends in status error is PROVIDER_REJECTED with the provider message', async () => {
    fake.rejectNext('Transcoding failed. File does not appear to contain audio.');
    const id = await client.submit(speech.path, { webhookUrl: hookUrl });
    expect(await callbackFor(id)).toEqual({ providerJobId: id, status: 'error' });
    const err = await caughtServiceError(client.fetchResult(id));
    expect(err.code).toBe('PROVIDER_REJECTED');
    expect(err.retryable).toBe(false);
    expect(err.detail).toContain('Transcoding failed');
  }, 60_000);

  test('a 4xx (wrong API key) is PROVIDER_REJECTED', async () => {
    const wrongKey = new AssemblyAiRecognizer({ apiKey: 'wrong', baseUrl: fake.url, webhookAuthHeaderValue: SECRET });
    const err = await caughtServiceError(wrongKey.submit(speech.path));
    expect(err.code).toBe('PROVIDER_REJECTED');
    expect(err.detail).toContain('HTTP 401');
  });

  test('silence: the provider completes with no words, the client reports NO_SPEECH', async () => {
    const silence = await makeSilence(join(dir, 'silence.wav'), 3);
    const id = await client.submit(silence, { webhookUrl: hookUrl });
    expect((await callbackFor(id)).status).toBe('completed');
    expect((await caughtServiceError(client.fetchResult(id))).code).toBe('NO_SPEECH');
  }, 60_000);

  test('an unsupported language is refused before anything is uploaded', async () => {
    const before = fake.requests.length;
    expect((await caughtServiceError(client.submit(speech.path, { language: 'zh-CN' }))).code).toBe('LANGUAGE_UNSUPPORTED');
    expect(fake.requests.length).toBe(before);
  });
});
