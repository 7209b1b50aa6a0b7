import type { Db } from './db';
import { Prisma } from '../prisma/generated/client';
import type { JobFacts } from '../workflows/definitions';
import {
  languageDiscoveryFacts,
  markWorkflowsStarted,
  START_GRACE_MS,
  STARTER_DEADLINE_MS,
  STARTER_PAGE_SIZE,
  startBatchWorkflow,
  startDiscoveryWorkflow,
  startEventDelivery,
  startJobWorkflow,
  startUploadVerification,
  videoDiscoveryFacts,
  type StartOutcome,
  type WorkflowStarter,
} from './workflow-starts';

// The starter's pass (run by every worker, worker/workflow-starter.ts): the work committed and not known to
// have a workflow, found by SQL, and started (domain/workflow-starts.ts says why accepting and starting are two
// steps).

/**
 * Starts one pass makes side by side. One after another, the backlog an outage leaves (every commit while
 * Temporal could not start workflows) drained at one start per round trip: in the scale test, 62 lost
 * starts after a PostgreSQL restart took a pass of 16 s, and a job committed then waited 28 s for its workflow.
 */
export const STARTER_CONCURRENCY = 8;

// A verification may legitimately run longer than a job's first step takes to
// appear: only look at uploads `verifying` for this long (a start attempt on a
// running verification just joins it).
const UPLOAD_VERIFY_GRACE_MS = 30_000;
// The event of a job a retained transcript answered is delivered by a workflow started after the accepting
// commit. One whose start was lost has no delivery attempt: look for those this long after they were recorded
// (longer than an attempt takes, so a delivery under way is not started twice) and for a day.
const EVENT_DELIVERY_GRACE_MS = 30_000;
const EVENT_DELIVERY_WINDOW_MS = 24 * 3600_000;
export interface StarterPass {
  /** What the pass found not known to have started, by kind. */
  jobs: number;
  batches: number;
  uploads: number;
  discoveries: number;
  /** Webhook events of jobs answered by a retained transcript with no delivery attempt. */
  events: number;
  /**
   * Of those, the workflows it started: starts that were lost. The rest were running already (the API's start
   * after the commit succeeded, but its record of that did not: the process ended first).
   */
  started: number;
  /**
   * Jobs, batches or discoveries filled their page: more may wait behind it (a backlog after an outage or a
   * burst). Only kinds a pass takes off its own list count: a started one is recorded (workflow_started_at).
   * Uploads stay `verifying` and events undelivered while their workflows run, so a full page of those is
   * read again by the next pass, and following it at once would ask Temporal the same starts without pause.
   */
  backlog: boolean;
}

/**
 * One pass of the starter: workflows of committed jobs, batches, discoveries and upload
 * verifications that are not known to have started. Batch children are left to
 * their batch's workflow. Safe to run on any number of workers at once.
 */
