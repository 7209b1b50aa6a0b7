import { patched, proxyActivities, sleep } from '@temporalio/workflow';

// The change made by the rule: the new step only where patched() says the history was made by new code.
const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

export async function greetingWorkflow(name: string): Promise<string> {
  if (patched('pause-before-greeting')) await sleep('1 second');
  return greet(name);
}
