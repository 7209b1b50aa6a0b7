import { createHash, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { ServiceError } from '../../core/errors';
import { normaliseLanguageTag } from '../platforms/language-tags';
import { resultFromWords } from './result';
import {
  EXPERIMENTAL_LANGUAGE,
  TARGET_LANGUAGES,
  resolveLanguage,
  type LanguageSets,
  type RecognitionResult,
  type RecognizeOptions,
  type SpeechRecognizer,
} from './types';

// The cloud recognizer: AssemblyAI's v2 REST API as published, used
// asynchronously. A job uploads the audio and creates a transcript with a
// webhook (submit), the provider calls back when it is done (verifyCallback),
// and the worker reads the transcript (fetchResult). Between submit and the
// callback nothing of ours waits: the Temporal workflow sleeps on a signal.
//
//   POST /v2/upload            raw bytes                     → { upload_url }
//   POST /v2/transcript        { audio_url, language_code | language_detection,
//                                webhook_url, webhook_auth_header_name,
//                                webhook_auth_header_value } → { id, status: 'queued' }
//   webhook POST webhook_url   { transcript_id, status }  with the auth header
//   GET  /v2/transcript/{id}                                  → { status, text, words (ms), language_code, error }
//   every call: `authorization: <API key>`

export interface AssemblyAiConfig {
  /** Env ASSEMBLYAI_API_KEY. */
  apiKey: string;
  /** Env ASSEMBLYAI_BASE_URL; the local fake's address in development and tests. */
  baseUrl?: string;
  /** Header AssemblyAI puts on the webhook call. Default `X-Service-Provider-Secret`. */
  webhookAuthHeaderName?: string;
  /** Its value: a secret of ours that proves the call came from the provider. Env ASSEMBLYAI_WEBHOOK_SECRET. */
  webhookAuthHeaderValue: string;
  /** AssemblyAI `speech_model` (`universal`, `slam-1`, …); omitted = the provider's default. Env ASSEMBLYAI_SPEECH_MODEL. */
  speechModel?: string;
  /** Per-request limit for the JSON calls. Default 30 s (the upload gets 10 minutes). */
  timeoutMs?: number;
  /** recognize() polls this often. Default 3 s. */
  pollIntervalMs?: number;
}

export const DEFAULT_ASSEMBLYAI_BASE_URL = 'https://api.assemblyai.com';
export const DEFAULT_WEBHOOK_AUTH_HEADER = 'X-Service-Provider-Secret';

export interface SubmitOptions {
  /** BCP 47 hint; absent = the provider detects the language. */
  language?: string;
  /** Where the provider calls back; absent = the caller polls fetchResult. */
  webhookUrl?: string;
  /** The job's speaker labels and vocabulary, sent as AssemblyAI's `speaker_labels`, `speakers_expected` and `word_boost`. */
  speakerLabels?: boolean;
  speakersExpected?: number | null;
  vocabulary?: string[];
  signal?: AbortSignal;
}

export interface ProviderCallback {
  providerJobId: string;
  status: 'completed' | 'error';
}

/** The transcript object as GET /v2/transcript/{id} returns it (the fields used here). */
interface Transcript {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'error';
  text?: string | null;
  words?: Array<{ text: string; start: number; end: number; confidence: number; speaker?: string | null }> | null;
  language_code?: string | null;
  error?: string;
}

export class AssemblyAiRecognizer implements SpeechRecognizer {
  readonly name = 'assemblyai';
  readonly model: string;
  private readonly base: string;
  private readonly headerName: string;

  constructor(private readonly cfg: AssemblyAiConfig) {
    this.base = (cfg.baseUrl ?? DEFAULT_ASSEMBLYAI_BASE_URL).replace(/\/+$/, '');
    this.headerName = cfg.webhookAuthHeaderName ?? DEFAULT_WEBHOOK_AUTH_HEADER;
    this.model = `assemblyai/${cfg.speechModel ?? 'default'}`;
  }

  languages(): LanguageSets {
    // AssemblyAI lists all eight and Hindi; none was measured here (no network to the provider).
    return { validated: [], supported: [...TARGET_LANGUAGES], experimental: [EXPERIMENTAL_LANGUAGE] };
  }

  /** Uploads the audio and creates the transcript; returns the provider's transcript id. */
  async submit(audioPath: string, opts: SubmitOptions = {}): Promise<string> {
    const language = resolveLanguage(this, opts.language);
    const { size } = await stat(audioPath);
    const upload = await this.call<{ upload_url?: string }>('POST', '/v2/upload', {
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body: createReadStream(audioPath),
      timeoutMs: 10 * 60_000,
      signal: opts.signal,
    });
    if (typeof upload.upload_url !== 'string')
      throw new ServiceError('PROVIDER_UNAVAILABLE', 'assemblyai upload answered without upload_url');

    const body: Record<string, unknown> = { audio_url: upload.upload_url };
    if (language) body.language_code = language;
    else body.language_detection = true;
    if (this.cfg.speechModel) body.speech_model = this.cfg.speechModel;
    if (opts.speakerLabels) {
      body.speaker_labels = true;
      if (opts.speakersExpected) body.speakers_expected = opts.speakersExpected;
    }
    if (opts.vocabulary && opts.vocabulary.length > 0) body.word_boost = opts.vocabulary;
    if (opts.webhookUrl) {
      body.webhook_url = opts.webhookUrl;
      body.webhook_auth_header_name = this.headerName;
      body.webhook_auth_header_value = this.cfg.webhookAuthHeaderValue;
    }
    const created = await this.call<Partial<Transcript>>('POST', '/v2/transcript', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: opts.signal,
    });
    if (typeof created.id !== 'string' || created.id === '')
      throw new ServiceError('PROVIDER_UNAVAILABLE', 'assemblyai transcript creation answered without id');
    if (created.status === 'error')
      throw new ServiceError('PROVIDER_REJECTED', `assemblyai transcript ${created.id}: ${created.error ?? 'error'}`);
    return created.id;
  }

  /** The finished result, or 'pending' while the provider works; PROVIDER_REJECTED when it gave up on the audio, NO_SPEECH when it heard nothing. */
  async fetchResult(providerJobId: string, opts: { signal?: AbortSignal } = {}): Promise<RecognitionResult | 'pending'> {
    const t = await this.call<Transcript>('GET', `/v2/transcript/${encodeURIComponent(providerJobId)}`, { signal: opts.signal });
    if (t.status === 'queued' || t.status === 'processing') return 'pending';
    if (t.status === 'error') throw new ServiceError('PROVIDER_REJECTED', `assemblyai transcript ${providerJobId}: ${t.error ?? 'error'}`);
    if (t.status !== 'completed')
      throw new ServiceError('PROVIDER_UNAVAILABLE', `assemblyai transcript ${providerJobId}: unknown status ${String(t.status)}`);
    // AssemblyAI writes languages as `en_us`; transcripts carry BCP 47 (`en-US`).
    const language = t.language_code ? normaliseLanguageTag(t.language_code) : null;
    const words = (t.words ?? []).map((w) => ({
      text: w.text,
      start: w.start / 1000,
      end: w.end / 1000,
      confidence: w.confidence,
      // AssemblyAI names speakers "A", "B", … in order of first appearance, as this service does.
      ...(typeof w.speaker === 'string' && w.speaker !== '' ? { speaker: w.speaker } : {}),
    }));
    // audio_duration is whole seconds upstream: too coarse to clamp word times with.
    return resultFromWords(language, words, { engine: `assemblyai transcript ${providerJobId}` });
  }

  /**
   * Checks a webhook call: the auth header must carry our secret (compared
   * in constant time) and the body name a transcript and its status.
   * UNAUTHENTICATED for a wrong or missing secret, INVALID_REQUEST for a body
   * of the wrong shape.
   */
  verifyCallback(headers: Record<string, string | string[] | undefined>, body: unknown): ProviderCallback {
    const wanted = this.headerName.toLowerCase();
    const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === wanted)?.[1];
    const got = Array.isArray(entry) ? entry[0] : entry;
    if (typeof got !== 'string' || !sameSecret(got, this.cfg.webhookAuthHeaderValue)) {
      throw new ServiceError('UNAUTHENTICATED', `provider callback: missing or wrong ${this.headerName} header`);
    }
    const parsed = parseBody(body);
    const id = parsed?.transcript_id;
    const status = parsed?.status;
    if (typeof id !== 'string' || id === '' || (status !== 'completed' && status !== 'error')) {
      throw new ServiceError('INVALID_REQUEST', 'provider callback: body needs transcript_id and status completed|error');
    }
    return { providerJobId: id, status };
  }

  /** Submit and poll: the Recognizer interface for callers without a webhook (development, benchmarks). */
  async recognize(wavPath: string, opts: RecognizeOptions = {}): Promise<RecognitionResult> {
    const id = await this.submit(wavPath, { language: opts.language, signal: opts.signal });
    for (;;) {
      const result = await this.fetchResult(id, { signal: opts.signal });
      if (result !== 'pending') return result;
      await sleep(this.cfg.pollIntervalMs ?? 3000, undefined, { signal: opts.signal });
    }
  }

  // One request; failures mapped once: no answer, 5xx and 429 are the
  // provider's trouble (retryable), any other 4xx is a refusal.
  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    init: { headers?: Record<string, string>; body?: string | Readable; timeoutMs?: number; signal?: AbortSignal },
  ): Promise<T> {
    const timeout = init.timeoutMs ?? this.cfg.timeoutMs ?? 30_000;
    let res;
    try {
      res = await request(`${this.base}${path}`, {
        method,
        headers: { authorization: this.cfg.apiKey, ...init.headers },
        body: init.body,
        signal: init.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new ServiceError('PROVIDER_UNAVAILABLE', `assemblyai ${method} ${path}: no answer (${(err as Error).message})`, { cause: err });
    }
    const text = await res.body.text().catch(() => '');
    const json = parseBody(text);
    if (res.statusCode >= 500 || res.statusCode === 429) {
      const retryAfter = Number(res.headers['retry-after']);
      throw new ServiceError(
        'PROVIDER_UNAVAILABLE',
        `assemblyai ${method} ${path}: HTTP ${res.statusCode} ${errorText(json, text)}`,
        Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {},
      );
    }
    if (res.statusCode >= 400)
      throw new ServiceError('PROVIDER_REJECTED', `assemblyai ${method} ${path}: HTTP ${res.statusCode} ${errorText(json, text)}`);
    if (json === undefined)
      throw new ServiceError('PROVIDER_UNAVAILABLE', `assemblyai ${method} ${path}: HTTP ${res.statusCode} with a body that is not JSON`);
    return json as T;
  }
}

/** Constant-time equality that does not leak the secret's length either (both sides hashed first). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && expected !== '';
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (Buffer.isBuffer(body)) body = body.toString('utf8');
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

function errorText(json: Record<string, unknown> | undefined, text: string): string {
  const e = json?.error;
  return (typeof e === 'string' ? e : text).slice(0, 300);
}
