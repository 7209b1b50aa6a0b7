import { request } from 'undici';
import { decryptSecret } from '../domain/accounts/secrets';
import type { Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { webhookHeaders } from '../domain/webhooks/signing';
import { assertSafeUrl, pinnedDispatcher, type AddressPolicy } from '../integrations/fetch';

export interface WebhookDeps {
  db: Db;
  secretsKey: string;
  /** SSRF policy for endpoint URLs (tests allow loopback through it, nothing else). */
  addressPolicy: AddressPolicy;
  /** Tests only: trust this CA for the loopback https receiver. */
  extraCa?: string;
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
      const event = await deps.db.webhookEvent.findUniqueOrThrow({ where: { id: eventId }, include: { endpoint: true } });
      if (event.deliveredAt && !resend) return 'delivered';
      if (!event.endpoint.enabled) return 'endpoint_disabled';
      const rawBody = JSON.stringify(event.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      const started = Date.now();
      let statusCode: number | null = null;
      let errorMessage: string | null = null;
      try {
        // The endpoint's address is checked again at every attempt and the connection pinned to it.
        const checked = await assertSafeUrl(event.endpoint.url, deps.addressPolicy);
        const dispatcher = pinnedDispatcher(checked, deps.addressPolicy, {
          connectTimeoutMs: timeoutMs,
          headersTimeoutMs: timeoutMs,
          bodyTimeoutMs: timeoutMs,
          ...(deps.extraCa ? { ca: deps.extraCa } : {}),
        });
        try {
          const res = await request(checked.url, {
            method: 'POST',
            headers: webhookHeaders(decryptSecret(event.endpoint.secretCiphertext, deps.secretsKey), event.id, timestamp, rawBody),
            body: rawBody,
            dispatcher,
            signal: AbortSignal.timeout(timeoutMs),
          });
          statusCode = res.statusCode;
          await res.body.dump();
        } finally {
          void dispatcher.close();
        }
      } catch (err) {
        errorMessage =
          err instanceof ServiceError
            ? `${err.code}: ${err.detail ?? err.message}`
            : (err as Error).name === 'TimeoutError'
              ? `no answer within ${timeoutMs} ms`
              : (err as Error).message;
      }
      const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
      await deps.db.webhookDelivery.create({
        data: {
          eventId,
          workspaceId: event.workspaceId,
          attempt,
          statusCode,
          errorMessage: errorMessage?.slice(0, 500) ?? null,
          durationMs: Date.now() - started,
          succeeded,
        },
      });
      if (succeeded) await deps.db.webhookEvent.update({ where: { id: eventId }, data: { deliveredAt: new Date() } });
      return succeeded ? 'delivered' : 'failed';
    },
  };
}
