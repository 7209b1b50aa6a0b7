import { createHmac } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of `{event_id}.{timestamp}.{raw_body}`, keyed with the endpoint's secret. */
export function signWebhook(secret: string, eventId: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${eventId}.${timestamp}.${rawBody}`).digest('hex');
}

export function webhookHeaders(secret: string, eventId: string, timestamp: number, rawBody: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'TranscriptService-Webhooks/1.0',
    'X-Service-Event-Id': eventId,
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Signature': signWebhook(secret, eventId, timestamp, rawBody),
  };
}
