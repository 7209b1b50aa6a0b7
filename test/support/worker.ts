import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { temporalWorkerOptions } from '../../integrations/telemetry/tracing';

// Quiet worker logs in tests: only warnings and errors.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // already installed in this process
}

// Workflow code is bundled once per test file and reused by every worker in it; with tracing on (a test
// installed it first), bundled with the tracing interceptors instead.
const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();
export function workflowBundle(workflowInterceptorModules: string[] = []) {
  const key = workflowInterceptorModules.join(',');
  if (!bundles.has(key))
    bundles.set(
      key,
      bundleWorkflowCode({
        workflowsPath: require.resolve('./test-workflows'),
        workflowInterceptorModules,
        logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
      }),
    );
  return bundles.get(key)!;
}

export interface TestWorker {
  taskQueue: string;
  worker: Worker;
  stop: () => Promise<void>;
}

/** A real worker on a unique task queue, running until stop(). */
export async function startTestWorker(activities: object, taskQueue = `test-${randomUUID()}`): Promise<TestWorker> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const { interceptors, sinks } = temporalWorkerOptions();
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(interceptors?.workflowModules),
    activities,
    ...(interceptors ? { interceptors: { activity: interceptors.activity }, sinks } : {}),
  });
  const running = worker.run();
  return {
    taskQueue,
    worker,
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
