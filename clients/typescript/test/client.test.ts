// The TypeScript client's own tests (node:test, run with `tsx --test`).
//
// The live ones run against a running service named by the environment (test/clients.test.ts starts the
// test stack and sets it): TRANSCRIPT_API_URL, TRANSCRIPT_API_KEY, TRANSCRIPT_TEST_VIDEO_URL (a video with
// captions), TRANSCRIPT_TEST_AUDIO (a short speech file), TRANSCRIPT_TEST_WEBHOOK (a JSON file holding a real
// delivery: its raw body, headers and the endpoint's secret), TRANSCRIPT_TEST_SLOW_AUDIO (speech no job has
// transcribed yet, long enough that it takes seconds). The fetch ones answer from a function, to pin down retries without a server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { main } from '../src/cli';
import {
  TranscriptApiError,
  TranscriptClient,
  TranscriptTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
  type Job,
} from '../src/index';

const env = process.env;
const live = Boolean(env.TRANSCRIPT_API_URL && env.TRANSCRIPT_API_KEY);

/** The longest word of a text: one its transcript surely says. */
const longestWord = (text: string) =>
  text
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length >= 5)
    .sort((a, b) => b.length - a.length)[0]!;

describe('against the live service', { skip: !live && 'needs TRANSCRIPT_API_URL and TRANSCRIPT_API_KEY' }, () => {
  const client = new TranscriptClient();
  const video = env.TRANSCRIPT_TEST_VIDEO_URL!;

  it('runs a caption job end to end', async () => {
    const statuses: string[] = [];
    const job = await client.jobs.createAndWait(
      { source: { url: video }, mode: 'captions_only' },
      { timeoutMs: 60_000, onUpdate: (j) => statuses.push(j.status) },
    );
    assert.equal(job.status, 'succeeded');
    assert.equal(statuses.at(-1), 'succeeded');
    assert.match(await client.transcripts.export(job.result_id!, 'srt'), /^1\r?\n00:00:\d\d,\d{3} --> /);
    const transcript = await client.transcripts.get(job.result_id!);
    assert.ok(transcript.segments.length > 5);
    // Its words are findable: the longest word of its text, found in this transcript, with a link to the second.
    const word = longestWord(transcript.text);
    const found = await client.transcripts.search({ q: word, limit: 50 });
    assert.ok(found.moments.some((m) => m.transcript_id === job.result_id && m.text.toLowerCase().includes(word.toLowerCase())));
    assert.ok(found.moments.every((m) => m.link === null || /[?&#]t=\d+$/.test(m.link)));
  });

  it('makes one job of one Idempotency-Key', async () => {
    const key = randomUUID();
    const body = { source: { url: video }, mode: 'captions_only' as const, metadata: { run: key } };
    const first = await client.jobs.create(body, { idempotencyKey: key });
    const again = await client.jobs.create(body, { idempotencyKey: key });
    assert.equal(again.id, first.id);
  });

  it('iterates every job across pages', async () => {
    for (let i = 0; i < 3; i++) await client.jobs.create({ source: { url: video }, mode: 'captions_only' });
    const ids: string[] = [];
    for await (const job of client.jobs.iterate({ limit: 1 })) ids.push(job.id);
    assert.ok(ids.length >= 3);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(
      ids.slice(0, 5),
      (await client.jobs.list({ limit: 5 })).jobs.map((j) => j.id),
    );
  });

  it('streams speech in real time with listen(): partials, finals, then the charge', async () => {
    // The test audio is the recognizer's WAV: a 44-byte header, then 16 kHz mono 16-bit PCM.
    const pcm = fs.readFileSync(env.TRANSCRIPT_TEST_AUDIO!).subarray(44);
    const stream = await client.listen({ language: 'en' });
    assert.equal(stream.session.language, 'en');
    const finals: string[] = [];
    const reading = (async () => {
      for await (const m of stream) if (m.type === 'final') finals.push(m.text);
    })();
    // Faster than real time (a file, not a microphone): the stream still hears it utterance by utterance.
    for (let at = 0; at < pcm.length; at += 3200) {
      stream.send(pcm.subarray(at, at + 3200));
      await new Promise((r) => setTimeout(r, 20));
    }
    stream.stop();
    const closed = await stream.closed;
    await reading;
    assert.match(finals.join(' ').toLowerCase(), /country/);
    assert.equal(closed.audio_seconds, pcm.length / 32000);
    assert.equal(closed.credits_charged, Math.ceil(closed.audio_seconds / 30));
  });

  it('opens an Opus stream when asked: the session says so, and an Opus packet is taken', async () => {
    const stream = await client.listen({ language: 'en', encoding: 'opus', keepAudio: true });
    assert.equal(stream.session.encoding, 'opus');
    assert.equal(stream.session.keep_audio, true);
    assert.equal(stream.session.sample_rate, 48000);
    stream.send(new Uint8Array([0xf8, 0xff, 0xfe])); // one 20 ms CELT frame of silence
    stream.stop();
    const closed = await stream.closed;
    assert.equal(closed.audio_seconds, 0.02);
    assert.equal(closed.credits_charged, 1);
  });

  it("a refused stream throws the service's reason", async () => {
    await assert.rejects(client.listen({ language: 'tlh' }), (err: unknown) => {
      assert.ok(err instanceof TranscriptApiError);
      assert.equal(err.code, 'LANGUAGE_UNSUPPORTED');
      return true;
    });
  });

  it('uploads a file and transcribes it', async () => {
    const upload = await client.uploads.uploadFile(env.TRANSCRIPT_TEST_AUDIO!);
    assert.equal(upload.status, 'ready');
    assert.ok((upload.duration_ms ?? 0) > 1000);
    const created = await client.jobs.create({ source: { upload_id: upload.id }, mode: 'transcribe', language: 'en' });
    // The growing transcript, read as it is published, ends with the job.
    const segments = [];
    const stream = client.jobs.stream(created.id, { timeoutMs: 120_000 });
    let next = await stream.next();
    for (; !next.done; next = await stream.next()) segments.push(next.value);
    const job = next.value;
    assert.equal(job.status, 'succeeded', JSON.stringify(job.error));
    const transcript = await client.transcripts.get(job.result_id!);
    assert.ok((transcript.words ?? []).length > 5);
    assert.deepEqual(
      segments.map((s) => s.seq),
      segments.map((_, i) => i + 1),
    );
    assert.deepEqual(
      segments.map((s) => s.text),
      transcript.segments.map((s) => s.text),
    );
  });

  it('runs a batch', async () => {
    const batch = await client.batches.create({
      items: [
        { source: { url: video }, mode: 'captions_only' },
        { source: { url: video }, mode: 'captions_only', caption_languages: ['de'] },
      ],
    });
    const done = await client.batches.wait(batch.id, { timeoutMs: 90_000, intervalMs: 500 });
    assert.equal(done.total_items, 2);
    assert.equal(done.succeeded_items + done.failed_items, 2);
  });

  it('raises a refusal as a typed error', async () => {
    const err = await client.jobs.create({ source: { url: 'ftp://example.com/a.mp3' }, mode: 'captions_only' }).catch((e: unknown) => e);
    assert.ok(err instanceof TranscriptApiError);
    assert.deepEqual([err.status, err.code, err.retryable, err.details?.detail], [422, 'INVALID_URL', false, 'source.url']);
    assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/);
    const missing = await client.jobs.get(randomUUID()).catch((e: unknown) => e);
    assert.ok(missing instanceof TranscriptApiError && missing.code === 'NOT_FOUND');
  });

  it('types every operation through `raw`', async () => {
    const { data, error } = await client.raw.GET('/v1/capabilities');
    assert.equal(error, undefined);
    assert.deepEqual(data!.export_formats, ['txt', 'json', 'srt', 'vtt', 'chapters']);
    assert.ok((await client.usage()).credits_remaining >= 0);
  });

  it('verifies a real delivery and refuses a changed one', () => {
    const { raw, headers, secret } = JSON.parse(fs.readFileSync(env.TRANSCRIPT_TEST_WEBHOOK!, 'utf8')) as {
      raw: string;
      headers: Record<string, string>;
      secret: string;
    };
    const at = Number(headers['x-service-timestamp']) * 1000;
    const event = client.webhooks.verify<{ event_id: string }>(raw, headers, secret, { now: () => at + 10_000 });
    assert.equal(event.event_id, headers['x-service-event-id']);
    assert.throws(() => verifyWebhook(raw.replace('succeeded', 'failed'), headers, secret, { now: () => at }), /signature/);
    assert.throws(() => verifyWebhook(raw, headers, `${secret}x`, { now: () => at }), WebhookVerificationError);
    assert.throws(() => verifyWebhook(raw, headers, secret, { now: () => at + 301_000 }), /tolerance/);
    verifyWebhook(Buffer.from(raw), new Headers(headers), secret, { now: () => at - 300_000 }); // the edge, bytes, a Headers object
  });

  describe('the command line', () => {
    const io = () => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        out,
        err,
        io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), errIsTty: false, env: { ...env } },
      };
    };

    it('prints a transcript for a link, and says what it did on stderr', async () => {
      const t = io();
      assert.equal(await main(['get', video, '--format', 'vtt', '--mode', 'captions_only'], t.io), 0);
      assert.match(t.out.join(''), /^WEBVTT\n/);
      assert.match(t.err.join(''), /succeeded/);
    });

    it('asks for chapters with --format chapters and prints them as a WebVTT chapters track', async () => {
      const t = io();
      assert.equal(await main(['get', video, '--format', 'chapters', '--mode', 'captions_only', '--json'], t.io), 0);
      // --json prints the transcript object: the job asked for chapters, so they are a list (none: a short video).
      assert.ok(Array.isArray(JSON.parse(t.out.join('')).chapters));
      const vtt = io();
      assert.equal(await main(['get', video, '--format', 'chapters', '--mode', 'captions_only'], vtt.io), 0);
      assert.match(vtt.out.join(''), /^WEBVTT\n/);
    });

    it('asks for a translation with --translate-to and prints it', async () => {
      const t = io();
      assert.equal(await main(['get', video, '--format', 'srt', '--mode', 'captions_only', '--translate-to', 'pt'], t.io), 0);
      assert.match(t.out.join(''), /^1\n\d\d:\d\d:\d\d,\d{3} --> /);
      assert.match(t.out.join(''), /Tradução da plataforma/);
      assert.equal(await main(['get', video, '--format', 'json', '--translate-to', 'pt'], io().io), 2);
    });

    it('asks for redaction with --redact-pii', async () => {
      const t = io();
      assert.equal(await main(['get', video, '--mode', 'captions_only', '--redact-pii', '--json'], t.io), 0);
      let newest: Job | undefined;
      for await (const job of new TranscriptClient().jobs.iterate({ limit: 1 })) {
        newest = job;
        break;
      }
      assert.deepEqual(newest?.options.redact_pii_types, ['email', 'phone', 'card', 'iban']);
    });

    it('searches the transcripts: one moment a line, its transcript id first', async () => {
      const job = await new TranscriptClient().jobs.createAndWait({ source: { url: video }, mode: 'captions_only' }, { timeoutMs: 60_000 });
      const word = longestWord((await new TranscriptClient().transcripts.get(job.result_id!)).text);
      const t = io();
      assert.equal(await main(['search', word, '--limit', '3'], t.io), 0);
      const lines = t.out.join('').trim().split('\n');
      assert.ok(lines.length >= 1 && lines.length <= 3);
      for (const line of lines) assert.match(line, /^[0-9a-f-]{36}\t\d+:\d\d\t/);
      assert.equal(await main(['search'], io().io), 2);
      // The mode is passed through and answered; an unknown one is a usage error.
      const keyword = io();
      assert.equal(await main(['search', word, '--mode', 'keyword', '--json'], keyword.io), 0);
      assert.equal(JSON.parse(keyword.out.join('')).mode, 'keyword');
      assert.equal(await main(['search', word, '--mode', 'fuzzy'], io().io), 2);
    });

    it('uploads a file, lists jobs and shows usage', async () => {
      const t = io();
      assert.equal(await main(['upload', env.TRANSCRIPT_TEST_AUDIO!, '--language', 'en', '--quiet'], t.io), 0);
      assert.ok(t.out.join('').trim().split(/\s+/).length > 5);
      assert.equal(t.err.join(''), '');
      // --follow: the words on stderr as they come, the transcript on stdout, the same words.
      const followed = io();
      assert.equal(await main(['upload', env.TRANSCRIPT_TEST_AUDIO!, '--language', 'en', '--follow', '--format', 'json'], followed.io), 0);
      const lines = followed.err
        .join('')
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('uploading '));
      assert.ok(lines.length > 0);
      for (const line of lines) assert.match(line, /^\[\d+:\d\d\] \S/);
      const segments = (JSON.parse(followed.out.join('')) as { segments: Array<{ text: string }> }).segments;
      assert.deepEqual(
        lines.map((l) => l.replace(/^\[\d+:\d\d\] /, '')),
        segments.map((x) => x.text),
      );
      const list = io();
      assert.equal(await main(['jobs', 'list', '--limit', '2'], list.io), 0);
      assert.equal(list.out.join('').trim().split('\n').length, 2);
      assert.match(list.out[0]!, /^[0-9a-f-]{36}\tsucceeded\ttranscribe\t/);
      const usage = io();
      assert.equal(await main(['usage', '--json'], usage.io), 0);
      assert.ok(typeof JSON.parse(usage.out.join('')).credits_remaining === 'number');
    });

    it('exits 2 on a usage error, 3 on a refusal, 4 on a timeout', async () => {
      assert.equal(await main(['get'], io().io), 2);
      assert.equal(await main(['get', video, '--format', 'docx'], io().io), 2);
      assert.equal(await main(['frobnicate'], io().io), 2);
      const noKey = io();
      noKey.io.env.TRANSCRIPT_API_KEY = '';
      assert.equal(await main(['usage'], noKey.io), 2);
      const refused = io();
      assert.equal(await main(['get', 'ftp://example.com/a.mp3'], refused.io), 3);
      assert.match(refused.err.join(''), /INVALID_URL.*\[request [0-9a-f-]{36}\]/);
      const slow = io();
      assert.equal(await main(['upload', env.TRANSCRIPT_TEST_SLOW_AUDIO!, '--timeout', '1'], slow.io), 4);
      assert.match(slow.err.join(''), /still (queued|processing) after the timeout/);
    });
  });
});

