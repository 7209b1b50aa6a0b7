import { randomUUID } from 'node:crypto';

export interface RetryPolicy {
  /** Further attempts after the first (default 3). */
  maxRetries: number;
  /** First back-off when the service names no Retry-After (doubles each attempt, with jitter; default 500 ms). */
  baseDelayMs: number;
  /** No single wait is longer than this, whatever Retry-After says (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/** Statuses that are retried without reading the body: rate limits and a service or gateway that is down. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function isRetryable(response: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(response.status)) return true;
  if (response.status < 500) return false;
  // Other 5xx: the envelope's `retryable` decides.
  try {
    const body = (await response.clone().json()) as { error?: { retryable?: boolean } };
    return body.error?.retryable === true;
  } catch {
    return false;
  }
}

/**
 * The fetch every client call goes through. A POST without an Idempotency-Key gets one, made once, so
 * that its retries are the same request to the service (a job is created once however often it is sent).
 * A network failure, 429, 502–504 or an error the service marks retryable is tried again after the
 * service's Retry-After (else exponential back-off with jitter), up to `maxRetries` times; then the last
 * answer is returned as is, for the caller to raise.
 */
export function retryingFetch(
  inner: (input: Request) => Promise<Response>,
  policy: RetryPolicy,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): (input: Request) => Promise<Response> {
  return async (request: Request) => {
    let req = request;
    if (req.method === 'POST' && !req.headers.has('idempotency-key')) {
      const headers = new Headers(req.headers);
      headers.set('idempotency-key', randomUUID());
      req = new Request(req, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await inner(last ? req : req.clone());
      } catch (err) {
        if (last) throw err;
        await sleep(backoff(policy, attempt));
        continue;
      }
      if (last || !(await isRetryable(response))) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel().catch(() => undefined);
      await sleep(Math.min(policy.maxDelayMs, asked ?? backoff(policy, attempt)));
    }
  };
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Query strings as the document describes them (style form, explode): arrays repeat their key, and an
 * object parameter (GET /v1/jobs names its filters together as one, to state which need which) spreads
 * its fields as parameters of their own.
 */
export function serializeQuery(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) value.forEach((v) => add(key, v));
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(k, v);
    else params.append(key, String(value));
  };
  for (const [k, v] of Object.entries(query)) add(k, v);
  return params.toString();
}
