import { ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { workflowIds, type BatchWorkflowInput } from './definitions';
import { jobWorkflow } from './job';
import { deliverEvent } from './webhook';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * The parent of a batch: starts every child job workflow (each an ordinary
 * job), waits until all are final, then records the one batch.completed event.
 */
export async function batchWorkflow(input: BatchWorkflowInput): Promise<void> {
  const children = await Promise.all(
    input.jobIds.map((jobId) =>
      startChild(jobWorkflow, {
        workflowId: workflowIds.job(jobId),
        args: [{ jobId }],
        // A child job finishes even if its batch's workflow is terminated.
        parentClosePolicy: ParentClosePolicy.ABANDON,
      }),
    ),
  );
  await Promise.allSettled(children.map((c) => c.result()));
  const { eventId } = await acts.completeBatch(input.batchId);
  if (eventId) await deliverEvent(eventId);
}
