import { isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_RETRY, retryPolicy, type DiscoveryWorkflowInput } from './definitions';
import { errorFromFailure } from './failures';
import { OperatorView } from './operator-view';

const retry = retryPolicy(DEFAULT_RETRY);
// Platform calls: one page or one listing, a few requests each with a 15 s budget. Run as local
// activities, so a discovery is one workflow task: no dispatch round trips through the server, which
// were half of POST -> succeeded (bench/RESULTS.md). Retryable source errors are retried by this
// policy; every retry waits on a workflow timer (localRetryThreshold 0), so the wait shows in the
// Temporal UI and a killed worker's discovery is picked up by the workflow task timeout (10 s).
const source = proxyLocalActivities<Activities>({ startToCloseTimeout: '2 minutes', localRetryThreshold: 0, retry });
// State steps: local activities (short database writes, no trip through the task queue), retried without
// limit while the database is away, as the job workflow's are: a discovery never keeps its hold for ever.
const state = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** One video page or one caption-language listing: fetch, then store and charge, or fail and release. */
export async function discoveryWorkflow({ type, discoveryId }: DiscoveryWorkflowInput): Promise<string> {
  // JobStatus, RetryAttempt, ErrorCode and the current details (README, the Temporal UI runbook).
  const track = new OperatorView(discoveryId, { cancellable: false });
  // The fetch marks the discovery processing; it answers null when the discovery is already final.
  const alreadyFinal = () => {
    track.nothingToDo('Already final: nothing to do.');
    return 'already_final';
  };
  try {
    if (type === 'video') {
      track.move('processing', null, 'fetching the video page from the platform.');
      const page = await source.fetchVideoPage(discoveryId);
      if (!page) return alreadyFinal();
      await state.completeVideoDiscovery(discoveryId, page);
    } else {
      track.move('processing', null, "fetching the video's caption languages from the platform.");
      const result = await source.fetchCaptionLanguages(discoveryId);
      if (!result) return alreadyFinal();
      await state.completeLanguageDiscovery(discoveryId, result);
    }
    track.finish('succeeded', null);
    return 'succeeded';
  } catch (err) {
    if (isCancellation(err)) throw err;
    const error = errorFromFailure(err);
    await state.failDiscovery(type, discoveryId, error);
    track.finish('failed', error);
    return 'failed';
  }
}
