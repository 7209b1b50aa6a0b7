import type { Client } from '@temporalio/client';
import { startWorkflowOnce, unregisteredSearchAttributes, type StartOutcome, type WorkflowStart } from '../integrations/temporal-starts';
import type { Db } from './db';
import { Prisma } from '../prisma/generated/client';
import {
  BATCH_WORKFLOW,
  batchStartMetadata,
  DISCOVERY_WORKFLOW,
  discoveryStartMetadata,
  type DiscoveryFacts,
  type DiscoveryType,
  type DiscoveryWorkflowInput,
  JOB_WORKFLOW,
  jobStartMetadata,
  SEARCH_ATTRIBUTE_KEYS,
  UPLOAD_VERIFY_WORKFLOW,
  WEBHOOK_WORKFLOW,
  webhookStartMetadata,
  workflowIds,
  type BatchWorkflowInput,
  type JobFacts,
  type JobWorkflowInput,
  type WebhookDeliveryInput,
  type WebhookFacts,
} from '../workflows/definitions';

// Accepting work and starting its workflow are two steps. The accepting
// transaction commits the job (its idempotency record, hold and row) without
// any network call under its locks; the workflow is started right after the
// commit. A start that does not happen then (the API process killed in
// between, Temporal unreachable) is made up by the starter: every worker runs
// startPendingWorkflows every STARTER_INTERVAL_MS and starts whatever was
// committed more than START_GRACE_MS ago and is not known to have started.
//
// Exactly once: the workflow id is the job's (batch's) id and a second start is
// rejected (REJECT_DUPLICATE), so racing starters, or a starter racing the API,
// create one workflow. Worst case after a lost start: START_GRACE_MS +
// STARTER_INTERVAL_MS once Temporal is reachable (about 7 s). The grace is longer than the hold of a start
// while the API is busy (MAX_HOLD_MS) and its deadline, so the API's held start never races the starter.

export const START_GRACE_MS = 5_000;
/**
 * How long a start after a commit may take (a start takes milliseconds; the
 * client would otherwise retry an unreachable Temporal for a minute). Past it
 * the starter takes over.
 */
export const START_AFTER_COMMIT_DEADLINE_MS = 1_000;
/** The same bound for each start the starter makes, so one pass cannot hang while Temporal is down. */
export const STARTER_DEADLINE_MS = 5_000;
export const STARTER_INTERVAL_MS = 2_000;
/** Rows of each kind one starter pass reads; a pass that reads a full page runs again at once (runWorkflowStarter). */
export const STARTER_PAGE_SIZE = 200;

export interface WorkflowStarter {
  temporal: Client;
  taskQueue: string;
}

export type { StartOutcome };

/**
 * The service's search attributes (workflows/definitions.ts) that the namespace
 * lacks or has with another type, as `Name=Type`. Temporal refuses the starts
 * and upserts that use an unregistered one, so the worker refuses to run
 * without them (README, "Operating it: the Temporal UI runbook"). null when
 * the server does not say (no operator access).
 */
export function missingSearchAttributes(temporal: Client, namespace: string): Promise<string[] | null> {
  return unregisteredSearchAttributes(temporal, namespace, SEARCH_ATTRIBUTE_KEYS);
}

/** The fields of a job row its workflow's start needs (id, and what the Temporal UI shows of it). */
const JOB_FACTS = { id: true, workspaceId: true, platform: true, mediaId: true, mode: true, batchId: true } as const;

/**
 * Starts the job's workflow, with its static summary and first search
 * attributes (workflows/definitions.ts); a workflow that already exists counts
 * as started.
 */
export async function startJobWorkflow(starter: WorkflowStarter, job: JobFacts): Promise<StartOutcome> {
  const input: JobWorkflowInput = { jobId: job.id };
  return startOnce(starter, JOB_WORKFLOW, { workflowId: workflowIds.job(job.id), args: [input], ...jobStartMetadata(job) });
}

/** A start through the starter's client and task queue (integrations/temporal-starts.ts: exactly once by id). */
const startOnce = (starter: WorkflowStarter, workflowType: string, start: WorkflowStart): Promise<StartOutcome> =>
  startWorkflowOnce(starter.temporal, starter.taskQueue, workflowType, start);