export async function startPendingWorkflows(db: Db, starter: WorkflowStarter, now = new Date()): Promise<StarterPass> {
  const before = new Date(now.getTime() - START_GRACE_MS);
  const jobs = await db.$queryRaw<JobFacts[]>(jobsToStart(before));
  const bounded = <T>(fn: () => Promise<T>) => starter.temporal.withDeadline(Date.now() + STARTER_DEADLINE_MS, fn);
  let started = 0;
  const count = (outcome: StartOutcome) => {
    if (outcome === 'started') started++;
  };
  await eachSideBySide(jobs, async (job) => {
    const { id } = job;
    count(await bounded(() => startJobWorkflow(starter, job)));
    // Known to exist now (started here, or by the API, or still waiting for a worker).
    await markWorkflowsStarted(db, 'jobs', [id]);
  });
  const batches = await db.batch.findMany({
    where: { workflowStartedAt: null, createdAt: { lt: before } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: STARTER_PAGE_SIZE,
  });
  await eachSideBySide(batches, async ({ id }) => count(await bounded(() => startBatchWorkflow(starter, db, id))));
  const uploads = await db.upload.findMany({
    where: { status: 'verifying', verificationRequestedAt: { lt: new Date(now.getTime() - UPLOAD_VERIFY_GRACE_MS) } },
    select: { id: true },
    take: STARTER_PAGE_SIZE,
  });
  await eachSideBySide(uploads, async ({ id }) => count(await bounded(() => startUploadVerification(starter, id))));
  const pendingDiscovery = { workflowStartedAt: null, status: 'queued' as const, createdAt: { lt: before } };
  const videoDiscoveries = await db.videoDiscovery.findMany({
    where: pendingDiscovery,
    select: { id: true, workspaceId: true, kind: true, request: true },
    take: STARTER_PAGE_SIZE,
  });
  const languageDiscoveries = await db.languageDiscovery.findMany({
    where: pendingDiscovery,
    select: { id: true, workspaceId: true, mediaId: true },
    take: STARTER_PAGE_SIZE,
  });
  const discoveries = [
    ...videoDiscoveries.map((d) => ({ type: 'video' as const, facts: videoDiscoveryFacts(d) })),
    ...languageDiscoveries.map((d) => ({ type: 'language' as const, facts: languageDiscoveryFacts(d) })),
  ];
  await eachSideBySide(discoveries, async ({ type, facts }) => {
    const { id } = facts;
    count(await bounded(() => startDiscoveryWorkflow(starter, type, facts)));
    await markWorkflowsStarted(db, type === 'video' ? 'video_discoveries' : 'language_discoveries', [id]);
  });
  const events = await db.$queryRaw<{ id: string; workspaceId: string; type: string; jobId: string; batchId: string | null }[]>(
    reusedJobEventsToStart(now),
  );
  await eachSideBySide(events, async (e) =>
    count(
      await bounded(() =>
        startEventDelivery(starter, e.id, { workspaceId: e.workspaceId, type: e.type, jobId: e.jobId, batchId: e.batchId }),
      ),
    ),
  );
  const pages = [jobs.length, batches.length, videoDiscoveries.length, languageDiscoveries.length];
  return {
    jobs: jobs.length,
    batches: batches.length,
    uploads: uploads.length,
    discoveries: discoveries.length,
    events: events.length,
    started,
    backlog: pages.some((n) => n >= STARTER_PAGE_SIZE),
  };
}

/**
 * The starter's query for jobs whose workflow is not known to exist, committed before `before`: queued
 * single jobs (batch children are started by their batch's workflow). jobs_start_pending_idx holds exactly
 * these rows, so the scan reads the few it returns, however many jobs there are.
 */
export function jobsToStart(before: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT id::text AS id, workspace_id::text AS "workspaceId", platform::text AS platform, media_id AS "mediaId", mode::text AS mode, batch_id::text AS "batchId"
    FROM jobs
    WHERE workflow_started_at IS NULL AND batch_id IS NULL AND status = 'queued' AND created_at < ${before}
    ORDER BY created_at
    LIMIT ${STARTER_PAGE_SIZE}`;
}

/**
 * The starter's query for events whose delivery was never attempted: only those of reused jobs, as every other
 * job's workflow delivers its own event (its first attempt inline). Past the grace (an attempt may be under way)
 * and within the window; the partial index webhook_events_undelivered_idx keeps it to the undelivered few.
 */
export function reusedJobEventsToStart(now: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT e.id::text AS id, e.workspace_id::text AS "workspaceId", e.type, j.id::text AS "jobId", j.batch_id::text AS "batchId"
    FROM webhook_events e
    JOIN webhook_endpoints p ON p.id = e.endpoint_id AND p.enabled
    JOIN jobs j ON e.subject_key LIKE 'job:%' AND j.id = substr(e.subject_key, 5)::uuid AND j.billing_kind = 'cached'
    WHERE e.delivered_at IS NULL
      AND e.created_at < ${new Date(now.getTime() - EVENT_DELIVERY_GRACE_MS)}
      AND e.created_at > ${new Date(now.getTime() - EVENT_DELIVERY_WINDOW_MS)}
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
    ORDER BY e.created_at
    LIMIT ${STARTER_PAGE_SIZE}`;
}

/**
 * Runs `fn` on the items, STARTER_CONCURRENCY at a time. After a failure no new item is taken (Temporal is
 * likely unreachable: the next pass tries again); once the ones under way end, the first failure is thrown.
 */
async function eachSideBySide<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(STARTER_CONCURRENCY, items.length) }, async () => {
      while (next < items.length && !failure) {
        const item = items[next++]!;
        await fn(item).catch((err: unknown) => (failure ??= { err }));
      }
    }),
  );
  if (failure) throw failure.err;
}
