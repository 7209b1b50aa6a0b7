/** The service's error envelope: `{ error: { code, message, retryable, retry_after_seconds?, details?, doc_url }, request_id }`. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    retryable: boolean;
    retry_after_seconds?: number;
    details?: { detail?: string } & Record<string, unknown>;
    doc_url?: string;
  };
  request_id?: string;
}

/** A refusal by the API: the envelope's fields, the HTTP status and the request id to quote to support. */
export class TranscriptApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryable: boolean;
  readonly details: ({ detail?: string } & Record<string, unknown>) | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, envelope: ErrorEnvelope | undefined, fallbackRequestId?: string) {
    const e = envelope?.error;
    super(e ? `${e.code}: ${e.message}${e.details?.detail ? ` (${e.details.detail})` : ''}` : `HTTP ${status}`);
    this.name = 'TranscriptApiError';
    this.status = status;
    this.code = e?.code ?? `HTTP_${status}`;
    this.retryable = e?.retryable ?? status >= 500;
    this.details = e?.details;
    this.requestId = envelope?.request_id ?? fallbackRequestId;
    this.retryAfterSeconds = e?.retry_after_seconds;
  }
}

/** A wait that ran out (`createAndWait`, `uploadFile`): the last state seen is kept. */
export class TranscriptTimeoutError extends Error {
  constructor(
    message: string,
    readonly last: unknown,
  ) {
    super(message);
    this.name = 'TranscriptTimeoutError';
  }
}

/** A webhook request whose signature, timestamp or body does not check out. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  const e = (value as { error?: { code?: unknown } } | null)?.error;
  return typeof e === 'object' && e !== null && typeof e.code === 'string';
}
