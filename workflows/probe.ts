import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

/** Round trip through the worker: used by readiness checks and the benchmark baseline. */
export async function probeWorkflow(message: string): Promise<string> {
  return ping(message);
}

/** An empty workflow: the baseline for start-to-result latency. */
export async function emptyWorkflow(): Promise<null> {
  return null;
}
