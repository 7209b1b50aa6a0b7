import { decryptSecret } from '../domain/accounts/secrets';
import type { Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { webhookHeaders } from '../domain/webhooks/signing';
import { eventToDeliver, recordDeliveryAttempt } from '../domain/webhooks/events';
import { assertSafeUrl, type AddressPolicy } from '../integrations/fetch';
import type { Outbound } from '../integrations/outbound/http';

export interface WebhookDeps {
  db: Db;
  secretsKey: string;
  /** SSRF policy for endpoint URLs (tests allow loopback through it, nothing else). */
  addressPolicy: AddressPolicy;
  /** The one way requests leave the worker (integrations/outbound/http.ts deliver). */
  outbound: Outbound;
  /** Tests only: trust this CA for the loopback https receiver. */
  caForTests?: string;
  /** Only a 2xx within this time counts. */
  timeoutMs?: number;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'endpoint_disabled';

export function createWebhookActivities(deps: WebhookDeps) {
  const timeoutMs = deps.timeoutMs ?? 5000;
  return {
    /**
     * One delivery attempt of one event: signed at send time, recorded in the
     * delivery log whatever happens. The same event_id on every attempt.
     */
    async deliverWebhookAttempt(eventId: string, attempt: number, resend = false): Promise<AttemptOutcome> {
      const event = await eventToDeliver(deps.db, eventId);
      if (event.deliveredAt && !resend) return 'delivered';
      if (!event.endpoint.enabled) return 'endpoint_disabled';
      const rawBody = JSON.stringify(event.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      const started = Date.now();
      // The endpoint's address is checked again at every attempt; the outbound layer pins the connection to it.
      let answer: { status: number | null; error: string | null };
      try {
        const checked = await assertSafeUrl(event.endpoint.url, deps.addressPolicy);
        answer = await deps.outbound.deliver(checked, {
          headers: webhookHeaders(decryptSecret(event.endpoint.secretCiphertext, deps.secretsKey), event.id, timestamp, rawBody),
          body: rawBody,
          timeoutMs,
          policy: deps.addressPolicy,
          caForTests: deps.caForTests,
        });
      } catch (err) {
        // The address check refused the endpoint (it now resolves to a private address).
        if (!(err instanceof ServiceError)) throw err;
        answer = { status: null, error: `${err.code}: ${err.detail ?? err.message}` };
      }
      const succeeded = await recordDeliveryAttempt(deps.db, {
        eventId,
        workspaceId: event.workspaceId,
        attempt,
        statusCode: answer.status,
        errorMessage: answer.error,
        durationMs: Date.now() - started,
      });
      return succeeded ? 'delivered' : 'failed';
    },
  };
}
