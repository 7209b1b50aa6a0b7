import { context } from '@opentelemetry/api';
import {
  START_AFTER_COMMIT_DEADLINE_MS,
  START_GRACE_MS,
  type StartedRow,
  type StartedTable,
  type WorkflowStarter,
} from './workflow-starts';

// The API's side of starting workflows: each start made right after its accepting commit, without holding up
// the response (domain/workflow-starts.ts says why accepting and starting are two steps).

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
