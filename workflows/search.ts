import { continueAsNew, proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { HEARTBEAT_TIMEOUT, LOST_ATTEMPT_RETRY, retryPolicy, searchAttributes as sa, type SearchBackfillInput } from './definitions';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: retryPolicy(LOST_ATTEMPT_RETRY),
});

/** Transcripts indexed per step, and steps per run before the history is handed to a new run. */
const STEP = 200;
const STEPS_PER_RUN = 50;

/**
 * Writes the search moments of every transcript written before the index, or by an older version of it
 * (searchIndexBackfillWorkflow in the runbook). Resumable: each step goes on from the last transcript id the one
 * before reached, and a run hands that id to the next (continue-as-new), so a worker killed mid-step repeats
 * only that step (its writes are whole per transcript and the same when repeated). Operators see how far it got
 * in the current details and find it by JobStatus.
 */
export async function searchIndexBackfillWorkflow(input: SearchBackfillInput): Promise<{ indexed: number }> {
  let { afterId, indexed } = input;
  upsertSearchAttributes([{ key: sa.jobStatus, value: 'processing' }]);
  for (let step = 0; step < STEPS_PER_RUN; step++) {
    setCurrentDetails(
      `Indexed ${indexed} transcript(s) for search (index version ${input.version}); going on after ${afterId ?? 'the first id'}.`,
    );
    const done = await acts.indexTranscriptsForSearch.executeWithOptions(
      { summary: `index ${STEP} transcripts after ${afterId ?? 'the start'}` },
      [afterId, STEP],
    );
    indexed += done.indexed;
    if (done.lastId === null) {
      upsertSearchAttributes([{ key: sa.jobStatus, value: 'completed' }]);
      setCurrentDetails(`Done: ${indexed} transcript(s) indexed for search (index version ${input.version}).`);
      return { indexed };
    }
    afterId = done.lastId;
  }
  return continueAsNew<typeof searchIndexBackfillWorkflow>({ ...input, afterId, indexed });
}
