import { Client, ScheduleOverlapPolicy } from '@temporalio/client';
import { RETENTION_SCHEDULE_ID, RETENTION_WORKFLOW } from '../workflows/definitions';

/** Creates the retention schedule once (operators see it in the Temporal UI); an existing one is left as is. */
export async function ensureRetentionSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: RETENTION_SCHEDULE_ID,
      spec: { intervals: [{ every: '10 minutes' }] },
      action: { type: 'startWorkflow', workflowType: RETENTION_WORKFLOW, taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
  }
}
