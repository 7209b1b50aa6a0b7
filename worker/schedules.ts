import { Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { SEARCH_INDEX_VERSION } from '../domain/search/index';
import { startWorkflowOnce } from '../integrations/temporal-starts';
import {
  MONTHLY_GRANTS_SCHEDULE_ID,
  MONTHLY_GRANTS_WORKFLOW,
  RETENTION_SCHEDULE_ID,
  RETENTION_WORKFLOW,
  SEARCH_BACKFILL_WORKFLOW,
  SEARCH_EMBEDDING_WORKFLOW,
  SEARCH_EMBEDDING_WORKFLOW_ID,
  workflowIds,
  type SearchBackfillInput,
  type SearchEmbeddingInput,
} from '../workflows/definitions';

/** The periodic work, each a schedule operators see in the Temporal UI. */
export const SCHEDULES = [
  // Expired transcripts and discoveries purged.
  { scheduleId: RETENTION_SCHEDULE_ID, workflowType: RETENTION_WORKFLOW, every: '10 minutes' },
  // Monthly credits of yearly plans (and any month no read or Stripe event settled): due within 10 minutes.
  { scheduleId: MONTHLY_GRANTS_SCHEDULE_ID, workflowType: MONTHLY_GRANTS_WORKFLOW, every: '10 minutes' },
] as const;

/** Creates each schedule once; an existing one is left as is (an operator may have paused it). */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  for (const s of SCHEDULES) {
    try {
      await client.schedule.create({
        scheduleId: s.scheduleId,
        spec: { intervals: [{ every: s.every }] },
        action: { type: 'startWorkflow', workflowType: s.workflowType, taskQueue, args: [] },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
      });
    } catch (err) {
      if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
    }
  }
}

/**
 * The search index's backfill for the current index version, started once (a second start of its id is
 * refused, also after it finished): it writes the moments of transcripts written before the index, or by an
 * older version of it, then ends.
 */
export async function ensureSearchBackfill(client: Client, taskQueue: string): Promise<void> {
  await startWorkflowOnce(client, taskQueue, SEARCH_BACKFILL_WORKFLOW, {
    workflowId: workflowIds.searchBackfill(SEARCH_INDEX_VERSION),
    args: [{ version: SEARCH_INDEX_VERSION, afterId: null, indexed: 0 } satisfies SearchBackfillInput],
    staticSummary: `Search index backfill, version ${SEARCH_INDEX_VERSION}`,
  });
}

/**
 * The search embedding follower (workflows/search.ts), started when none runs: it runs for as long as the service
 * does; one that was terminated by an operator is started again by the next worker start.
 */
export async function ensureSearchEmbeddings(client: Client, taskQueue: string, embeddingTaskQueue: string): Promise<void> {
  await startWorkflowOnce(client, taskQueue, SEARCH_EMBEDDING_WORKFLOW, {
    workflowId: SEARCH_EMBEDDING_WORKFLOW_ID,
    restartAfterClose: true,
    args: [{ embeddingTaskQueue, idleSeconds: 5, embedded: 0 } satisfies SearchEmbeddingInput],
    staticSummary: `Search embeddings of new moments, on ${embeddingTaskQueue}`,
  });
}
