import { randomUUID } from 'node:crypto';
import type { AttemptOutcome } from '../../activities/webhooks';
import { workflowIds } from '../../workflows/definitions';
import { jobWorkflow } from '../../workflows/job';
import { webhookDeliveryWorkflow } from '../../workflows/webhook';
import { jobActivities, planFor } from '../support/job-workflow';
import { mockActivities, useTimeSkipping } from '../support/time-skipping';

// Webhook delivery on the time-skipping server: the production retry schedule
// (DEFAULT_WEBHOOK_DELAYS_MS) runs in workflow time, about a day in a second.

const ts = useTimeSkipping();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The schedule the README promises: 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h. */
const SCHEDULE = [10_000, 30_000, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 8 * HOUR];

/** A delivery activity answering `outcomes` in turn (the last one from then on), noting when each attempt ran. */
function deliveries(outcomes: AttemptOutcome[]) {
  const times: number[] = [];
  const acts = mockActivities({
    deliverWebhookAttempt: async () => {
      times.push(await ts.now());
      return outcomes[Math.min(times.length, outcomes.length) - 1]!;
    },
  });
  return { acts, times };
}

async function deliver(input: { eventId: string; resend?: boolean; startAttempt?: number }, acts: object) {
  const { taskQueue } = ts.ids();
  return ts.withWorker(taskQueue, acts, () =>
    ts.env.client.workflow.execute(webhookDeliveryWorkflow, { taskQueue, workflowId: workflowIds.webhook(input.eventId), args: [input] }),
  );
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

/**
 * The delays of an event's delivery workflow: the timers it started, read from its history, are exactly the schedule
 * (whatever the machine's load), and each attempt ran no sooner than its delay (the attempts' own real run time,
 * which a busy machine stretches, only adds to a gap).
 */
async function expectDelays(eventId: string, actual: number[], expected: number[]) {
  const history = await ts.env.client.workflow.getHandle(workflowIds.webhook(eventId)).fetchHistory();
  const timers = (history.events ?? [])
    .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
    .filter((d) => d !== undefined && d !== null)
    .map((d) => Number(d!.seconds ?? 0) * 1000 + Math.round((d!.nanos ?? 0) / 1e6));
  expect(timers).toEqual(expected);
  expect(actual).toHaveLength(expected.length);
  actual.forEach((delay, i) => expect(delay).toBeGreaterThanOrEqual(expected[i]!));
}

describe('webhookDeliveryWorkflow', () => {
  it('retries after 10 s, 30 s and 2 min, and stops at the first success', async () => {
    const eventId = randomUUID();
    const { acts, times } = deliveries(['failed', 'failed', 'failed', 'delivered']);
    expect(await deliver({ eventId }, acts)).toBe('delivered');
    expect(acts.deliverWebhookAttempt.mock.calls).toEqual([1, 2, 3, 4].map((n) => [eventId, n, false]));
    await expectDelays(eventId, gaps(times), SCHEDULE.slice(0, 3));
  });

  it('gives up after the schedule: 11 attempts over about 23.7 hours', async () => {
    const eventId = randomUUID();
    const { acts, times } = deliveries(['failed']);
    expect(await deliver({ eventId }, acts)).toBe('gave_up');
    expect(acts.deliverWebhookAttempt).toHaveBeenCalledTimes(11);
    await expectDelays(eventId, gaps(times), SCHEDULE);
    expect((times.at(-1)! - times[0]!) / HOUR).toBeCloseTo(23.7, 1);
  });

  it('stops when the endpoint was disabled', async () => {
    const eventId = randomUUID();
    const { acts } = deliveries(['failed', 'endpoint_disabled', 'delivered']);
    expect(await deliver({ eventId }, acts)).toBe('endpoint_disabled');
    expect(acts.deliverWebhookAttempt).toHaveBeenCalledTimes(2);
  });

  it('a resend delivers again, with the resend flag on every attempt of its schedule', async () => {
    const eventId = randomUUID();
    const first = deliveries(['delivered']);
    expect(await deliver({ eventId }, first.acts)).toBe('delivered');
    const resend = deliveries(['failed', 'delivered']);
    expect(await deliver({ eventId, resend: true }, resend.acts)).toBe('delivered');
    expect(resend.acts.deliverWebhookAttempt.mock.calls).toEqual([
      [eventId, 1, true],
      [eventId, 2, true],
    ]);
    await expectDelays(eventId, gaps(resend.times), SCHEDULE.slice(0, 1));
  });
});

describe('deliverEvent (the last step of a job)', () => {
  it('makes the first attempt inside the job; when it fails, the event workflow goes on from attempt 2 after 10 s', async () => {
    const plan = planFor();
    const eventId = randomUUID();
    const times: number[] = [];
    const acts = jobActivities(plan, {
      completeJob: async () => ({ status: 'succeeded', eventId }),
      deliverWebhookAttempt: async (_id, attempt) => {
        times.push(await ts.now());
        return attempt === 1 ? 'failed' : 'delivered';
      },
    });
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      // The job does not wait for the retries: its result comes first.
      const job = await ts.env.client.workflow.start(jobWorkflow, {
        taskQueue,
        workflowId: workflowIds.job(plan.jobId),
        args: [{ jobId: plan.jobId }],
      });
      expect(await job.result()).toEqual({ status: 'succeeded', eventId });
      expect(await ts.env.client.workflow.getHandle(workflowIds.webhook(eventId)).result()).toBe('delivered');
    });
    expect(acts.deliverWebhookAttempt.mock.calls).toEqual([
      [eventId, 1, false],
      [eventId, 2, false],
    ]);
    await expectDelays(eventId, gaps(times), SCHEDULE.slice(0, 1));
  });

  it('when the first attempt cannot be made at all, the event workflow starts from attempt 1', async () => {
    const plan = planFor();
    const eventId = randomUUID();
    let inJob = 0;
    const acts = jobActivities(plan, {
      completeJob: async () => ({ status: 'succeeded', eventId }),
      deliverWebhookAttempt: async () => {
        // The job's own attempt (two tries) breaks; the event workflow's works.
        if (++inJob <= 2) throw new Error('database unreachable');
        return 'delivered';
      },
    });
    const { taskQueue } = ts.ids();
    await ts.withWorker(taskQueue, acts, async () => {
      const job = await ts.env.client.workflow.start(jobWorkflow, {
        taskQueue,
        workflowId: workflowIds.job(plan.jobId),
        args: [{ jobId: plan.jobId }],
      });
      await job.result();
      expect(await ts.env.client.workflow.getHandle(workflowIds.webhook(eventId)).result()).toBe('delivered');
    });
    expect(acts.deliverWebhookAttempt.mock.calls.map((c) => c[1])).toEqual([1, 1, 1]);
  });
});
