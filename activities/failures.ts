import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../domain/errors';
import { whileHeartbeating } from './heartbeat';

/**
 * The one mapping from the error catalogue to Temporal: a ServiceError becomes
 * an ApplicationFailure whose type is the code, non-retryable unless the
 * catalogue says the code is retryable. Anything else stays an ordinary error
 * (retried by the activity's policy, then reported as INTERNAL_ERROR).
 */
export function toTemporalFailure(err: unknown): unknown {
  if (err instanceof ServiceError) {
    return ApplicationFailure.create({
      type: err.code,
      message: err.message,
      nonRetryable: !err.retryable,
      details: [err.detail ?? null],
      ...(err.retryAfterSeconds ? { nextRetryDelay: `${err.retryAfterSeconds}s` } : {}),
    });
  }
  return err;
}

/** Runs an activity body (heartbeating while it works) and converts its failure once, at the boundary. */
export async function asActivity<T>(
  fn: () => Promise<T>,
  onRetryableFailure?: (err: ServiceError, attempt: number) => Promise<void>,
): Promise<T> {
  try {
    return await whileHeartbeating(fn);
  } catch (err) {
    if (err instanceof ServiceError && err.retryable && onRetryableFailure) {
      await onRetryableFailure(err, Context.current().info.attempt).catch(() => undefined);
    }
    throw toTemporalFailure(err);
  }
}