/** Starts the batch's workflow for the children that still need work (reused items are already succeeded). */
export async function startBatchWorkflow(starter: WorkflowStarter, db: Db, batchId: string): Promise<StartOutcome> {
  const children = await db.job.findMany({ where: { batchId, status: 'queued' }, select: JOB_FACTS, orderBy: { itemIndex: 'asc' } });
  const { workspaceId } = await db.batch.findUniqueOrThrow({ where: { id: batchId }, select: { workspaceId: true } });
  const input: BatchWorkflowInput = { batchId, jobIds: children.map((c) => c.id), jobs: children };
  const outcome = await startOnce(starter, BATCH_WORKFLOW, {
    workflowId: workflowIds.batch(batchId),
    args: [input],
    ...batchStartMetadata({ batchId, workspaceId, jobs: children.length }),
  });
  await db.batch.updateMany({ where: { id: batchId, workflowStartedAt: null }, data: { workflowStartedAt: new Date() } });
  return outcome;
}

/** What the Temporal UI shows of a video discovery: its kind and what it lists (the request's one input field). */
export function videoDiscoveryFacts(row: { id: string; workspaceId: string; kind: string; request: unknown }): DiscoveryFacts {
  const req = (row.request ?? {}) as Record<string, unknown>;
  const inputs = ['channel', 'playlist', 'user', 'query'].map((f) => req[f]).filter((v): v is string => typeof v === 'string');
  return { id: row.id, workspaceId: row.workspaceId, kind: row.kind, platform: row.kind.split('_')[0]!, target: inputs.join(' ') };
}

export function languageDiscoveryFacts(row: { id: string; workspaceId: string; mediaId: string }): DiscoveryFacts {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    kind: 'language_discovery',
    platform: 'videosite',
    target: `videosite ${row.mediaId}`,
    mediaId: row.mediaId,
  };
}

/** Starts a discovery's workflow (id from the discovery's id); an existing one counts as started. */
export async function startDiscoveryWorkflow(
  starter: WorkflowStarter,
  type: DiscoveryType,
  discovery: DiscoveryFacts,
): Promise<StartOutcome> {
  const discoveryId = discovery.id;
  const input: DiscoveryWorkflowInput = { type, discoveryId };
  return startOnce(starter, DISCOVERY_WORKFLOW, {
    workflowId: type === 'video' ? workflowIds.videoDiscovery(discoveryId) : workflowIds.languageDiscovery(discoveryId),
    args: [input],
    ...discoveryStartMetadata(discovery),
  });
}

/**
 * Starts the delivery of a recorded webhook event as its own workflow (the one a job's workflow starts when its
 * first attempt fails): for the events that no job workflow delivers, those of jobs a retained transcript
 * answered. An existing delivery workflow counts as started.
 */
export async function startEventDelivery(starter: WorkflowStarter, eventId: string, facts: WebhookFacts): Promise<StartOutcome> {
  const input: WebhookDeliveryInput = { eventId, startAttempt: 1 };
  return startOnce(starter, WEBHOOK_WORKFLOW, {
    workflowId: workflowIds.webhook(eventId),
    args: [input],
    ...webhookStartMetadata(facts, { startAttempt: 1 }),
  });
}

/** Starts an upload's verification (the upload is already `verifying`); joins one that runs. */
export async function startUploadVerification(starter: WorkflowStarter, uploadId: string): Promise<StartOutcome> {
  return startOnce(starter, UPLOAD_VERIFY_WORKFLOW, {
    workflowId: workflowIds.uploadVerify(uploadId),
    args: [uploadId],
    // A verification may run again once the last one closed (the upload is still `verifying` after a crash).
    restartAfterClose: true,
  });
}

/** The rows whose workflow's start the API records; a closed list, as the name goes into the statement's text. */
const STARTED_TABLES = {
  jobs: Prisma.raw('jobs'),
  video_discoveries: Prisma.raw('video_discoveries'),
  language_discoveries: Prisma.raw('language_discoveries'),
} as const;
export type StartedTable = keyof typeof STARTED_TABLES;
/** A row whose workflow a start creates. */
export interface StartedRow {
  table: StartedTable;
  id: string;
}

/** Records that the workflows of these rows exist, so that the starter never asks Temporal about them. */
export async function markWorkflowsStarted(db: Db, table: StartedTable, ids: string[]): Promise<void> {
  await db.$executeRaw`UPDATE ${STARTED_TABLES[table]} SET workflow_started_at = now()
    WHERE id = ANY(${ids}::uuid[]) AND workflow_started_at IS NULL`;
}
