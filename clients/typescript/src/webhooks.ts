import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';

/** The service's documented tolerance: a delivery whose timestamp is further from now than this is refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook delivery exactly as the service signs it: `X-Service-Signature` is the lowercase hex
 * HMAC-SHA256 of `{X-Service-Event-Id}.{X-Service-Timestamp}.{raw body}` keyed with the endpoint's secret,
 * and the timestamp (Unix seconds) is within `toleranceSeconds` of now. Pass the body exactly as received
 * (the raw bytes or string, not a re-serialised object). Returns the parsed event; throws
 * WebhookVerificationError saying what failed.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  payload: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  opts: { toleranceSeconds?: number; now?: () => number } = {},
): T {
  const eventId = header(headers, 'x-service-event-id');
  const timestamp = header(headers, 'x-service-timestamp');
  const signature = header(headers, 'x-service-signature');
  if (!eventId || !timestamp || !signature)
    throw new WebhookVerificationError('missing X-Service-Event-Id, X-Service-Timestamp or X-Service-Signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('X-Service-Timestamp is not a Unix time in seconds');
  const nowSeconds = Math.floor((opts.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (opts.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS))
    throw new WebhookVerificationError('the timestamp is outside the tolerance (a replayed or delayed delivery)');
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const expected = createHmac('sha256', secret).update(`${eventId}.${timestamp}.`).update(body).digest();
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new WebhookVerificationError('the signature does not match');
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
