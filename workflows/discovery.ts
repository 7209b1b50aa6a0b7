import { isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_RETRY, type DiscoveryWorkflowInput } from './definitions';
import { errorFromFailure } from './failures';
import { OperatorView } from './operator-view';

const retry = {
  initialInterval: DEFAULT_RETRY.initialIntervalMs,
  backoffCoefficient: DEFAULT_RETRY.backoffCoefficient,
  maximumInterval: DEFAULT_RETRY.maximumIntervalMs,
  maximumAttempts: DEFAULT_RETRY.maximumAttempts,
};
// Platform calls: retryable source errors (rate limits, timeouts) are retried by this policy; the rest fail at once.
const source = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry });
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
  if (!(await state.startDiscovery(type, discoveryId))) {
    track.note('Already final: nothing to do.');
    return 'already_final';
  }
  try {
    if (type === 'video') {
      track.move('processing', null, 'fetching the video page from the platform.');
      await state.completeVideoDiscovery(discoveryId, await source.fetchVideoPage(discoveryId));
    } else {
      track.move('processing', null, "fetching the video's caption languages from the platform.");
      await state.completeLanguageDiscovery(discoveryId, await source.fetchCaptionLanguages(discoveryId));
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
