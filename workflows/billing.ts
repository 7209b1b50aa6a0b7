import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const acts = proxyActivities<Activities>({ startToCloseTimeout: '5 minutes', retry: { maximumInterval: '1 minute' } });

/** Run by the `billing-monthly-grants` schedule: the month's credits of every workspace whose credit month has ended. */
export async function monthlyGrantsWorkflow(): Promise<number> {
  return acts.grantDueMonthlyCredits();
}
