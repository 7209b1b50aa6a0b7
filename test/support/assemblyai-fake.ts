import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { ServiceError } from '../../core/errors';
import { toRecognizerWav } from '../../integrations/media/convert';
import { readWavInfo } from '../../integrations/media/wav';
import { primaryLanguage, type SpeechRecognizer } from '../../integrations/recognizers/types';
import { WhisperCliRecognizer } from './whisper-cli';

// A local stand-in for AssemblyAI's v2 API, for tests and the dev stack
// (`npx tsx test/support/assemblyai-fake.ts`). It answers the
// documented requests with the documented shapes, really recognises the
// uploaded audio (with the project's Whisper engine, run once per file) and calls the webhook
// with the auth header, like the provider. Failures can be injected.

export interface AssemblyAiFakeOptions {
  /** The key clients must send as `authorization`. Default `fake-assemblyai-key`. */
  apiKey?: string;
  port?: number;
  host?: string;
  /** What "recognises" the uploads. Default Whisper through `python -m recognizer recognize`. */
  recognizer?: SpeechRecognizer;
}

interface FakeTranscript {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'error';
  audio_url: string;
  language_code: string | null;
  language_detection: boolean;
  webhook_url: string | null;
  webhook_auth: boolean;
  webhook_auth_header_name: string | null;
  webhook_status_code: number | null;
  speech_model: string | null;
  text: string | null;
  speaker_labels: boolean;
  words: Array<{ text: string; start: number; end: number; confidence: number; speaker: string | null }> | null;
  confidence: number | null;
  audio_duration: number | null;
  error?: string;
}

export interface WebhookDelivery {
  url: string;
  headers: Record<string, string>;
  body: { transcript_id: string; status: string };
  /** HTTP status of our POST, or null when it got no answer. */
  responseStatus: number | null;
}

export class AssemblyAiFake {
  readonly apiKey: string;
  /** Base URL (`http://127.0.0.1:port`) once started. */
  url = '';
  readonly webhookDeliveries: WebhookDelivery[] = [];
  /** Method and path of every API request, in order. */
  readonly requests: string[] = [];
  /** Bodies of the accepted POST /v2/transcript calls (webhook_auth_header_value redacted). */
  readonly created: Array<Record<string, unknown>> = [];
  private server: Server | undefined;
  private dir = '';
  private readonly transcripts = new Map<string, FakeTranscript>();
  private readonly secrets = new Map<string, string>(); // webhook_auth_header_value per transcript: never echoed, as upstream
  private readonly uploads = new Map<string, string>();
  private readonly recognizer: SpeechRecognizer;
  private failures: { remaining: number; status: number } = { remaining: 0, status: 503 };
  private rejections: string[] = [];
  // callbackFirst: the webhook of that rejection leaves before the creation answer (which follows 300 ms later),
  // so it reaches the service before the service knows the transcript id.
  private callbackFirst: boolean[] = [];
  private readonly work = new Set<Promise<void>>();

  constructor(private readonly opts: AssemblyAiFakeOptions = {}) {
    this.apiKey = opts.apiKey ?? 'fake-assemblyai-key';
    this.recognizer = opts.recognizer ?? new WhisperCliRecognizer();
  }

  async start(): Promise<string> {
    this.dir = await mkdtemp(join(tmpdir(), 'assemblyai-fake-'));
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => send(res, 500, { error: `fake: ${(err as Error).message}` }));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://${this.opts.host ?? '127.0.0.1'}:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.work]);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  /** The next `n` API requests are answered with `status` (5xx or 429: the provider in trouble). */
  failNext(n: number, status = 503): void {
    this.failures = { remaining: n, status };
  }

  /** The next transcript created ends with `status: 'error'` and this message (the provider refusing the audio). */
  rejectNext(message = 'Transcoding failed. File does not appear to contain audio.', opts: { callbackFirst?: boolean } = {}): void {
    this.rejections.push(message);
    this.callbackFirst.push(Boolean(opts.callbackFirst));
  }

