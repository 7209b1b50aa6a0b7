// The one catalogue of error codes. Every failure the service reports is a
// ServiceError carrying one of these codes; api/ maps it once to HTTP and
// activities/ map it once to Temporal failures (retryable or not).

export const ERROR_CATALOGUE = {
  INVALID_REQUEST: { status: 422, retryable: false, message: 'A field is missing or has the wrong shape.' },
  INVALID_URL: { status: 422, retryable: false, message: 'Not a valid https link, or longer than 2048 characters.' },
  UNSUPPORTED_SOURCE: { status: 422, retryable: false, message: 'Link is not a supported video URL.' },
  UNSAFE_URL: { status: 422, retryable: false, message: 'A direct media link points at a private or blocked network address.' },
  INVALID_CURSOR: { status: 422, retryable: false, message: 'Discovery cursor expired or malformed; restart from the first page.' },
  CAPABILITY_UNAVAILABLE: { status: 422, retryable: false, message: 'The mode is not available for this source.' },
  IDEMPOTENCY_CONFLICT: { status: 409, retryable: false, message: 'Idempotency-Key already used with a different body.' },
  UNAUTHENTICATED: { status: 401, retryable: false, message: 'No valid key or token.' },
  FORBIDDEN: { status: 403, retryable: false, message: 'Missing scope, or workspace disabled.' },
  EMAIL_UNVERIFIED: { status: 403, retryable: false, message: 'Account e-mail not verified.' },
  NOT_FOUND: { status: 404, retryable: false, message: 'No such object in this workspace.' },
  INSUFFICIENT_BALANCE: { status: 402, retryable: false, message: 'Not enough credits for the job.' },
  PLAN_REQUIRED: { status: 402, retryable: false, message: 'Needs a paid plan, or the trial credits are used up.' },
  BUDGET_EXCEEDED: { status: 402, retryable: false, message: 'Measured cost exceeds max_credits; nothing charged.' },
  JOB_NOT_RETRYABLE: { status: 409, retryable: false, message: 'The failure was final.' },
  CANCELLATION_NOT_ALLOWED: { status: 409, retryable: false, message: 'AI transcription already started.' },
  CONFLICT: { status: 409, retryable: false, message: 'The object is not in a state that allows this.' },
  BAD_REQUEST: { status: 400, retryable: false, message: 'The HTTP request could not be read (malformed header or body encoding).' },
  HEADERS_TOO_LARGE: { status: 431, retryable: false, message: 'The request headers are larger than the server accepts.' },
  UPGRADE_REQUIRED: {
    status: 426,
    retryable: false,
    message: 'This endpoint speaks WebSocket: open it with Upgrade: websocket.',
  },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, message: 'This path does not accept this method; see the Allow header.' },
  UNSUPPORTED_ENCODING: {
    status: 415,
    retryable: false,
    message: 'The body uses a Content-Encoding or charset the service does not accept.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    message: 'The body must be JSON, sent with Content-Type: application/json.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, message: 'Request body is larger than the limit.' },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    retryable: false,
    message: 'No byte range asked for starts inside the media; Content-Range gives its size.',
  },
  RATE_LIMITED: { status: 429, retryable: true, message: 'Over a rate or queue limit. Nothing charged.' },
  SOURCE_NOT_FOUND: { status: 422, retryable: false, message: 'Video does not exist or was removed.' },
  SOURCE_PRIVATE: { status: 422, retryable: false, message: 'Video is private; only public videos work.' },
  SOURCE_AUTH_REQUIRED: { status: 422, retryable: false, message: 'Video needs a login, age check or membership.' },
  SOURCE_REGION_RESTRICTED: { status: 422, retryable: false, message: 'Video is blocked in the regions fetched from.' },
  NO_CAPTIONS: { status: 422, retryable: false, message: 'No captions and mode was captions_only.' },
  LANGUAGE_UNAVAILABLE: { status: 422, retryable: false, message: 'None of caption_languages exists on the video.' },
  LANGUAGE_UNSUPPORTED: { status: 422, retryable: false, message: 'AI transcription does not support the requested language.' },
  NO_SPEECH: { status: 422, retryable: false, message: 'AI transcription found no speech.' },
  NO_AUDIO: { status: 422, retryable: false, message: 'The media has no audio track.' },
  INVALID_MEDIA: { status: 422, retryable: false, message: 'File unreadable as audio or video.' },
  UNSUPPORTED_MEDIA: { status: 422, retryable: false, message: 'Not an audio or video file type.' },
  DURATION_LIMIT_EXCEEDED: { status: 413, retryable: false, message: 'Longer than 2 hours.' },
  FILE_TOO_LARGE: { status: 413, retryable: false, message: 'Larger than 250 MB.' },
  TIMESTAMPS_UNAVAILABLE: { status: 422, retryable: false, message: 'Transcript has no timing, so srt and vtt exports are unavailable.' },
  CHAPTERS_UNAVAILABLE: {
    status: 422,
    retryable: false,
    message: 'The transcript was made without chapters: ask for chapters: true when creating the job.',
  },
  TRANSLATION_UNAVAILABLE: {
    status: 422,
    retryable: false,
    message: 'No translation into that language: the job did not ask for it, or no translation route reaches it from the spoken language.',
  },
  PROVIDER_REJECTED: { status: 422, retryable: false, message: 'The recognition model could not process the audio.' },
  SOURCE_RATE_LIMITED: { status: 503, retryable: true, message: 'Source platform throttles; the job retries automatically.' },
  SOURCE_BLOCKED: { status: 503, retryable: true, message: 'Source platform blocked the fetch; automatic retry.' },
  SOURCE_TIMEOUT: { status: 503, retryable: true, message: 'Source platform timed out; automatic retry.' },
  SOURCE_CHANGED: { status: 503, retryable: true, message: 'Source changed while being read; automatic retry.' },
  PROVIDER_UNAVAILABLE: { status: 503, retryable: true, message: 'AI transcription temporarily unavailable; automatic retry.' },
  STORAGE_UNAVAILABLE: { status: 503, retryable: true, message: 'File storage temporarily unavailable; retry the request.' },
  SERVICE_UNAVAILABLE: { status: 503, retryable: true, message: 'A dependency of this endpoint is not configured or not reachable.' },
  INTERNAL_ERROR: { status: 500, retryable: true, message: 'Server fault; retry with the same Idempotency-Key.' },
} as const satisfies Record<string, { status: number; retryable: boolean; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The error object as it appears in responses, in job.error and in webhook events. */
export interface ErrorObject {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  retry_after_seconds?: number;
  details?: { detail: string };
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly detail?: string;
  readonly retryAfterSeconds?: number;
  /** Extra response headers (rate limits). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail?: string,
    opts: { message?: string; retryAfterSeconds?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    const entry = ERROR_CATALOGUE[code];
    super(opts.message ?? entry.message, { cause: opts.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = entry.status;
    this.retryable = entry.retryable;
    this.detail = detail;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.headers = opts.headers;
  }

  toObject(): ErrorObject {
    return toErrorObject(this.code, this.detail, this.message, this.retryAfterSeconds);
  }
}

export function toErrorObject(code: ErrorCode, detail?: string, message?: string, retryAfterSeconds?: number): ErrorObject {
  const entry = ERROR_CATALOGUE[code];
  const obj: ErrorObject = { code, message: message ?? entry.message, retryable: entry.retryable };
  if (retryAfterSeconds !== undefined) obj.retry_after_seconds = retryAfterSeconds;
  if (detail !== undefined) obj.details = { detail };
  return obj;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}

export function docUrl(code: ErrorCode): string {
  return `/docs#error-${code.toLowerCase().replace(/_/g, '-')}`;
}
