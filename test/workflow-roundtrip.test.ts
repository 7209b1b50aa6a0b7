import { randomUUID } from 'node:crypto';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { activityDepsFor } from './support/job-stack';
import { probeWorkflow } from '../workflows/probe';
import { startTestApi, type TestApi } from './support/harness';
import { startTestWorker, type TestWorker } from './support/worker';

let api: TestApi;
let worker: TestWorker;
beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(createActivities({ ...activityDepsFor(api, createOutbound({})) }));
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
