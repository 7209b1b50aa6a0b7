import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import { isErrorEnvelope, TranscriptApiError, TranscriptTimeoutError, type ErrorEnvelope } from './errors';
import { DEFAULT_RETRY, retryAfterMs, retryingFetch, serializeQuery, type RetryPolicy } from './http';
import type { components, operations, paths } from './schema';
import { verifyWebhook } from './webhooks';
import {
  ListenError,
  listenQuery,
  listenUrl,
  openListenStream,
  type ListenOptions,
  type ListenStream,
  type WebSocketClass,
} from './listen';

export type Schemas = components['schemas'];
export type Job = Schemas['Job'];
export type JobRequest = Schemas['JobRequest'];
export type Transcript = Schemas['Transcript'];
export type Upload = Schemas['Upload'];
export type Batch = Schemas['Batch'];
export type BatchRequest = Schemas['BatchRequest'];
export type Usage = Schemas['Usage'];
export type Capabilities = Schemas['Capabilities'];
/** txt, json, srt, vtt, or `chapters` (a WebVTT chapters track, for a job that asked for chapters). */
export type ExportFormat = operations['exportTranscript']['parameters']['query']['format'];
export type SearchQuery = operations['searchTranscripts']['parameters']['query'];
export type SearchResult = Schemas['SearchResult'];
export type Moment = Schemas['Moment'];
export type PartialSegment = Schemas['PartialSegment'];
export type JobSegments = Schemas['JobSegments'];
export type ListJobsQuery = NonNullable<paths['/v1/jobs']['get']['parameters']['query']>['query'];

export const FINAL_JOB_STATUSES: readonly Job['status'][] = ['succeeded', 'failed', 'cancelled'];
/** The longest long poll the service holds a request for (GET /v1/jobs/{id}?wait=). */
const MAX_WAIT_SECONDS = 25;

