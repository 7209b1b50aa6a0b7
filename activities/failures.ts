import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../core/errors';
import { withoutMachinePaths } from '../core/machine-paths';
import { unreachableDependency } from '../integrations/dependency-errors';
import { retryDelayMs, retryScheduledSignal } from '../workflows/definitions';
import { currentActivity, whileHeartbeating } from './heartbeat';

/**
 * The one mapping from the error catalogue to Temporal: a ServiceError becomes
 * an ApplicationFailure whose type is the code, non-retryable unless the
 * catalogue says the code is retryable, and then carrying its own delay (the
 * source's Retry-After, else 5 s, 10 s, 20 s … by attempt: retryDelayMs).
 * Anything else stays an ordinary error (retried after the activity policy's
 * shorter delays, then reported as INTERNAL_ERROR).
 */
export function toTemporalFailure(err: unknown, attempt = currentAttempt()): unknown {
  if (err instanceof ServiceError) {
    return ApplicationFailure.create({
      type: err.code,
      // A job's error is shown to its caller: it names no file of the worker's machine (a scratch path in ffprobe's words).
      message: withoutMachinePaths(err.message),
      nonRetryable: !err.retryable,
      details: [withoutMachinePaths(err.detail) ?? null],
      ...(err.retryable ? { nextRetryDelay: retryDelayMs(attempt, err.retryAfterSeconds) } : {}),
    });
  }
  return err;
}

function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1; // outside an activity (a unit test of the mapping)
  }
}

/** Waits between two tries of an activity body whose dependency did not answer: 0.25 s doubling to 2 s. */
const DEPENDENCY_RETRY_FIRST_MS = 250;
const DEPENDENCY_RETRY_MAX_MS = 2_000;
/** Ends the waiting this long before the attempt's start-to-close timeout, so the attempt fails with the real error. */
const DEPENDENCY_WAIT_MARGIN_MS = 5_000;

/**
 * Runs an activity body again, in the same attempt, while it fails because the service's PostgreSQL or
 * Temporal does not answer (integrations/dependency-errors.ts), until the attempt's timeout is near. A
 * restart of the database is then a pause of the job, not a failed attempt: the attempt keeps its worker
 * and heartbeats, no retry delay is added, and the job's seven attempts are kept for real failures. (Object
 * storage errors are STORAGE_UNAVAILABLE, retried on the catalogue's schedule.) Safe
 * because every activity body is idempotent (a retry runs it again anyway). Local activities are left to
 * their own quick retry policy: they run inside a workflow task and cannot heartbeat.
 */
async function outlastingOutages<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = currentActivity();
  if (!ctx) return fn();
  const { currentAttemptScheduledTimestampMs, startToCloseTimeoutMs } = ctx.info;
  const giveUpAt = currentAttemptScheduledTimestampMs + startToCloseTimeoutMs - DEPENDENCY_WAIT_MARGIN_MS;
  for (let delay = DEPENDENCY_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, DEPENDENCY_RETRY_MAX_MS)) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ServiceError || unreachableDependency(err) === null || Date.now() + delay > giveUpAt) throw err;
      await ctx.sleep(delay); // a cancel of the activity ends the wait (CancelledFailure)
    }
  }
}

/**
 * Runs an activity body (heartbeating while it works, waiting out an unreachable dependency) and converts
 * its failure once, at the boundary.
 */
export async function asActivity<T>(
  fn: () => Promise<T>,
  onRetryableFailure?: (err: ServiceError, attempt: number) => Promise<void>,
): Promise<T> {
  try {
    return await whileHeartbeating(() => outlastingOutages(fn));
  } catch (err) {
    if (err instanceof ServiceError && err.retryable && onRetryableFailure) {
      await onRetryableFailure(err, Context.current().info.attempt).catch(() => undefined);
    }
    throw toTemporalFailure(err);
  }
}

/**
 * Tells this activity's workflow that Temporal will retry it after a retryable
 * error, so the workflow shows the wait (its current details, the RetryAttempt
 * and ErrorCode search attributes, the jobView query). Nothing on the last
 * attempt when the server tells the activity its retry policy (the workflow
 * ignores a notice of its last attempt anyway), and nothing where no client is
 * at hand (MockActivityEnvironment).
 */
export async function announceRetry(err: ServiceError): Promise<void> {
  const { info, client } = Context.current();
  const max = info.retryPolicy?.maximumAttempts;
  if ((max && info.attempt >= max) || !info.workflowExecution) return;
  const { workflowId, runId } = info.workflowExecution;
  const notice = { activity: info.activityType, attempt: info.attempt, error: err.toObject() };
  // Bounded: the failure is reported to Temporal only after this.
  await client.withDeadline(Date.now() + 2_000, () => client.workflow.getHandle(workflowId, runId).signal(retryScheduledSignal, notice));
}
