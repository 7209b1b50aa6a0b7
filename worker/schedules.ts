import { Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { MONTHLY_GRANTS_SCHEDULE_ID, MONTHLY_GRANTS_WORKFLOW, RETENTION_SCHEDULE_ID, RETENTION_WORKFLOW } from '../workflows/definitions';

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
