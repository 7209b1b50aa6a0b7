import { continueAsNew, proxyActivities, setCurrentDetails, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { EmbeddingActivities } from '../activities/search';
import {
  EMBEDDING_BATCH,
  HEARTBEAT_TIMEOUT,
  LOST_ATTEMPT_RETRY,
  retryPolicy,
  searchAttributes as sa,
  type SearchBackfillInput,
  type SearchEmbeddingInput,
} from './definitions';

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

/** Batches per run before the history is handed to a new run. */
const EMBEDDING_STEPS_PER_RUN = 500;

/**
 * The search embedding follower: writes the sentence embedding of every moment that has none of the current model,
 * batch after batch, on the embedding workers' queue, and looks again every `idleSeconds` once none is left. New
 * transcripts are found by meaning within seconds of being indexed; after a change of model, every moment is
 * embedded again by the same loop. Each batch is whole or not at all (domain/search/embeddings.ts), so a worker
 * killed mid-batch loses nothing. One per namespace (SEARCH_EMBEDDING_WORKFLOW_ID); its current details say how
 * far it got and how many moments wait.
 */
export async function searchEmbeddingFollowerWorkflow(input: SearchEmbeddingInput): Promise<never> {
  const embeddings = proxyActivities<EmbeddingActivities>({
    taskQueue: input.embeddingTaskQueue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: retryPolicy(LOST_ATTEMPT_RETRY),
  });
  let { embedded } = input;
  upsertSearchAttributes([{ key: sa.jobStatus, value: 'processing' }]);
  for (let step = 0; step < EMBEDDING_STEPS_PER_RUN; step++) {
    let done: Awaited<ReturnType<EmbeddingActivities['embedPendingMoments']>>;
    try {
      done = await embeddings.embedPendingMoments(EMBEDDING_BATCH);
    } catch (err) {
      // Retries spent (the database away for long): the follower waits and goes on, it never ends on its own.
      setCurrentDetails(`Embedded ${embedded} moment(s); the last batch failed (${(err as Error).message}), trying again soon.`);
      await sleep(`${input.idleSeconds} seconds`);
      continue;
    }
    embedded += done.embedded;
    setCurrentDetails(
      `Embedded ${embedded} moment(s) with ${done.model}; ${done.pending >= 10000 ? '10,000 or more' : done.pending} waiting.`,
    );
    if (done.embedded === 0) await sleep(`${input.idleSeconds} seconds`);
  }
  return continueAsNew<typeof searchEmbeddingFollowerWorkflow>({ ...input, embedded });
}
