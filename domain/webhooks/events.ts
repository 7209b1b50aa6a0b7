import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db';
import { ServiceError, type ErrorObject } from '../../core/errors';

/** `job.live_started`: a live job (an HLS playlist) began to transcribe its stream; its end is job.succeeded or job.failed. */
export type EventType = 'job.succeeded' | 'job.failed' | 'batch.completed' | 'job.live_started';

export interface EventBody {
  event_id: string;
  type: EventType;
  created_at: string;
  job_id: string | null;
  batch_id: string | null;
  result_id: string | null;
  metadata: Record<string, string>;
  error: ErrorObject | null;
}

/**
 * Records an event for an endpoint in the caller's transaction (an outbox: the
 * event exists exactly when the state change that caused it committed). The
 * subject key makes it one event per job outcome or per batch, however often
 * the step runs. Returns the event id, or null when there is no enabled endpoint.
 */
export async function recordEvent(
  tx: Tx,
  args: {
    workspaceId: string;
    endpointId: string | null;
    type: EventType;
    subjectKey: string;
    jobId: string | null;
    batchId: string | null;
    resultId: string | null;
    metadata: Record<string, string>;
    error: ErrorObject | null;
  },
): Promise<string | null> {
  if (!args.endpointId) return null;
  const id = randomUUID();
  const createdAt = new Date();
  const payload: EventBody = {
    event_id: id,
    type: args.type,
    created_at: createdAt.toISOString(),
    job_id: args.jobId,
    batch_id: args.batchId,
    result_id: args.resultId,
    metadata: args.metadata,
    error: args.error,
  };
  // One statement on the path from a job's completion to its subscriber: written when the endpoint is this
  // workspace's and enabled, and the subject has no event yet.
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO webhook_events (id, workspace_id, endpoint_id, type, subject_key, payload, created_at)
    SELECT ${id}::uuid, p.workspace_id, p.id, ${args.type}, ${args.subjectKey}, ${JSON.stringify(payload)}::jsonb, ${createdAt}::timestamptz
    FROM webhook_endpoints p
    WHERE p.id = ${args.endpointId}::uuid AND p.workspace_id = ${args.workspaceId}::uuid AND p.enabled
    ON CONFLICT (subject_key) DO NOTHING
    RETURNING id::text`;
  if (inserted[0]) return id;
  // Nothing written: no enabled endpoint (no event), or a retried step whose event exists (that one).
  const endpoint = await tx.webhookEndpoint.findFirst({
    where: { id: args.endpointId, workspaceId: args.workspaceId, enabled: true },
    select: { id: true },
  });
  if (!endpoint) return null;
  const existing = await tx.webhookEvent.findUnique({ where: { subjectKey: args.subjectKey }, select: { id: true } });
  return existing?.id ?? null;
}

/** The subject key of a job's outcome event: one event per job, whichever step records it. */
export const jobEventSubject = (jobId: string) => `job:${jobId}`;

/**
 * A job's outcome event (job.succeeded or job.failed) to the endpoint the job names, in the caller's
 * transaction: recorded by the job's completion or failure, or at acceptance for a job a retained transcript
 * answers. Null when the job names no enabled endpoint.
 */
export function recordJobEvent(
  tx: Tx,
  job: { id: string; workspaceId: string; endpointId: string | null; batchId: string | null; metadata: unknown },
  outcome: { type: 'job.succeeded'; resultId: string } | { type: 'job.failed'; error: ErrorObject | null },
): Promise<string | null> {
  return recordEvent(tx, {
    workspaceId: job.workspaceId,
    endpointId: job.endpointId,
    type: outcome.type,
    subjectKey: jobEventSubject(job.id),
    jobId: job.id,
    batchId: job.batchId,
    resultId: outcome.type === 'job.succeeded' ? outcome.resultId : null,
    metadata: (job.metadata ?? {}) as Record<string, string>,
    error: outcome.type === 'job.failed' ? outcome.error : null,
  });
}

/**
 * A live job's `job.live_started` to the endpoint the job names: recorded once (its own subject key), when the
 * follower cut the stream's first piece. Null when the job names no enabled endpoint.
 */
export async function recordLiveStartedEvent(db: Db, jobId: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const job = await tx.job.findUniqueOrThrow({
      where: { id: jobId },
      select: { id: true, workspaceId: true, webhookEndpointId: true, batchId: true, metadata: true },
    });
    return recordEvent(tx, {
      workspaceId: job.workspaceId,
      endpointId: job.webhookEndpointId,
      type: 'job.live_started',
      subjectKey: `job-live-started:${job.id}`,
      jobId: job.id,
      batchId: job.batchId,
      resultId: null,
      metadata: (job.metadata ?? {}) as Record<string, string>,
      error: null,
    });
  });
}

/** What one delivery attempt needs: the event and the endpoint it goes to. */
export interface EventToDeliver {
  id: string;
  workspaceId: string;
  payload: unknown;
  deliveredAt: Date | null;
  endpoint: { url: string; enabled: boolean; secretCiphertext: string };
}

/**
 * The event and its endpoint in one statement: the first read of a delivery, on the path from a job's
 * completion to the subscriber (one round trip where Prisma's `include` makes two). NOT_FOUND when absent.
 */
export async function eventToDeliver(db: Db, eventId: string): Promise<EventToDeliver> {
  const rows = await db.$queryRaw<(Omit<EventToDeliver, 'endpoint'> & EventToDeliver['endpoint'])[]>`
    SELECT e.id::text AS id, e.workspace_id::text AS "workspaceId", e.payload, e.delivered_at AS "deliveredAt",
           p.url, p.enabled, p.secret_ciphertext AS "secretCiphertext"
    FROM webhook_events e JOIN webhook_endpoints p ON p.id = e.endpoint_id
    WHERE e.id = ${eventId}::uuid`;
  const row = rows[0];
  if (!row) throw new ServiceError('NOT_FOUND', 'event_id', { message: `No webhook event ${eventId}.` });
  const { url, enabled, secretCiphertext, ...event } = row;
  return { ...event, endpoint: { url, enabled, secretCiphertext } };
}

/** What one delivery attempt found: the endpoint's answer (its status), or why there was none. */
export interface DeliveryAttempt {
  eventId: string;
  workspaceId: string;
  attempt: number;
  statusCode: number | null;
  errorMessage: string | null;
  durationMs: number;
}

/** The longest error message the delivery log keeps (the endpoint's answer can be any size). */
export const DELIVERY_ERROR_CHARS = 500;

/**
 * Logs an attempt and, when it succeeded, marks its event delivered, in one statement: a worker that dies
 * between two would leave a delivered event looking undelivered, and the starter's sweep would send it again.
 * One round trip, too, on the path from a job's end to its subscriber. Only a 2xx answer is a delivery; returns
 * whether this was one.
 */
export async function recordDeliveryAttempt(db: Db, a: DeliveryAttempt): Promise<boolean> {
  const succeeded = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
  await db.$executeRaw`
    WITH logged AS (
      INSERT INTO webhook_deliveries (id, event_id, workspace_id, attempt, status_code, error_message, duration_ms, succeeded)
      VALUES (gen_random_uuid(), ${a.eventId}::uuid, ${a.workspaceId}::uuid, ${a.attempt}, ${a.statusCode}::int,
              ${a.errorMessage?.slice(0, DELIVERY_ERROR_CHARS) ?? null}::text, ${a.durationMs}, ${succeeded})
    )
    UPDATE webhook_events SET delivered_at = now() WHERE id = ${a.eventId}::uuid AND ${succeeded}`;
  return succeeded;
}