  /** Resolves when every transcript being processed is finished and its webhook sent. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    this.requests.push(`${req.method} ${path}`);
    if (this.failures.remaining > 0) {
      this.failures.remaining--;
      req.resume();
      return send(res, this.failures.status, { error: 'fake: injected failure' });
    }
    if (path.startsWith('/v2/') && req.headers.authorization !== this.apiKey) {
      req.resume();
      return send(res, 401, { error: 'Authentication error, API token missing/invalid' });
    }
    if (req.method === 'POST' && path === '/v2/upload') return this.upload(req, res);
    if (req.method === 'POST' && path === '/v2/transcript') return this.create(req, res);
    const m = /^\/v2\/transcript\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const t = this.transcripts.get(decodeURIComponent(m[1]));
      return t ? send(res, 200, t) : send(res, 404, { error: 'Transcript not found' });
    }
    req.resume();
    send(res, 404, { error: `fake: no route ${req.method} ${path}` });
  }

  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = randomUUID();
    const file = join(this.dir, `upload-${id}`);
    await pipeline(req, createWriteStream(file));
    this.uploads.set(id, file);
    send(res, 200, { upload_url: `${this.url}/upload/${id}` });
  }

  private async create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readAll(req)) as Record<string, unknown>;
    } catch {
      return send(res, 400, { error: 'Invalid JSON body' });
    }
    if (typeof body.audio_url !== 'string') return send(res, 400, { error: 'audio_url is required' });
    if (body.webhook_auth_header_name !== undefined && typeof body.webhook_auth_header_value !== 'string') {
      return send(res, 400, { error: 'webhook_auth_header_value is required with webhook_auth_header_name' });
    }
    const t: FakeTranscript = {
      id: randomUUID(),
      status: 'queued',
      audio_url: body.audio_url,
      language_code: typeof body.language_code === 'string' ? body.language_code : null,
      language_detection: body.language_detection === true,
      webhook_url: typeof body.webhook_url === 'string' ? body.webhook_url : null,
      webhook_auth: typeof body.webhook_auth_header_name === 'string',
      webhook_auth_header_name: typeof body.webhook_auth_header_name === 'string' ? body.webhook_auth_header_name : null,
      webhook_status_code: null,
      speech_model: typeof body.speech_model === 'string' ? body.speech_model : null,
      speaker_labels: body.speaker_labels === true,
      text: null,
      words: null,
      confidence: null,
      audio_duration: null,
    };
    this.created.push({ ...body, ...(body.webhook_auth_header_value !== undefined ? { webhook_auth_header_value: '[redacted]' } : {}) });
    this.transcripts.set(t.id, t);
    if (t.webhook_auth) this.secrets.set(t.id, String(body.webhook_auth_header_value));
    const rejection = this.rejections.shift();
    const early = this.callbackFirst.shift() ?? false;
    if (early) {
      const answer = { ...t }; // as created: queued
      const job = this.process(t, rejection).finally(() => this.work.delete(job));
      this.work.add(job);
      await new Promise((r) => setTimeout(r, 300));
      send(res, 200, answer);
      return;
    }
    send(res, 200, t);
    const job = this.process(t, rejection).finally(() => this.work.delete(job));
    this.work.add(job);
  }

  // Recognition happens after the creation answer, as upstream: the status
  // moves queued → processing → completed | error, then the webhook fires.
  private async process(t: FakeTranscript, rejection: string | undefined): Promise<void> {
    await new Promise((r) => setImmediate(r));
    t.status = 'processing';
    try {
      if (rejection) throw new Error(rejection);
      const upload = /\/upload\/([^/?]+)$/.exec(t.audio_url);
      const file = upload ? this.uploads.get(upload[1]) : undefined;
      if (!file) throw new Error(`Download error, unable to download ${t.audio_url}`);
      const lang = t.language_code ? primaryLanguage(t.language_code) : undefined;
      const wav = await toRecognizerWav(file, `${file}.16k.wav`).catch(() => {
        throw new Error('Transcoding failed. File does not appear to contain audio.');
      });
      try {
        const r = await this.recognizer.recognize(wav, { language: lang });
        // Upstream names detected English `en_us`, the other languages by their two letters.
        t.language_code = t.language_code ?? (r.language === 'en' ? 'en_us' : r.language);
        t.words = r.words.map((w) => ({
          text: w.text,
          start: Math.round(w.start * 1000),
          end: Math.round(w.end * 1000),
          confidence: w.confidence,
          // The fake's audio is one voice (flite): upstream labels every word of it speaker "A".
          speaker: t.speaker_labels ? 'A' : null,
        }));
        t.text = r.text;
      } catch (err) {
        // Upstream answers silence with an empty completed transcript, not an error.
        if (!(err instanceof ServiceError && err.code === 'NO_SPEECH')) throw err;
        t.words = [];
        t.text = '';
      }
      t.confidence = t.words.length ? t.words.reduce((a, w) => a + w.confidence, 0) / t.words.length : 0;
      t.language_code = t.language_code ?? 'en_us';
      t.audio_duration = Math.round((await readWavInfo(wav)).durationSec * 1000) / 1000; // seconds, as upstream
      t.status = 'completed';
    } catch (err) {
      t.status = 'error';
      t.error = (err as Error).message;
    }
    await this.callWebhook(t);
  }

  private async callWebhook(t: FakeTranscript): Promise<void> {
    if (!t.webhook_url) return;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const secret = this.secrets.get(t.id);
    if (t.webhook_auth_header_name && secret !== undefined) headers[t.webhook_auth_header_name] = secret;
    const body = { transcript_id: t.id, status: t.status };
    const delivery: WebhookDelivery = { url: t.webhook_url, headers, body, responseStatus: null };
    this.webhookDeliveries.push(delivery);
    try {
      const res = await request(t.webhook_url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.dump();
      delivery.responseStatus = res.statusCode;
      t.webhook_status_code = res.statusCode;
    } catch {
      delivery.responseStatus = null;
    }
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startAssemblyAiFake(opts: AssemblyAiFakeOptions = {}): Promise<AssemblyAiFake> {
  const fake = new AssemblyAiFake(opts);
  await fake.start();
  return fake;
}

// Dev stack: `ASSEMBLYAI_FAKE_PORT=8790 npx tsx test/support/assemblyai-fake.ts`,
// then point the worker at it with ASSEMBLYAI_BASE_URL.
if (require.main === module) {
  const port = Number(process.env.ASSEMBLYAI_FAKE_PORT ?? 8790);
  void startAssemblyAiFake({ port, apiKey: process.env.ASSEMBLYAI_API_KEY, host: process.env.ASSEMBLYAI_FAKE_HOST }).then((fake) => {
    console.log(
      `[assemblyai-fake] listening on ${fake.url} (authorization: ${fake.apiKey === process.env.ASSEMBLYAI_API_KEY ? '$ASSEMBLYAI_API_KEY' : fake.apiKey})`,
    );
    const stop = () => void fake.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
