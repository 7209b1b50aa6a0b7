import { ApplicationFailure } from '@temporalio/common';
import { searchEmbeddingFollowerWorkflow } from '../../workflows/search';
import { useTimeSkipping } from '../support/time-skipping';

// The search embedding follower on the time-skipping server, its activity mocked (the activity itself, on the real
// database and model, is in test/search-meaning.test.ts): batch after batch while moments wait, a pause when none
// does, a failed batch waited out rather than ending the follower, and its count handed to the next run.

const ts = useTimeSkipping();

it('embeds batch after batch, waits when none is left, outlives a failed batch, and hands its count to a new run', async () => {
  const at: number[] = [];
  const embedPendingMoments = jest.fn(async (limit: number) => {
    expect(limit).toBe(32);
    at.push(await ts.now());
    const call = at.length;
    if (call <= 3) return { embedded: 32, pending: 100 - 32 * call, model: 'e5-test' };
    if (call === 4) throw ApplicationFailure.nonRetryable('the database is away');
    if (call === 6) return { embedded: 5, pending: 0, model: 'e5-test' };
    return { embedded: 0, pending: 0, model: 'e5-test' };
  });
  const { taskQueue, workflowId } = ts.ids();
  await ts.withWorker(taskQueue, { embedPendingMoments }, async () => {
    const first = await ts.env.client.workflow.start(searchEmbeddingFollowerWorkflow, {
      taskQueue,
      workflowId,
      args: [{ embeddingTaskQueue: taskQueue, idleSeconds: 5, embedded: 0 }],
    });
    // 500 batches a run, each empty one followed by 5 s of waiting: 40 minutes of workflow time.
    for (let i = 0; i < 200 && embedPendingMoments.mock.calls.length <= 501; i++) await ts.env.sleep('1 minute');
    const latest = ts.env.client.workflow.getHandle(workflowId);
    const run = await latest.describe();
    expect(run.runId).not.toBe(first.firstExecutionRunId);
    expect(run.status.name).toBe('RUNNING');
    const started = (await latest.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.continuedExecutionRunId).toBe(first.firstExecutionRunId);
    const metadata = await latest.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(JSON.stringify(metadata)).toMatch(/Embedded 101 moment\(s\) with e5-test; 0 waiting\./);
    await latest.terminate('test over');
  });
  // Full batches follow each other at once; an empty one, or a failed one, is followed by the pause.
  expect(at[1]! - at[0]!).toBeLessThan(1000);
  expect(at[2]! - at[1]!).toBeLessThan(1000);
  expect(at[4]! - at[3]!).toBeGreaterThanOrEqual(5000);
  expect(at[6]! - at[5]!).toBeLessThan(1000);
  expect(at[7]! - at[6]!).toBeGreaterThanOrEqual(5000);
}, 180_000);
