import { proxyActivities } from '@temporalio/workflow';

// The "before" of test/replay/histories.test.ts's demonstration of the rule for changing a workflow.
const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

export async function greetingWorkflow(name: string): Promise<string> {
  return greet(name);
}