describe('retries, without a server', () => {
  const envelope = (code: string, retryable: boolean) => ({ error: { code, message: code, retryable }, request_id: 'r' });
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  it('retries a retryable refusal after Retry-After, with the same Idempotency-Key', async () => {
    const seen: Request[] = [];
    const started = Date.now();
    const client = new TranscriptClient({
      apiKey: 'tsk_test',
      baseUrl: 'http://service.test',
      fetch: async (r) => {
        seen.push(r);
        return seen.length < 3
          ? json(503, envelope('SERVICE_UNAVAILABLE', true), { 'retry-after': '1' })
          : json(202, { id: 'j1', status: 'queued' });
      },
    });
    const job = await client.jobs.create({ source: { url: 'https://x.test/v' }, mode: 'captions_only' });
    assert.equal(job.id, 'j1');
    assert.equal(seen.length, 3);
    assert.ok(Date.now() - started >= 1900, 'waited the two Retry-After seconds');
    const keys = new Set(seen.map((r) => r.headers.get('idempotency-key')));
    assert.equal(keys.size, 1);
    assert.match([...keys][0]!, /^[0-9a-f-]{36}$/);
    assert.equal(seen[0]!.headers.get('authorization'), 'Bearer tsk_test');
    assert.equal(await seen[2]!.text(), JSON.stringify({ source: { url: 'https://x.test/v' }, mode: 'captions_only' }));
  });

  it('does not retry what is not retryable, and stops after maxRetries', async () => {
    let calls = 0;
    const refuse = new TranscriptClient({
      baseUrl: 'http://service.test',
      fetch: async () => (calls++, json(422, envelope('INVALID_REQUEST', false))),
    });
    await assert.rejects(refuse.jobs.get('j'), (e: unknown) => e instanceof TranscriptApiError && e.code === 'INVALID_REQUEST');
    assert.equal(calls, 1);
    calls = 0;
    const busy = new TranscriptClient({
      baseUrl: 'http://service.test',
      retry: { maxRetries: 2, baseDelayMs: 1 },
      fetch: async () => (calls++, json(429, envelope('RATE_LIMITED', true))),
    });
    await assert.rejects(busy.usage(), (e: unknown) => e instanceof TranscriptApiError && e.code === 'RATE_LIMITED' && e.retryable);
    assert.equal(calls, 3);
  });

  it('gives up waiting with the last state', async () => {
    const client = new TranscriptClient({
      baseUrl: 'http://service.test',
      fetch: async () => json(200, { id: 'j', status: 'processing', stage: 'downloading' }),
    });
    await assert.rejects(
      client.jobs.wait('j', { timeoutMs: 0 }),
      (e: unknown) => e instanceof TranscriptTimeoutError && (e.last as { stage: string }).stage === 'downloading',
    );
  });
});
