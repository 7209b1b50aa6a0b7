import {
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { jobStartMetadata, searchAttributes, workflowIds, type BatchWorkflowInput } from './definitions';
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
  // What each child is (its summary and first search attributes); absent in batches started before it was passed.
  const facts = new Map((input.jobs ?? []).map((job) => [job.id, job]));
  const children = await Promise.all(
    input.jobIds.map((jobId) => {
      const job = facts.get(jobId);
      return startChild(jobWorkflow, {
        workflowId: workflowIds.job(jobId),
        args: [{ jobId }],
        // A child job finishes even if its batch's workflow is terminated.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        ...(job ? jobStartMetadata(job) : {}),
      });
    }),
  );
  let final = 0;
  const progress = () => setCurrentDetails(`Waiting for its jobs: ${final} of ${children.length} final (child workflows job-<id>).`);
  progress();
  await Promise.allSettled(
    children.map((c) =>
      c.result().finally(() => {
        final++;
        progress();
      }),
    ),
  );
  const { eventId } = await acts.completeBatch(input.batchId);
  upsertSearchAttributes([{ key: searchAttributes.jobStatus, value: 'completed' }]);
  setCurrentDetails(`Completed: all ${children.length} jobs final, batch.completed recorded.`);
  if (eventId) {
    const workspaceId = workflowInfo().typedSearchAttributes.get(searchAttributes.workspaceId) ?? null;
    await deliverEvent(eventId, { workspaceId, type: 'batch.completed', jobId: null, batchId: input.batchId });
  }
}
