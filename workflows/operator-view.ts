import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { ErrorObject } from '../core/errors';
import {
  DEFAULT_RETRY,
  jobViewQuery,
  retryDelayMs,
  retryScheduledSignal,
  searchAttributes as sa,
  type JobWorkflowView,
  type RetryNotice,
  type WorkStatus,
} from './definitions';

/**
 * What an operator sees of a job or a discovery while its workflow runs (README,
 * "Operating it: the Temporal UI runbook"): the JobStatus, JobStage,
 * RetryAttempt and ErrorCode search attributes, the current details in the UI,
 * and for jobs the answer of jobViewQuery. The workflow reports each move here,
 * so the three never disagree; an activity that Temporal will retry reports
 * the wait (retryScheduledSignal, sent by activities/failures.ts).
 */
export class OperatorView {
  readonly view: JobWorkflowView;
  private doing = 'Queued: waiting for the first step.';
  private retryOf: string | null = null;

  constructor(
    id: string,
    private readonly opts: { cancellable: boolean },
  ) {
    this.view = {
      jobId: id,
      status: 'queued',
      stage: null,
      attempt: 0,
      lastError: null,
      nextAttemptAt: null,
      error: null,
      cancelRefusal: null,
      details: '',
    };
    this.show();
    setHandler(retryScheduledSignal, (notice) => this.retrying(notice));
  }

  /** Answers jobViewQuery with the current view. */
  answerQueries(): void {
    setHandler(jobViewQuery, () => this.view);
  }

  /** A new status or stage: upserted, and any retry of the step before is over. */
  move(status: WorkStatus, stage: string | null, doing: string, also: SearchAttributeUpdatePair[] = []): void {
    const pairs: SearchAttributeUpdatePair[] = [...also];
    if (status !== this.view.status) pairs.push({ key: sa.jobStatus, value: status });
    if (stage !== this.view.stage) pairs.push({ key: sa.jobStage, value: stage });
    if (this.view.attempt > 0) pairs.push({ key: sa.retryAttempt, value: null }, { key: sa.errorCode, value: null });
    Object.assign(this.view, { status, stage, attempt: 0, lastError: null, nextAttemptAt: null });
    this.retryOf = null;
    this.doing = doing;
    if (pairs.length > 0) upsertSearchAttributes(pairs);
    this.show();
  }

  /** What the current step has got to, in the details only (no search attribute: nothing an operator filters by). */
  note(doing: string): void {
    this.doing = doing;
    this.show();
  }

  /** Nothing to do after all (the work was already final): no status of ours to show. */
  nothingToDo(doing: string): void {
    upsertSearchAttributes([
      { key: sa.jobStatus, value: null },
      { key: sa.jobStage, value: null },
    ]);
    Object.assign(this.view, { stage: null, cancelRefusal: 'status=final' });
    this.doing = doing;
    this.show();
  }

  /** From here on the update `cancel` is refused, for this reason. */
  refuseCancel(why: string): void {
    this.view.cancelRefusal = why;
    this.show();
  }

  /** The end: final status, and the error when failed. */
  finish(status: WorkStatus, error: ErrorObject | null, doing?: string): void {
    const pairs: SearchAttributeUpdatePair[] = [
      { key: sa.jobStatus, value: status },
      { key: sa.jobStage, value: null },
      { key: sa.retryAttempt, value: null },
      { key: sa.errorCode, value: error?.code ?? null },
    ];
    Object.assign(this.view, {
      status,
      stage: null,
      attempt: 0,
      lastError: null,
      nextAttemptAt: null,
      error,
      cancelRefusal: 'status=final',
    });
    this.retryOf = null;
    this.doing =
      doing ?? (error ? `Failed with ${error.code}: ${error.message}${detail(error)}` : `${status[0]!.toUpperCase()}${status.slice(1)}.`);
    upsertSearchAttributes(pairs);
    this.show();
  }

  private retrying(notice: RetryNotice): void {
    // After the last attempt no retry follows: the workflow sees the failure itself.
    if (isFinal(this.view.status) || notice.attempt >= DEFAULT_RETRY.maximumAttempts) return;
    const delayMs = retryDelayMs(notice.attempt, notice.error.retry_after_seconds);
    Object.assign(this.view, {
      attempt: notice.attempt,
      lastError: notice.error,
      nextAttemptAt: new Date(Date.now() + delayMs).toISOString(),
    });
    this.retryOf = notice.activity;
    upsertSearchAttributes([
      { key: sa.retryAttempt, value: notice.attempt },
      { key: sa.errorCode, value: notice.error.code },
    ]);
    this.show();
  }

  private show(): void {
    const v = this.view;
    const lines: string[] = [];
    if (v.lastError && v.nextAttemptAt) {
      lines.push(
        `Waiting to retry ${this.retryOf} at ${v.nextAttemptAt}: attempt ${v.attempt} of ${DEFAULT_RETRY.maximumAttempts} failed with ${v.lastError.code}${detail(v.lastError)}.`,
      );
    }
    lines.push(v.stage ? `Stage ${v.stage}: ${this.doing}` : this.doing);
    if (this.opts.cancellable && !isFinal(v.status)) {
      lines.push(
        v.cancelRefusal
          ? `Cancel: refused (${v.cancelRefusal}).`
          : 'Cancel: allowed (POST /v1/jobs/{id}/cancel) until audio goes to a recognizer or the result is committed.',
      );
    }
    v.details = lines.join('\n');
    setCurrentDetails(v.details);
  }
}

function isFinal(status: WorkStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

function detail(error: ErrorObject): string {
  return error.details?.detail ? ` (${error.details.detail})` : '';
}
