import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Db } from './db';
import {
  BATCH_WORKFLOW,
  DISCOVERY_WORKFLOW,
  type DiscoveryType,
  type DiscoveryWorkflowInput,
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
/**
 * How long a start after a commit may take (a start takes milliseconds; the
 * client would otherwise retry an unreachable Temporal for a minute). Past it
 * the starter takes over.
 */
export const START_AFTER_COMMIT_DEADLINE_MS = 1_000;
/** The same bound for each start the starter makes, so one pass cannot hang while Temporal is down. */
const STARTER_DEADLINE_MS = 5_000;
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

/** Starts a discovery's workflow (id from the discovery's id); an existing one counts as started. */
export async function startDiscoveryWorkflow(starter: WorkflowStarter, type: DiscoveryType, discoveryId: string): Promise<StartOutcome> {
  const input: DiscoveryWorkflowInput = { type, discoveryId };
  try {
    await starter.temporal.workflow.start(DISCOVERY_WORKFLOW, {
      taskQueue: starter.taskQueue,
      workflowId: type === 'video' ? workflowIds.videoDiscovery(discoveryId) : workflowIds.languageDiscovery(discoveryId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
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
 * Starts workflows right after their accepting commits, without holding up the
 * response: a request commits, hands the start here and answers 202, so
 * acceptance costs what the database costs, not a Temporal round trip. At most
 * `concurrency` starts are in flight per API process; when more than
 * `maxPending` wait (Temporal slow or down), the rest are left to the starter,
 * which finds them by their null workflow_started_at. Nothing here must
 * survive the process: the committed rows are the record.
 */
export class StartDispatcher {
  private inFlight = 0;
  private readonly waiting: { what: string; start: () => Promise<unknown> }[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly starter: WorkflowStarter,
    private readonly onError: (err: unknown, what: string) => void,
    private readonly opts: { concurrency: number; maxPending: number } = { concurrency: 16, maxPending: 2_000 },
  ) {}

  dispatch(what: string, start: () => Promise<unknown>): void {
    if (this.waiting.length >= this.opts.maxPending) {
      this.onError(new Error(`more than ${this.opts.maxPending} starts waiting`), what);
      return;
    }
    this.waiting.push({ what, start });
    this.pump();
  }

  /** Resolves once nothing is waiting or in flight (shutdown, tests). */
  async drain(): Promise<void> {
    if (this.inFlight === 0 && this.waiting.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < this.opts.concurrency && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.inFlight++;
      void this.starter.temporal
        .withDeadline(Date.now() + START_AFTER_COMMIT_DEADLINE_MS, next.start)
        .catch((err) => this.onError(err, next.what))
        .finally(() => {
          this.inFlight--;
          this.pump();
          if (this.inFlight === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }
}

export interface StarterPass {
  jobs: number;
  batches: number;
  uploads: number;
  discoveries: number;
}

/**
 * One pass of the starter: workflows of committed jobs, batches, discoveries and upload
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
  const bounded = <T>(fn: () => Promise<T>) => starter.temporal.withDeadline(Date.now() + STARTER_DEADLINE_MS, fn);
  for (const { id } of jobs) {
    await bounded(() => startJobWorkflow(starter, id));
    // Known to exist now (started here, or by the API, or still waiting for a worker).
    await db.job.updateMany({ where: { id, workflowStartedAt: null }, data: { workflowStartedAt: new Date() } });
  }
  const batches = await db.batch.findMany({
    where: { workflowStartedAt: null, createdAt: { lt: before } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: BATCH_SIZE,
  });
  for (const { id } of batches) await bounded(() => startBatchWorkflow(starter, db, id));
  const uploads = await db.upload.findMany({
    where: { status: 'verifying', verificationRequestedAt: { lt: new Date(now.getTime() - UPLOAD_VERIFY_GRACE_MS) } },
    select: { id: true },
    take: BATCH_SIZE,
  });
  for (const { id } of uploads) await bounded(() => startUploadVerification(starter, id));
  const pendingDiscovery = { workflowStartedAt: null, status: 'queued', createdAt: { lt: before } };
  const discoveries = [
    ...(await db.videoDiscovery.findMany({ where: pendingDiscovery, select: { id: true }, take: BATCH_SIZE })).map((d) => ({
      type: 'video' as const,
      id: d.id,
    })),
    ...(await db.languageDiscovery.findMany({ where: pendingDiscovery, select: { id: true }, take: BATCH_SIZE })).map((d) => ({
      type: 'language' as const,
      id: d.id,
    })),
  ];
  for (const { type, id } of discoveries) {
    await bounded(() => startDiscoveryWorkflow(starter, type, id));
    const known = { where: { id, workflowStartedAt: null }, data: { workflowStartedAt: new Date() } };
    if (type === 'video') await db.videoDiscovery.updateMany(known);
    else await db.languageDiscovery.updateMany(known);
  }
  return { jobs: jobs.length, batches: batches.length, uploads: uploads.length, discoveries: discoveries.length };
}
