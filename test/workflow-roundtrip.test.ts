import { randomUUID } from 'node:crypto';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { activityDepsFor } from './support/job-stack';
import { probeWorkflow } from './support/probe-workflows';
import { startTestApi, type TestApi } from './support/harness';
import { startTestWorker, type TestWorker } from './support/worker';

let api: TestApi;
let worker: TestWorker;
beforeAll(async () => {
  api = await startTestApi();
  // The service's activities, and the probe's own: a round trip through the database too.
  const ping = async (message: string) => {
    await api.deps.db.$queryRaw`SELECT 1`;
    return `pong:${message}`;
  };
  worker = await startTestWorker({ ...createActivities({ ...activityDepsFor(api, createOutbound({})) }), ping });
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

describe('Temporal round trip', () => {
  it("a workflow started through the API's client completes on the worker", async () => {
    const result = await api.deps.temporal.workflow.execute(probeWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: `probe-${randomUUID()}`,
      args: ['hello'],
    });
    expect(result).toBe('pong:hello');
  });
});
