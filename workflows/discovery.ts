import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_RETRY, type DiscoveryWorkflowInput } from './definitions';
import { errorFromFailure } from './failures';

const retry = {
  initialInterval: DEFAULT_RETRY.initialIntervalMs,
  backoffCoefficient: DEFAULT_RETRY.backoffCoefficient,
  maximumInterval: DEFAULT_RETRY.maximumIntervalMs,
  maximumAttempts: DEFAULT_RETRY.maximumAttempts,
};
// Platform calls: retryable source errors (rate limits, timeouts) are retried by this policy; the rest fail at once.
const source = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry });
// State steps retry without limit while the database is away: a discovery never keeps its hold for ever.
const state = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '30 seconds' } });

/** One video page or one caption-language listing: fetch, then store and charge, or fail and release. */
export async function discoveryWorkflow({ type, discoveryId }: DiscoveryWorkflowInput): Promise<string> {
  if (!(await state.startDiscovery(type, discoveryId))) return 'already_final';
  try {
    if (type === 'video') await state.completeVideoDiscovery(discoveryId, await source.fetchVideoPage(discoveryId));
    else await state.completeLanguageDiscovery(discoveryId, await source.fetchCaptionLanguages(discoveryId));
    return 'succeeded';
  } catch (err) {
    if (isCancellation(err)) throw err;
    await state.failDiscovery(type, discoveryId, errorFromFailure(err));
    return 'failed';
  }
}
