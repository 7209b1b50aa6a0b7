import { startWorkflowOnce } from '../../integrations/temporal-starts';
import { WEBHOOK_WORKFLOW, webhookStartMetadata, workflowIds, type WebhookDeliveryInput } from '../../workflows/definitions';
import type { AddressPolicy } from '../../integrations/fetch';
import { assertSafeUrl } from '../../integrations/fetch';
import { encryptSecret, randomToken } from '../accounts/secrets';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';

/** Endpoints per workspace (enabled ones; disabled endpoints stay listed but do not count). */
export const MAX_WEBHOOK_ENDPOINTS = 10;
const SECRET_PREFIX = 'whsec_';

type EndpointRow = { id: string; url: string; description: string | null; enabled: boolean; createdAt: Date; disabledAt: Date | null };

export function toEndpointView(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabled: e.enabled,
    created_at: e.createdAt.toISOString(),
    disabled_at: e.disabledAt?.toISOString() ?? null,
  };
}

/** Registers an endpoint; the signing secret is returned here once and stored only encrypted. */
export async function createWebhookEndpoint(
  db: Db,
  secretsKey: string,
  policy: AddressPolicy,
  workspaceId: string,
  input: { url: string; description?: string },
) {
  try {
    await assertSafeUrl(input.url, policy);
  } catch (err) {
    if (err instanceof ServiceError)
      throw new ServiceError(err.code === 'UNSAFE_URL' ? 'UNSAFE_URL' : 'INVALID_URL', 'url', {
        message: err.detail ? `url: ${err.detail}` : err.message,
      });
    throw err;
  }
  const secret = `${SECRET_PREFIX}${randomToken(32)}`;
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
    const count = await tx.webhookEndpoint.count({ where: { workspaceId, enabled: true } });
    if (count >= MAX_WEBHOOK_ENDPOINTS) {
      throw new ServiceError('CONFLICT', 'webhook_endpoints', {
        message: `A workspace can have at most ${MAX_WEBHOOK_ENDPOINTS} enabled webhook endpoints.`,
      });
    }
    const row = await tx.webhookEndpoint.create({
      data: { workspaceId, url: input.url, description: input.description ?? null, secretCiphertext: encryptSecret(secret, secretsKey) },
    });
    return { ...toEndpointView(row), secret };
  });
}

export async function listWebhookEndpoints(db: Db, workspaceId: string) {
  const rows = await db.webhookEndpoint.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toEndpointView);
}

/** Disables an endpoint: it receives nothing more, pending retries stop at their next attempt. */
export async function disableWebhookEndpoint(db: Db, workspaceId: string, id: string): Promise<void> {
  const found = await db.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (!found) throw new ServiceError('NOT_FOUND', 'id', { message: 'No webhook endpoint with this id in this workspace.' });
  if (found.enabled) await db.webhookEndpoint.update({ where: { id }, data: { enabled: false, disabledAt: new Date() } });
}

/** Recent delivery attempts, newest first; the URL is shown as scheme and host only. */
export async function listDeliveries(db: Db, workspaceId: string, limit: number) {
  const rows = await db.webhookDelivery.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    include: { event: { include: { endpoint: true } } },
  });
  return rows.map((d) => ({
    id: d.id,
    event_id: d.eventId,
    event_type: d.event.type,
    endpoint_id: d.event.endpointId,
    url: redact(d.event.endpoint.url),
    attempt: d.attempt,
    status_code: d.statusCode,
    succeeded: d.succeeded,
    error: d.errorMessage,
    duration_ms: d.durationMs,
    created_at: d.createdAt.toISOString(),
  }));
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

/** Resends the event of a delivery attempt as a new delivery workflow; the event_id stays the same. */
export async function resendDelivery(
  db: Db,
  temporal: import('@temporalio/client').Client,
  taskQueue: string,
  workspaceId: string,
  deliveryId: string,
): Promise<{ event_id: string; status: 'resend_scheduled' }> {
  const delivery = await db.webhookDelivery.findFirst({
    where: { id: deliveryId, workspaceId },
    include: { event: { include: { endpoint: true } } },
  });
  if (!delivery) throw new ServiceError('NOT_FOUND', 'id', { message: 'No delivery attempt with this id in this workspace.' });
  if (!delivery.event.endpoint.enabled) throw new ServiceError('CONFLICT', 'endpoint', { message: 'The endpoint is disabled.' });
  const input: WebhookDeliveryInput = { eventId: delivery.eventId, resend: true };
  // subjectKey is job:<id> or batch:<id> (domain/webhooks/events.ts).
  const [subject, subjectId = null] = delivery.event.subjectKey.split(':');
  const facts = {
    workspaceId,
    type: delivery.event.type,
    jobId: subject === 'job' ? subjectId : null,
    batchId: subject === 'batch' ? subjectId : null,
  };
  await startWorkflowOnce(temporal, taskQueue, WEBHOOK_WORKFLOW, {
    workflowId: workflowIds.webhookResend(delivery.eventId, Date.now()),
    args: [input],
    ...webhookStartMetadata(facts, { resend: true }),
  });
  return { event_id: delivery.eventId, status: 'resend_scheduled' };
}
