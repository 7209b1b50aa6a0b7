import { context } from '@opentelemetry/api';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
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
const STARTER_DEADLINE_MS = 5_000;
export const STARTER_INTERVAL_MS = 2_000;
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
/** Rows of each kind one starter pass reads; a pass that reads a full page runs again at once (runWorkflowStarter). */
export const STARTER_PAGE_SIZE = 200;

export interface WorkflowStarter {
  temporal: Client;
  taskQueue: string;
}

export type StartOutcome = 'started' | 'already_started';

/**
 * The service's search attributes (workflows/definitions.ts) that the namespace
 * lacks or has with another type, as `Name=Type`. Temporal refuses the starts
 * and upserts that use an unregistered one, so the worker refuses to run
 * without them (README, "Operating it: the Temporal UI runbook"). null when
 * the server does not say (no operator access).
 */
export async function missingSearchAttributes(temporal: Client, namespace: string): Promise<string[] | null> {
  let registered: Record<string, unknown>;
  try {
    registered = (await temporal.connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch {
    return null;
  }
  return SEARCH_ATTRIBUTE_KEYS.filter((k) => registered[k.name] !== encodeSearchAttributeIndexedValueType(k.type)).map(
    (k) => `${k.name}=${k.type}`,
  );
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

/**
 * Starts a workflow whose id is its work's: a second start of the same id is refused (REJECT_DUPLICATE unless
 * `options` say otherwise) and answered `already_started`, so racing starters and the API start one workflow.
 */
async function startOnce(
  starter: WorkflowStarter,
  workflowType: string,
  options: Omit<WorkflowStartOptions, 'taskQueue'>,
): Promise<StartOutcome> {
  try {
    await starter.temporal.workflow.start(workflowType, {
      taskQueue: starter.taskQueue,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...options,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

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
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
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

/** The longest a submit waits for the starts to catch up (StartDispatcher.caughtUp) before it accepts anyway. */
export const CATCH_UP_WAIT_MS = 2_000;

/** While starts are held, how often the dispatcher asks again whether the process is still busy (`busy`). */
export const HOLD_RECHECK_MS = 10;
/**
 * The longest a start is held while the API is busy; past it the start is made anyway, by the API rather
 * than left to the starters of every worker (which would each ask for the same ones), and submits wait for
 * the starts to catch up (caughtUp). The start, its deadline included, still ends before the starter looks
 * at the row (START_GRACE_MS). 4 s is a little more than one process took to accept a burst of 2,000 (its
 * full queue).
 */
export const MAX_HOLD_MS = START_GRACE_MS - START_AFTER_COMMIT_DEADLINE_MS;

export interface StartDispatcherOptions {
  /** Starts in flight at once (default 16). */
  concurrency?: number;
  /** Starts waiting beyond which the rest are left to the starter (default 2,000). */
  maxPending?: number;
  /** Writes the records of `started` (markWorkflowsStarted); without it they are not kept. */
  markStarted?: (table: StartedTable, ids: string[]) => Promise<void>;
  /**
   * Whether the process is too busy answering requests to make starts now (api/http/request-load.ts): then they
   * wait (the class's comment). Without it nothing is held.
   */
  busy?: () => boolean;
  /** The longest a start is held while the process is busy before it is made anyway (default MAX_HOLD_MS). */
  maxHoldMs?: number;
}

/**
 * Starts workflows right after their accepting commits, without holding up the
 * response: a request commits, hands the start here and answers 202, so
 * acceptance costs what the database costs, not a Temporal round trip. At most
 * `concurrency` starts are in flight per API process; when more than
 * `maxPending` wait (Temporal slow or down), the rest are left to the starter,
 * which finds them by their null workflow_started_at. Nothing here must
 * survive the process: the committed rows are the record.
 *
 * A start dispatched with the row it starts (`record`) is recorded once it succeeded, many rows per
 * statement: one flush at a time, and what arrives meanwhile goes into the next. Without it every job still
 * queued behind others when the starter looked cost one more start RPC (answered "already started"): under
 * a backlog the starter's passes were spent confirming hundreds of running workflows, a job whose start was
 * really lost waited behind them, and Temporal, already the bottleneck, answered three starts per job (the
 * scale test, test/scale/scale.ts). A record lost with the process costs only that confirmation.
 *
 * Answers come first when the process is `busy` (a burst of submits queueing in it): the starts wait until it
 * is not, so the cores answer the requests instead of encoding starts and running them in Temporal, and the
 * starts drain after the burst. A start held `maxHoldMs` is made even while the burst goes on. Under a load
 * the process keeps up with, nothing waits: a start is made as soon as its answer is written.
 */
export class StartDispatcher {
  private inFlight = 0;
  private readonly waiting: { what: string; start: () => Promise<unknown>; record?: StartedRow; at: number }[] = [];
  /** A pump due while starts are held (one at a time). */
  private recheck: NodeJS.Timeout | null = null;
  /** drain() was asked for: nothing is held any more (the process stops, or a test waits for its starts). */
  private draining = false;
  private idle: (() => void)[] = [];
  /** Submits waiting (caughtUp) for the starts to catch up with the hold. */
  private catchingUp: (() => void)[] = [];
  private readonly startedRows = new Map<StartedTable, Set<string>>();
  private marking: Promise<void> | null = null;
  /** Starts left to the starter since the queue last had room (the first is reported at once, the rest as one count). */
  private leftOver = 0;
  private readonly opts: Required<Omit<StartDispatcherOptions, 'markStarted' | 'busy'>> &
    Pick<StartDispatcherOptions, 'markStarted' | 'busy'>;

  constructor(
    private readonly starter: WorkflowStarter,
    private readonly onError: (err: unknown, what: string) => void,
    opts: StartDispatcherOptions = {},
  ) {
    this.opts = {
      concurrency: 16,
      maxPending: 2_000,
      maxHoldMs: MAX_HOLD_MS,
      ...opts,
    };
  }

  /** Starts handed over and not yet made: held while the process is busy, or queued behind those in flight. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Queues `start`; once it succeeded, `record` (when given) is written as started (markWorkflowsStarted). */
  dispatch(what: string, start: () => Promise<unknown>, record?: StartedRow): void {
    if (this.waiting.length >= this.opts.maxPending) {
      // One report per overflow, not one per start: a burst past the queue would otherwise log thousands of lines.
      if (this.leftOver++ === 0) this.onError(new Error(`more than ${this.opts.maxPending} starts waiting`), what);
      return;
    }
    this.reportLeftOver();
    // The start runs later, outside the request: it keeps the request's trace context (no-op when tracing is off).
    const requestContext = context.active();
    this.waiting.push({ what, start: () => context.with(requestContext, start), record, at: Date.now() });
    // After the current I/O turn: the accepting request's answer is written
    // first, not after the start's synchronous encoding work.
    setImmediate(() => this.pump());
  }

  /**
   * Resolves at once when no start has waited maxHoldMs or more in the queue; otherwise when a start is made
   * (one waiting submit per start), when none is overdue any more, or after `maxWaitMs`. A submit waits here
   * before it accepts: a load that lasts past the hold would otherwise be answered faster than its starts are
   * made, the queue would overflow to the starter and the starts fall ever further behind. Waiting, the API
   * accepts about as fast as it starts.
   */
  caughtUp(maxWaitMs: number): Promise<void> {
    if (!this.overdue(Date.now())) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.catchingUp = this.catchingUp.filter((d) => d !== done);
        resolve();
      }, maxWaitMs);
      this.catchingUp.push(done);
    });
  }

  /** A start has waited maxHoldMs or more and is not made yet (in a burst, none has: it is answered sooner). */
  private overdue(now: number): boolean {
    return this.waiting.length > 0 && this.waiting[0]!.at <= now - this.opts.maxHoldMs;
  }

  /** Records that the workflow of this row exists (its start succeeded). */
  private started({ table, id }: StartedRow): void {
    if (!this.opts.markStarted) return;
    const ids = this.startedRows.get(table) ?? new Set<string>();
    this.startedRows.set(table, ids.add(id));
    this.marking ??= this.writeStarted();
  }

  /** Resolves once nothing is waiting or in flight, and the starts made are recorded (shutdown, tests). */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = null;
    this.pump();
    if (this.inFlight > 0 || this.waiting.length > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.draining = false;
    await this.marking;
  }

  private async writeStarted(): Promise<void> {
    // Let the starts that end in this turn join the first statement.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.startedRows.size > 0) {
      const [table, ids] = this.startedRows.entries().next().value!;
      this.startedRows.delete(table);
      await this.opts.markStarted!(table, [...ids]).catch((err) => this.onError(err, `recording ${ids.size} started ${table}`));
    }
    this.marking = null;
  }

  /** The queue has room again: how many more starts the overflow left to the starter, in one report. */
  private reportLeftOver(): void {
    if (this.waiting.length >= this.opts.maxPending) return;
    if (this.leftOver > 1)
      this.onError(new Error(`more than ${this.opts.maxPending} starts were waiting`), `${this.leftOver - 1} more start(s)`);
    this.leftOver = 0;
  }

  /**
   * While the process is busy, the time a start must have been handed over by to be made now (held
   * `maxHoldMs`), with a pump due to look again; null when it is not busy.
   */
  private heldUntil(now: number): number | null {
    if (this.draining || !this.opts.busy?.()) return null;
    const heldUntil = now - this.opts.maxHoldMs;
    if (this.waiting.length > 0 && this.waiting[0]!.at > heldUntil) {
      this.recheck ??= setTimeout(
        () => {
          this.recheck = null;
          this.pump();
        },
        Math.max(1, Math.min(HOLD_RECHECK_MS, this.waiting[0]!.at - heldUntil)),
      );
    }
    return heldUntil;
  }

  private settleIfIdle(): void {
    if (this.inFlight === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private pump(): void {
    this.reportLeftOver();
    const heldUntil = this.heldUntil(Date.now());
    while (this.inFlight < this.opts.concurrency && this.waiting.length > 0) {
      if (heldUntil !== null && this.waiting[0]!.at > heldUntil) break;
      const next = this.waiting.shift()!;
      this.inFlight++;
      void this.starter.temporal
        .withDeadline(Date.now() + START_AFTER_COMMIT_DEADLINE_MS, next.start)
        .then(
          () => next.record && this.started(next.record),
          (err) => this.onError(err, next.what),
        )
        .finally(() => {
          this.inFlight--;
          // A start made lets one waiting submit accept while the starts are still behind: one in for one out.
          this.catchingUp.shift()?.();
          this.pump();
          this.settleIfIdle();
        });
    }
    if (this.catchingUp.length > 0 && !this.overdue(Date.now())) for (const done of this.catchingUp.splice(0)) done();
  }
}

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