export interface ClientOptions {
  /** `tsk_…`; default: the TRANSCRIPT_API_KEY environment variable. */
  apiKey?: string;
  /** Default: TRANSCRIPT_API_URL, else http://localhost:3000 (the local service). */
  baseUrl?: string;
  /** Retries of network failures and retryable errors (default 3, honouring Retry-After). */
  retry?: Partial<RetryPolicy>;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface WaitOptions {
  /** Give up after this long (default 30 minutes): TranscriptTimeoutError carrying the last state. */
  timeoutMs?: number;
  /** Called with each new state while waiting (status or stage changed). */
  onUpdate?: (job: Job) => void;
}

export type MediaType = Schemas['UploadRequest']['content_type'];

/** The types the service takes (UploadRequest.content_type), by file extension. */
const MEDIA_TYPES: Record<string, MediaType> = {
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.weba': 'audio/webm',
  '.webm': 'video/webm',
  '.mp4': 'video/mp4',
};

/** The Content-Type an upload is declared with, from the file's extension. */
export function mediaTypeOf(file: string): MediaType | undefined {
  return MEDIA_TYPES[path.extname(file).toLowerCase()];
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a call, or its refusal as a TranscriptApiError. */
function unwrap<T>(result: Result<T>): T {
  if (result.error !== undefined || !result.response.ok) {
    const envelope = isErrorEnvelope(result.error) ? (result.error as ErrorEnvelope) : undefined;
    throw new TranscriptApiError(result.response.status, envelope, result.response.headers.get('x-request-id') ?? undefined);
  }
  return result.data as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every item of a list, page by page, following `next_cursor` until it is null. */
export async function* paginate<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>) {
  let cursor: string | undefined;
  do {
    const { items, next_cursor } = await page(cursor);
    yield* items;
    cursor = next_cursor ?? undefined;
  } while (cursor);
}

/**
 * The Transcript Service API. `raw` is the generated client: every operation of the OpenAPI document,
 * typed (`client.raw.GET('/v1/jobs/{id}', { params: { path: { id } } })`). The groups below wrap the
 * common ones: they raise TranscriptApiError on a refusal and add what every integration writes itself
 * (waiting for a job, uploading a file, walking a list, verifying a webhook).
 */
export class TranscriptClient {
  readonly raw: Client<paths>;
  readonly baseUrl: string;

  constructor(opts: ClientOptions = {}) {
    const apiKey = opts.apiKey ?? process.env.TRANSCRIPT_API_KEY;
    this.baseUrl = (opts.baseUrl ?? process.env.TRANSCRIPT_API_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
    const inner = opts.fetch ?? ((r: Request) => fetch(r));
    this.raw = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: retryingFetch(inner, { ...DEFAULT_RETRY, ...opts.retry }),
      querySerializer: (q) => serializeQuery(q as Record<string, unknown>),
      headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), 'User-Agent': 'transcript-service-client-ts/1.0.0' },
    });
    this.putFetch = inner;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
  }

  private readonly retry: RetryPolicy;

  /**
   * Real-time transcription: opens GET /v1/listen with a one-use token minted by the API key (so any WebSocket
   * works, a browser's too) and resolves once the stream is open. Send PCM, `stop()`, read `partial` and `final`
   * messages with `for await`. A refused stream throws TranscriptApiError with the service's reason (a WebSocket
   * never sees the refusal's status, so the plain GET, which runs the same checks, is asked); a busy recognizer is
   * tried again like any retryable error.
   */
  async listen(opts: ListenOptions & { WebSocket?: WebSocketClass } = {}): Promise<ListenStream> {
    const WS = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
    if (!WS) throw new Error('This runtime has no WebSocket: pass one as opts.WebSocket (Node 20: the ws package).');
    for (let attempt = 0; ; attempt++) {
      const { token } = unwrap(await this.raw.POST('/v1/listen/tokens'));
      try {
        return await openListenStream(WS, listenUrl(this.baseUrl, token, opts));
      } catch (err) {
        if (!(err instanceof ListenError)) throw err;
        const check = await this.raw.GET('/v1/listen', {
          params: { query: { token, ...listenQuery(opts) } },
        });
        const code = isErrorEnvelope(check.error) ? (check.error as ErrorEnvelope).error.code : undefined;
        if (code !== 'UPGRADE_REQUIRED') unwrap(check);
        // It would be accepted now: the recognizers were busy (or the network failed). Try again, as for a 503.
        if (attempt >= this.retry.maxRetries) throw err;
        await sleep(Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt));
      }
    }
  }

  /** Uploads go straight to the store's signed URL: no API key there, and the plain fetch. */
  private readonly putFetch: (input: Request) => Promise<Response>;

  async usage(): Promise<Usage> {
    return unwrap(await this.raw.GET('/v1/usage'));
  }

  async capabilities(): Promise<Capabilities> {
    return unwrap(await this.raw.GET('/v1/capabilities'));
  }

  readonly jobs = {
    /** POST /v1/jobs. An Idempotency-Key is made when none is given, and kept across retries. */
    create: async (body: JobRequest, opts: { idempotencyKey?: string } = {}): Promise<Job> =>
      unwrap(
        await this.raw.POST('/v1/jobs', {
          body,
          params: { header: opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : ({} as { 'Idempotency-Key': string }) },
        }),
      ),
    /** GET /v1/jobs/{id}; `wait` (1–25 s) holds the request until the job changes or ends. */
    get: async (id: string, opts: { wait?: number } = {}): Promise<Job> =>
      unwrap(await this.raw.GET('/v1/jobs/{id}', { params: { path: { id }, query: opts.wait ? { wait: opts.wait } : {} } })),
    /** One page of GET /v1/jobs (newest first). */
    list: async (query: ListJobsQuery = {}) => unwrap(await this.raw.GET('/v1/jobs', { params: { query: { query } } })),
    /** Every job, newest first, following the cursor. */
    iterate: (query: Omit<NonNullable<ListJobsQuery>, 'cursor'> = {}): AsyncGenerator<Job> =>
      paginate(async (cursor) => {
        const page = await this.jobs.list({ ...query, ...(cursor ? { cursor } : {}) });
        return { items: page.jobs, next_cursor: page.next_cursor };
      }),
    cancel: async (id: string): Promise<Job> => unwrap(await this.raw.POST('/v1/jobs/{id}/cancel', { params: { path: { id } } })),
    retry: async (id: string, body: { max_credits?: number } = {}, opts: { idempotencyKey?: string } = {}): Promise<Job> =>
      unwrap(
        await this.raw.POST('/v1/jobs/{id}/retry', {
          body,
          params: {
            path: { id },
            header: opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : ({} as { 'Idempotency-Key': string }),
          },
        }),
      ),
    /** Long-polls until the job is final (succeeded, failed or cancelled) and returns it. */
    wait: async (id: string, opts: WaitOptions = {}): Promise<Job> => {
      const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
      let job = await this.jobs.get(id);
      let seen = `${job.status}/${job.stage}`;
      opts.onUpdate?.(job);
      while (!FINAL_JOB_STATUSES.includes(job.status)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new TranscriptTimeoutError(`job ${id} is still ${job.status} after the timeout`, job);
        job = await this.jobs.get(id, { wait: Math.max(1, Math.min(MAX_WAIT_SECONDS, Math.floor(left / 1000))) });
        if (`${job.status}/${job.stage}` !== seen) {
          seen = `${job.status}/${job.stage}`;
          opts.onUpdate?.(job);
        }
      }
      return job;
    },
    /** GET /v1/jobs/{id}/segments: a running job's segments after `after`; `wait` (1–25 s) holds until there are some or the job ends. */
    segments: async (id: string, opts: { after?: number; wait?: number } = {}): Promise<JobSegments> =>
      unwrap(
        await this.raw.GET('/v1/jobs/{id}/segments', {
          params: { path: { id }, query: { ...(opts.after ? { after: opts.after } : {}), ...(opts.wait ? { wait: opts.wait } : {}) } },
        }),
      ),
    /**
     * The job's growing transcript: `for await (const segment of client.jobs.stream(id))` yields each segment once, in
     * time order, as the job's pieces are recognised, and ends when the job is final (read it, and its transcript,
     * for the settled result: speakers and per-region languages come only there).
     */
    stream: (id: string, opts: { timeoutMs?: number } = {}): AsyncGenerator<PartialSegment, Job> => this.followSegments(id, opts),
    /** Submits a job and waits until it is final. A failed or cancelled job is returned, not raised: read `status` and `error`. */
    createAndWait: async (body: JobRequest, opts: WaitOptions & { idempotencyKey?: string } = {}): Promise<Job> => {
      const job = await this.jobs.create(body, opts);
      return this.jobs.wait(job.id, opts);
    },
  };

  private async *followSegments(id: string, opts: { timeoutMs?: number }): AsyncGenerator<PartialSegment, Job> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
    let after = 0;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new TranscriptTimeoutError(`job ${id} is still running after the timeout`, await this.jobs.get(id));
      const page = await this.jobs.segments(id, { after, wait: Math.max(1, Math.min(MAX_WAIT_SECONDS, Math.floor(left / 1000))) });
      yield* page.segments;
      after = page.next_after;
      if (FINAL_JOB_STATUSES.includes(page.status) && page.segments.length === 0) return this.jobs.get(id);
    }
  }

  readonly transcripts = {
    get: async (id: string): Promise<Transcript> => unwrap(await this.raw.GET('/v1/transcripts/{id}', { params: { path: { id } } })),
    /** The transcript as txt, srt, vtt or json text; `translated`: its translation (a job with `translate_to`). */
    export: async (
      id: string,
      format: ExportFormat,
      opts: { max_line_length?: number; max_lines?: number; translated?: boolean } = {},
    ): Promise<string> =>
      unwrap(
        await this.raw.GET('/v1/transcripts/{id}/export', {
          params: {
            path: { id },
            query: {
              format,
              ...(opts.max_line_length !== undefined ? { max_line_length: opts.max_line_length } : {}),
              ...(opts.max_lines !== undefined ? { max_lines: opts.max_lines } : {}),
              ...(opts.translated ? { translated: 'true' as const } : {}),
            },
          },
          parseAs: 'text',
        }),
      ) as string,
    delete: async (id: string) => unwrap(await this.raw.DELETE('/v1/transcripts/{id}', { params: { path: { id } } })),
    /** Where something was said across the workspace's transcripts: moments, best first (GET /v1/search). */
    search: async (query: SearchQuery): Promise<SearchResult> => unwrap(await this.raw.GET('/v1/search', { params: { query } })),
  };

  readonly uploads = {
    create: async (body: Schemas['UploadRequest']): Promise<Upload> => unwrap(await this.raw.POST('/v1/uploads', { body })),
    get: async (id: string): Promise<Upload> => unwrap(await this.raw.GET('/v1/uploads/{id}', { params: { path: { id } } })),
    /** Completes an upload and waits until the service has verified it: the `ready` upload, or a TranscriptApiError saying why not. */
    complete: async (id: string, opts: { timeoutMs?: number } = {}): Promise<Upload> => {
      const result = await this.raw.POST('/v1/uploads/{id}/complete', { params: { path: { id } } });
      let upload = unwrap(result) as Upload;
      const deadline = Date.now() + (opts.timeoutMs ?? 10 * 60_000);
      let pause = retryAfterMs(result.response.headers.get('retry-after')) ?? 1000;
      while (upload.status === 'verifying' || upload.status === 'pending') {
        if (Date.now() > deadline) throw new TranscriptTimeoutError(`upload ${id} is still ${upload.status} after the timeout`, upload);
        await sleep(pause);
        pause = 1000;
        upload = await this.uploads.get(id);
      }
      if (upload.status !== 'ready')
        throw new TranscriptApiError(422, {
          error: upload.error ?? { code: 'INVALID_MEDIA', message: `The upload is ${upload.status}.`, retryable: false },
        });
      return upload;
    },
    /**
     * Uploads a local file and returns the `ready` upload: reserves a slot with the file's exact size,
     * PUTs it to the signed URL with the declared Content-Type (streamed from disk), then completes it.
     */
    uploadFile: async (file: string, opts: { contentType?: MediaType; filename?: string; timeoutMs?: number } = {}): Promise<Upload> => {
      const contentType = opts.contentType ?? mediaTypeOf(file);
      if (!contentType) throw new TypeError(`no media type known for ${path.basename(file)}: pass contentType`);
      const { size } = await stat(file);
      const slot = await this.uploads.create({ filename: opts.filename ?? path.basename(file), content_type: contentType, bytes: size });
      const put = await this.putFetch(
        new Request(slot.signed_upload_url!, {
          method: 'PUT',
          headers: { 'Content-Type': contentType },
          body: await openAsBlob(file),
        }),
      );
      if (!put.ok) {
        const body: unknown = await put.json().catch(() => undefined);
        throw new TranscriptApiError(put.status, isErrorEnvelope(body) ? body : undefined, put.headers.get('x-request-id') ?? undefined);
      }
      return this.uploads.complete(slot.id, opts);
    },
  };

  readonly batches = {
    create: async (body: BatchRequest, opts: { idempotencyKey?: string } = {}): Promise<Batch> =>
      unwrap(
        await this.raw.POST('/v1/batches', {
          body,
          params: { header: opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : ({} as { 'Idempotency-Key': string }) },
        }),
      ),
    get: async (id: string): Promise<Batch> => unwrap(await this.raw.GET('/v1/batches/{id}', { params: { path: { id } } })),
    /** Polls until every item of the batch is final. */
    wait: async (id: string, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Batch> => {
      const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
      for (;;) {
        const batch = await this.batches.get(id);
        if (batch.succeeded_items + batch.failed_items + batch.cancelled_items >= batch.total_items) return batch;
        if (Date.now() > deadline) throw new TranscriptTimeoutError(`batch ${id} is still ${batch.status} after the timeout`, batch);
        await sleep(opts.intervalMs ?? 2000);
      }
    },
  };

  readonly webhooks = {
    listEndpoints: async () => unwrap(await this.raw.GET('/v1/webhook-endpoints')),
    /** See verifyWebhook. */
    verify: verifyWebhook,
  };
}
