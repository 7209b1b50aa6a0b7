import { randomUUID } from 'node:crypto';
import type { JobRequest } from '../schemas/jobs';
import { workflowIds } from '../../workflows/definitions';
import { startBatchWorkflow, startEventDelivery } from '../workflow-starts';
import { recordJobEvent } from '../webhooks/events';
import type { Principal } from '../accounts/principal';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';
import { requestHash, type IdempotencyScope } from '../idempotency';
import { acceptWork } from '../accept-work';
import {
  assertWebhookEndpoint,
  findReusable,
  initialHold,
  jobRowData,
  jobTextRows,
  resolveJobSource,
  submissionOf,
  type JobServiceDeps,
  type NewJobRow,
} from '../jobs/submit';
import { PLANS } from '../../core/plans';
import { batchStatus } from './status';

export interface BatchRequest {
  items: JobRequest[];
  webhook_endpoint_id?: string;
  metadata?: Record<string, string>;
}

type BatchRow = { id: string; workspaceId: string; metadata: unknown; totalItems: number; createdAt: Date };
type ItemRow = { id: string; itemIndex: number | null; status: string };

export function toBatchView(batch: BatchRow, jobs: ItemRow[]) {
  const statuses = jobs.map((j) => j.status);
  return {
    id: batch.id,
    status: batchStatus(statuses),
    total_items: batch.totalItems,
    succeeded_items: statuses.filter((s) => s === 'succeeded').length,
    failed_items: statuses.filter((s) => s === 'failed').length,
    cancelled_items: statuses.filter((s) => s === 'cancelled').length,
    items: [...jobs]
      .sort((a, b) => (a.itemIndex ?? 0) - (b.itemIndex ?? 0))
      .map((j) => ({ job_id: j.id, item_index: j.itemIndex ?? 0, status: j.status })),
    metadata: batch.metadata as Record<string, string>,
    created_at: batch.createdAt.toISOString(),
  };
}

export async function getBatch(db: Db, workspaceId: string, id: string) {
  const batch = await db.batch.findFirst({
    where: { id, workspaceId },
    include: { jobs: { select: { id: true, itemIndex: true, status: true } } },
  });
  if (!batch) throw new ServiceError('NOT_FOUND', 'id', { message: 'No batch with this id in this workspace.' });
  return toBatchView(batch, batch.jobs);
}

/**
 * POST /v1/batches: the whole batch or nothing. Every item is checked first
 * (errors name `items[i].field`), then one transaction writes the batch, every
 * child job and every child's hold (all or none); the parent workflow starts
 * after the commit (or, if that start is lost, by the starter).
 */
export async function submitBatch(deps: JobServiceDeps, principal: Principal, req: BatchRequest, idempotency: IdempotencyScope) {
  const limit = PLANS[principal.plan].batchSize;
  if (req.items.length > limit) {
    throw new ServiceError('PLAN_REQUIRED', `items: at most ${limit} per batch on the ${PLANS[principal.plan].name} plan`, {
      message: `The ${PLANS[principal.plan].name} plan allows ${limit} items per batch; a larger plan allows more.`,
    });
  }
  const batchId = randomUUID();
  const rows: NewJobRow[] = [];
  for (const [i, item] of req.items.entries()) {
    const at = (field: string) => `items[${i}].${field}`;
    const job = submissionOf(item);
    const source = await resolveJobSource(deps.db, principal, job, deps, at);
    await assertWebhookEndpoint(deps.db, principal.workspaceId, item.webhook_endpoint_id, at('webhook_endpoint_id'));
    rows.push({ id: randomUUID(), job, source, batchId, itemIndex: i });
  }
  await assertWebhookEndpoint(deps.db, principal.workspaceId, req.webhook_endpoint_id, 'webhook_endpoint_id');

  // Read before the transaction: the reuse rule needs no lock.
  const cached = await Promise.all(
    rows.map((r) => findReusable(deps.db, principal.workspaceId, jobRowData(principal, r, null, null).reuseKey)),
  );
  const needHold = rows.filter((_, i) => !cached[i]);
  const amounts = needHold.map((r) => initialHold(r.job.spec));

  // One accepting transaction for every item (domain/accept-work.ts); the parent workflow started after the commit.
  const outcome = await acceptWork(deps.db, deps.starts, {
    principal,
    idempotency,
    hash: requestHash(req),
    resource: { type: 'batch', id: batchId },
    holds: amounts,
    holdReason: `batch ${batchId}`,
    jobsAdded: needHold.length,
    shortfallDetail: 'items',
    timeoutMs: 30_000,
    create: async (tx, holdIds) => {
      await tx.batch.create({
        data: {
          id: batchId,
          workspaceId: principal.workspaceId,
          webhookEndpointId: req.webhook_endpoint_id ?? null,
          metadata: req.metadata ?? {},
          totalItems: rows.length,
          workflowId: workflowIds.batch(batchId),
        },
      });
      let h = 0;
      const jobs = rows.map((row, i) => {
        const c = cached[i];
        return jobRowData(principal, row, c ? null : holdIds[h++]!, c ? { transcriptId: c.id, title: c.title } : null);
      });
      await tx.job.createMany({ data: jobs });
      await tx.jobText.createMany({ data: jobTextRows(rows.filter((_r, i) => !cached[i])) });
      // An item a retained transcript answers is final now, and no job workflow runs for it: its own endpoint's
      // event is recorded here and delivered after the commit (as for a single job, domain/jobs/submit.ts).
      const events: { eventId: string; jobId: string }[] = [];
      for (const [i, job] of jobs.entries()) {
        const answer = cached[i];
        if (!answer || !job.webhookEndpointId) continue;
        const outcome = { type: 'job.succeeded', resultId: answer.id } as const;
        const eventId = await recordJobEvent(tx, { ...job, endpointId: job.webhookEndpointId }, outcome);
        if (eventId) events.push({ eventId, jobId: job.id });
      }
      return { batchId, events };
    },
    start: {
      label: `batch ${batchId}`,
      run: async ({ events }) => {
        await startBatchWorkflow(deps, deps.db, batchId);
        for (const { eventId, jobId } of events) {
          await startEventDelivery(deps, eventId, { workspaceId: principal.workspaceId, type: 'job.succeeded', jobId, batchId });
        }
      },
    },
  });
  const id = outcome.kind === 'existing' ? outcome.id : outcome.created.batchId;
  return {
    status: outcome.kind === 'existing' ? (200 as const) : (202 as const),
    batch: await getBatch(deps.db, principal.workspaceId, id),
  };
}
