import { proxyActivities, sleep } from '@temporalio/workflow';

// The same change made against the rule: a running workflow recorded before it no longer replays.
const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

export async function greetingWorkflow(name: string): Promise<string> {
  await sleep('1 second');
  return greet(name);
}
