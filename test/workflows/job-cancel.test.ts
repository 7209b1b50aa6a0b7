import { WorkflowUpdateFailedError } from '@temporalio/client';
import { cancelUpdate } from '../../workflows/definitions';
import { jobActivities, planFor, steerJob } from '../support/job-workflow';
import { gate, useTimeSkipping } from '../support/time-skipping';

// The cancel update of jobWorkflow: accepted until the audio goes to a
// recognizer, refused from then on. Its own file, so its own server: an
// accepted cancel leaves the cancelled activity behind (the workflow does not
// wait for it), and the test server keeps time skipping locked for an activity
// it never hears back from, which would stall the timed tests next to it.
// These tests need no time skipping.

const ts = useTimeSkipping();

describe('the cancel window', () => {
  it('accepts a cancel while captions are fetched: the job is cancelled, nothing charged or failed', async () => {
    const plan = planFor();
    const fetching = gate();
    const acts = jobActivities(plan, {
      fetchCaptions: async () => {
        await fetching.pass();
        return { transcriptId: 'tr-late', charge: 1 };
      },
    });
    const result = await steerJob(ts, plan, acts, async (handle) => {
      await fetching.reached;
      expect(await handle.executeUpdate(cancelUpdate)).toEqual({ cancelled: true });
    });
    expect(result).toEqual({ status: 'cancelled', eventId: null });
    expect(acts.cancelJob).toHaveBeenCalledWith(plan.jobId);
    expect(acts.completeJob).not.toHaveBeenCalled();
    expect(acts.failJob).not.toHaveBeenCalled();
  });

  it('refuses once markAsrStarted ran (stage=submit_asr), and the job finishes', async () => {
    const plan = planFor({ mode: 'transcribe' });
    const cutting = gate();
    const acts = jobActivities(plan, {
      cutAudio: async () => {
        await cutting.pass();
        return { pieces: [{ startMs: 0, endMs: 42_000 }], keys: ['piece-0'], firstPieceSha256: '' };
      },
    });
    const result = await steerJob(ts, plan, acts, async (handle) => {
      await cutting.reached;
      expect(acts.markAsrStarted).toHaveBeenCalled();
      await expectRefused(handle.executeUpdate(cancelUpdate), 'stage=submit_asr');
      cutting.open();
    });
    expect(result).toMatchObject({ status: 'succeeded' });
    expect(acts.cancelJob).not.toHaveBeenCalled();
  });

  // The next two hold a local activity (run inside the workflow task) open. A
  // short workflow task timeout makes the worker report in (and take the update)
  // within a second instead of the default 8 s while it waits.
  it('refuses while the result is being committed (stage=finalize)', async () => {
    const plan = planFor();
    const committing = gate();
    const acts = jobActivities(plan, {
      completeJob: async () => {
        await committing.pass();
        return { status: 'succeeded', eventId: null };
      },
    });
    const result = await steerJob(
      ts,
      plan,
      acts,
      async (handle) => {
        await committing.reached;
        await expectRefused(handle.executeUpdate(cancelUpdate), 'stage=finalize');
        committing.open();
      },
      { workflowTaskTimeout: '1s' },
    );
    expect(result).toMatchObject({ status: 'succeeded' });
    expect(acts.cancelJob).not.toHaveBeenCalled();
  });

  it('refuses once the job is final (status=final), while its event is still being delivered', async () => {
    const plan = planFor();
    const delivering = gate();
    const acts = jobActivities(plan, {
      completeJob: async () => ({ status: 'succeeded', eventId: 'ev-final' }),
      deliverWebhookAttempt: async () => {
        await delivering.pass();
        return 'delivered';
      },
    });
    const result = await steerJob(
      ts,
      plan,
      acts,
      async (handle) => {
        await delivering.reached;
        await expectRefused(handle.executeUpdate(cancelUpdate), 'status=final');
        delivering.open();
      },
      { workflowTaskTimeout: '1s' },
    );
    expect(result).toEqual({ status: 'succeeded', eventId: 'ev-final' });
    expect(acts.cancelJob).not.toHaveBeenCalled();
  });
});

async function expectRefused(update: Promise<unknown>, why: string) {
  const err = await update.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'CANCELLATION_NOT_ALLOWED', details: [why] });
}
