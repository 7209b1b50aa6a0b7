import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Db } from './db';
import {
  BATCH_WORKFLOW,
  JOB_WORKFLOW,
  UPLOAD_VERIFY_WORKFLOW,
  workflowIds,
  type BatchWorkflowInput,
  type JobWorkflowInput,
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
// STARTER_INTERVAL_MS once Temporal is reachable (about 5 s).

export const START_GRACE_MS = 3_000;
export const STARTER_INTERVAL_MS = 2_000;
// A verification may legitimately run longer than a job's first step takes to
// appear: only look at uploads `verifying` for this long (a start attempt on a
// running verification just joins it).
const UPLOAD_VERIFY_GRACE_MS = 30_000;
const BATCH_SIZE = 200;

export interface WorkflowStarter {
  temporal: Client;
  taskQueue: string;
}

export type StartOutcome = 'started' | 'already_started';

/** Starts the job's workflow; a workflow that already exists counts as started. */
export async function startJobWorkflow(starter: WorkflowStarter, jobId: string): Promise<StartOutcome> {
  const input: JobWorkflowInput = { jobId };
  try {
    await starter.temporal.workflow.start(JOB_WORKFLOW, {
      taskQueue: starter.taskQueue,
      workflowId: workflowIds.job(jobId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

/** Starts the batch's workflow for the children that still need work (reused items are already succeeded). */
export async function startBatchWorkflow(starter: WorkflowStarter, db: Db, batchId: string): Promise<StartOutcome> {
  const children = await db.job.findMany({ where: { batchId, status: 'queued' }, select: { id: true }, orderBy: { itemIndex: 'asc' } });
  const input: BatchWorkflowInput = { batchId, jobIds: children.map((c) => c.id) };
  let outcome: StartOutcome = 'started';
  try {
    await starter.temporal.workflow.start(BATCH_WORKFLOW, {
      taskQueue: starter.taskQueue,
      workflowId: workflowIds.batch(batchId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    outcome = 'already_started';
  }
  await db.batch.updateMany({ where: { id: batchId, workflowStartedAt: null }, data: { workflowStartedAt: new Date() } });
  return outcome;
}

/** Starts an upload's verification (the upload is already `verifying`); joins one that runs. */
export async function startUploadVerification(starter: WorkflowStarter, uploadId: string): Promise<StartOutcome> {
  try {
    await starter.temporal.workflow.start(UPLOAD_VERIFY_WORKFLOW, {
      taskQueue: starter.taskQueue,
      workflowId: workflowIds.uploadVerify(uploadId),
      args: [uploadId],
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

/**
 * Right after an accepting commit: start the workflow, and if that fails leave
 * it to the starter. The work is accepted either way; the caller answers 202.
 */
export async function startAfterCommit(start: () => Promise<unknown>, onError: (err: unknown) => void): Promise<void> {
  try {
    await start();
  } catch (err) {
    onError(err);
  }
}

export interface StarterPass {
  jobs: number;
  batches: number;
  uploads: number;
}

/**
 * One pass of the starter: workflows of committed jobs, batches and upload
 * verifications that are not known to have started. Batch children are left to
 * their batch's workflow. Safe to run on any number of workers at once.
 */
export async function startPendingWorkflows(db: Db, starter: WorkflowStarter, now = new Date()): Promise<StarterPass> {
  const before = new Date(now.getTime() - START_GRACE_MS);
  const jobs = await db.job.findMany({
    where: { workflowStartedAt: null, batchId: null, status: 'queued', createdAt: { lt: before } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: BATCH_SIZE,
  });
  for (const { id } of jobs) {
    await startJobWorkflow(starter, id);
    // Known to exist now (started here, or by the API, or still waiting for a worker).
    await db.job.updateMany({ where: { id, workflowStartedAt: null }, data: { workflowStartedAt: new Date() } });
  }
  const batches = await db.batch.findMany({
    where: { workflowStartedAt: null, createdAt: { lt: before } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: BATCH_SIZE,
  });
  for (const { id } of batches) await startBatchWorkflow(starter, db, id);
  const uploads = await db.upload.findMany({
    where: { status: 'verifying', verificationRequestedAt: { lt: new Date(now.getTime() - UPLOAD_VERIFY_GRACE_MS) } },
    select: { id: true },
    take: BATCH_SIZE,
  });
  for (const { id } of uploads) await startUploadVerification(starter, id);
  return { jobs: jobs.length, batches: batches.length, uploads: uploads.length };
}
