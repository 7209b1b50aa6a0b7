import { randomUUID } from 'node:crypto';
import type { JobPlan } from '../../workflows/definitions';
import { workflowIds } from '../../workflows/definitions';
import { batchWorkflow } from '../../workflows/batch';
import { failure, jobActivities, planFor } from '../support/job-workflow';
import { gate, mockActivities, useTimeSkipping } from '../support/time-skipping';

// batchWorkflow on the time-skipping server: every child is an ordinary job
// workflow (mocked activities), the batch settles once after all of them.

const ts = useTimeSkipping();

/** Three children told apart by their plan: one succeeds, one fails (private video), one waits at `slow`. */
function batchActivities(jobIds: string[], eventId: string | null, slow: ReturnType<typeof gate>) {
  const plans = new Map<string, JobPlan>(jobIds.map((jobId) => [jobId, planFor({ jobId })]));
  const [, privateJob, slowJob] = jobIds;
  return {
    ...jobActivities(planFor(), {
      startJob: async (jobId) => plans.get(jobId)!,
      fetchCaptions: async (plan) => {
        if (plan.jobId === privateJob) throw failure('SOURCE_PRIVATE');
        if (plan.jobId === slowJob) await slow.pass();
        return { transcriptId: `tr-${plan.jobId}`, charge: 1 };
      },
    }),
    ...mockActivities({ completeBatch: async () => ({ eventId }) }),
  };
}

async function until(check: () => boolean) {
  for (let i = 0; !check(); i++) {
    if (i > 200) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('batchWorkflow', () => {
  it('starts every child, waits until all are final, then completes the batch once and delivers its event', async () => {
    const batchId = randomUUID();
    const jobIds = [randomUUID(), randomUUID(), randomUUID()];
    const slow = gate();
    const acts = batchActivities(jobIds, 'ev-batch', slow);
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      const handle = await ts.env.client.workflow.start(batchWorkflow, {
        taskQueue,
        workflowId: workflowIds.batch(batchId),
        args: [{ batchId, jobIds }],
      });
      await slow.reached;
      await until(() => acts.completeJob.mock.calls.length === 1 && acts.failJob.mock.calls.length === 1);
      // Two children are final, one still works: the batch waits (a batch settled early would show here).
      await new Promise((r) => setTimeout(r, 500));
      expect(acts.completeBatch).not.toHaveBeenCalled();
      slow.open();
      await handle.result();
    });
    expect(acts.startJob.mock.calls.map(([id]) => id).sort()).toEqual([...jobIds].sort());
    for (const jobId of jobIds) {
      const child = await ts.env.client.workflow.getHandle(workflowIds.job(jobId)).describe();
      expect(child).toMatchObject({ type: 'jobWorkflow', status: { name: 'COMPLETED' } });
    }
    expect(acts.completeJob).toHaveBeenCalledTimes(2);
    expect(acts.failJob).toHaveBeenCalledWith(jobIds[1], expect.objectContaining({ code: 'SOURCE_PRIVATE' }));
    expect(acts.completeBatch.mock.calls).toEqual([[batchId]]);
    const settled = [...acts.completeJob.mock.invocationCallOrder, ...acts.failJob.mock.invocationCallOrder];
    expect(acts.completeBatch.mock.invocationCallOrder[0]).toBeGreaterThan(Math.max(...settled));
    // The children named no endpoint (their outcomes carry no event): the batch's event is the only delivery.
    expect(acts.deliverWebhookAttempt.mock.calls).toEqual([['ev-batch', 1, false]]);
  });

  it('delivers nothing when the batch named no endpoint', async () => {
    const batchId = randomUUID();
    const jobIds = [randomUUID(), randomUUID(), randomUUID()];
    const slow = gate();
    slow.open();
    const acts = batchActivities(jobIds, null, slow);
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, () =>
      ts.env.client.workflow.execute(batchWorkflow, { taskQueue, workflowId: workflowIds.batch(batchId), args: [{ batchId, jobIds }] }),
    );
    expect(acts.completeBatch).toHaveBeenCalledTimes(1);
    expect(acts.deliverWebhookAttempt).not.toHaveBeenCalled();
  });
});
