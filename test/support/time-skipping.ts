import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Activities } from '../../activities';
import { ROOT } from '../../stack/proc';
import { searchAttributeTypes } from '../../stack/temporal';

// The workflow tier: workflows on Temporal's time-skipping test server (the
// Java SDK's, installed by stack/temporal-test-server-setup.sh) with mocked
// activities. Timers and retry backoffs are skipped while a test waits on a
// workflow's result, so production delays (minutes, hours) cost milliseconds.

const SERVER = path.join(ROOT, '.tools/bin/temporal-test-server');

// Worker logs: warnings and errors, less what this tier causes on purpose:
// failing activities (mocks fail to exercise retries and fallbacks), the late
// report of an activity a cancelled job left behind, and core's note that the
// test server keeps no heartbeat details of a failed attempt. Installed before
// ./worker is loaded (below, lazily), whose own install then stands aside.
const ON_PURPOSE = [/^Activity failed$/, /^Activity not found on completion/, /activity_failure_include_heartbeat/];
const printed = new DefaultLogger('WARN');
try {
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (!ON_PURPOSE.some((re) => re.test(entry.message))) printed.log(entry.level, entry.message, entry.meta);
    }),
    telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
  });
} catch {
  // already installed in this process
}
const workflowBundle = async () => (await import('./worker')).workflowBundle();

export interface TimeSkipping {
  /** The environment of this test file (created in beforeAll). */
  readonly env: TestWorkflowEnvironment;
  /**
   * The server's clock, which time skipping moves: call it in a mock to learn
   * when (in workflow time) an attempt ran. Date.now() there is the machine's
   * clock, and the test server stamps an attempt's scheduled time when the
   * retry is decided, before the backoff.
   */
  now(): Promise<number>;
  /** A task queue and workflow id no other test uses. */
  ids(): { taskQueue: string; workflowId: string };
  /** Runs `fn` while a worker with these activities serves `taskQueue`; the worker stops after. */
  withWorker<T>(taskQueue: string, activities: object, fn: () => Promise<T>): Promise<T>;
}

/** One time-skipping server per test file: started in beforeAll, torn down in afterAll. */
export function useTimeSkipping(): TimeSkipping {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    if (!fs.existsSync(SERVER)) throw new Error(`${SERVER} is missing: run bash stack/temporal-test-server-setup.sh (npm test does)`);
    [env] = await Promise.all([
      TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: SERVER } } }),
      workflowBundle(),
    ]);
    // The service's search attributes (workflows/definitions.ts): the test server refuses unregistered ones.
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: searchAttributeTypes(),
    });
  }, 60_000);
  // Workers still running when the file ends (a test that timed out inside withWorker): stopped before the
  // teardown, or they keep the connection, and their polling lingers in the jest process into the next file.
  const running = new Set<{ worker: Worker; settled: Promise<unknown> }>();
  afterAll(async () => {
    for (const { worker } of running) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all([...running].map((r) => r.settled));
    await env?.teardown();
  }, 60_000);
  return {
    get env() {
      if (!env) throw new Error('the time-skipping environment is not started (use it inside a test)');
      return env;
    },
    now() {
      return this.env.currentTimeMs();
    },
    ids() {
      const id = randomUUID();
      return { taskQueue: `tq-${id}`, workflowId: `wf-${id}` };
    },
    async withWorker(taskQueue, activities, fn) {
      const worker = await Worker.create({
        connection: this.env.nativeConnection,
        taskQueue,
        workflowBundle: await workflowBundle(),
        activities,
      });
      const run = worker.runUntil(fn);
      const entry = { worker, settled: run.catch(() => undefined) };
      running.add(entry);
      return run.finally(() => running.delete(entry));
    },
  };
}

type Fn<K extends keyof Activities> = Activities[K] extends (...args: infer P) => infer R ? { args: P; result: R } : never;
export type ActivityMocks<K extends keyof Activities> = { [P in K]: jest.Mock<Fn<P>['result'], Fn<P>['args']> };

/** Typed jest.fn mocks of activities, registered as a worker's activities (plain and local alike). */
export function mockActivities<K extends keyof Activities>(impls: Pick<Activities, K>): ActivityMocks<K> {
  return Object.fromEntries(
    Object.entries(impls).map(([name, impl]) => [name, jest.fn(impl as (...args: unknown[]) => unknown)]),
  ) as ActivityMocks<K>;
}

export interface Gate {
  /** Resolves when an activity reached the gate. */
  reached: Promise<void>;
  /** Lets the waiting activity go on. */
  open(): void;
  /** Inside an activity: waits until the gate opens (or the activity is cancelled, so a worker can always shut down). */
  pass(): Promise<void>;
}

export function gate(): Gate {
  let reached!: () => void;
  let open!: () => void;
  const reachedP = new Promise<void>((r) => (reached = r));
  const opened = new Promise<void>((r) => (open = r));
  return {
    reached: reachedP,
    open,
    async pass() {
      reached();
      await Promise.race([opened, Context.current().cancelled]);
    },
  };
}
