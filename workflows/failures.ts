import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/workflow';
import { ERROR_CATALOGUE, isErrorCode, toErrorObject, type ErrorObject } from '../core/errors';

/** The job's error object from a failed activity (or a child workflow's, a live job's follower): the catalogue code it carried, or INTERNAL_ERROR. */
export function errorFromFailure(err: unknown): ErrorObject {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
    const detail = (cause.details?.[0] as string | null | undefined) ?? undefined;
    return toErrorObject(cause.type, detail, cause.message || ERROR_CATALOGUE[cause.type].message);
  }
  if (cause instanceof TimeoutFailure) return toErrorObject('SOURCE_TIMEOUT', 'activity_timeout');
  return toErrorObject('INTERNAL_ERROR');
}

export function failureCode(err: unknown): string | undefined {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) cause = cause.cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}
