import { searchIndexBackfillWorkflow } from '../../workflows/search';
import { searchAttributes as sa } from '../../workflows/definitions';
import { mockActivities, useTimeSkipping } from '../support/time-skipping';

// The search index's backfill on the time-skipping server, its step mocked: it goes on from where each step
// ended, hands its place to a new run every 50 steps, and ends when a step finds nothing left.

const ts = useTimeSkipping();

it('indexes in steps from the last id reached, continues as new with its place, and says how far it got', async () => {
  // 120 steps of 200 transcripts, then none: ids t0000…, in order.
  const steps = 120;
  const acts = mockActivities({
    indexTranscriptsForSearch: async (afterId, limit) => {
      const at = afterId === null ? 0 : Number(afterId.slice(1)) + 1;
      if (at >= steps * limit) return { indexed: 0, lastId: null };
      return { indexed: limit, lastId: `t${String(at + limit - 1).padStart(6, '0')}` };
    },
  });
  const { taskQueue, workflowId } = ts.ids();
  const result = await ts.withWorker(taskQueue, acts, async () => {
    const handle = await ts.env.client.workflow.start(searchIndexBackfillWorkflow, {
      taskQueue,
      workflowId,
      args: [{ version: 1, afterId: null, indexed: 0 }],
    });
    return handle.result();
  });
  expect(result).toEqual({ indexed: steps * 200 });
  const calls = acts.indexTranscriptsForSearch.mock.calls;
  expect(calls).toHaveLength(steps + 1);
  // Each step starts after the last id of the one before, across the runs continue-as-new makes.
  expect(calls[0]).toEqual([null, 200]);
  expect(calls[50]).toEqual(['t009999', 200]);
  expect(calls[steps]).toEqual([`t${String(steps * 200 - 1).padStart(6, '0')}`, 200]);
  const last = ts.env.client.workflow.getHandle(workflowId);
  // The run that ended is the third (50 + 50 + 21 steps), started by the one before with its place.
  const started = (await last.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  expect(started.continuedExecutionRunId).toBeTruthy();
  expect((await last.describe()).typedSearchAttributes.get(sa.jobStatus)).toBe('completed');
}, 120_000);
