import { proxyActivities } from '@temporalio/workflow';

// Workflows that exist for tests and the benchmark only (bundled with the
// service's workflows by test/support/worker.ts, never by the worker process).

const { ping } = proxyActivities<{ ping(message: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

/** Round trip through a worker: the workflow runs the `ping` activity its test worker provides. */
export async function probeWorkflow(message: string): Promise<string> {
  return ping(message);
}

/** An empty workflow: the benchmarks' baseline for start-to-result latency on the same worker. */
export async function emptyWorkflow(): Promise<null> {
  return null;
}
