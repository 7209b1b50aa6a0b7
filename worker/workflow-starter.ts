import type { Logger } from 'pino';
import type { Db } from '../domain/db';
import { STARTER_INTERVAL_MS, type WorkflowStarter } from '../domain/workflow-starts';
import { startPendingWorkflows } from '../domain/pending-starts';

/**
 * The starter loop of a worker process (see domain/workflow-starts.ts): every
 * STARTER_INTERVAL_MS it starts the workflows of committed work whose start was
 * lost. A pass that found a full page (StarterPass.backlog) runs again at once:
 * a backlog (the API's start queue overflowing in a burst, or everything
 * committed while Temporal was down) drains at Temporal's pace, not one page
 * per interval. Every worker runs one; duplicate attempts are rejected by
 * Temporal. Returns a function that stops it.
 */
export function runWorkflowStarter(
  db: Db,
  starter: WorkflowStarter,
  logger: Logger,
  intervalMs: number = STARTER_INTERVAL_MS,
  runPass: typeof startPendingWorkflows = startPendingWorkflows,
): () => Promise<void> {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      let backlog = false;
      try {
        const pass = await runPass(db, starter);
        // Only starts that were lost are news; a job found running already (queued behind others) is not.
        if (pass.started > 0) logger.info(pass, 'started workflows whose start was lost');
        backlog = pass.backlog;
      } catch (err) {
        // Temporal or the database unreachable: the next pass tries again, after the interval.
        logger.warn({ err }, 'workflow starter pass failed');
      }
      // Stopped during the pass: its wake-up went to no sleep, so none is begun (it would last the whole interval).
      if (backlog || stopped) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs).unref();
      });
    }
  })();
  return async () => {
    stopped = true;
    wake?.();
    await loop;
  };
}
