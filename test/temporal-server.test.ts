import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { parse as parseYaml } from 'yaml';
import { probeWorkflow } from './support/probe-workflows';
import { DEV_SERVER_SQLITE_PRAGMAS, DYNAMIC_CONFIG_FILE, dynamicConfigArgs } from '../stack/temporal';
import { workflowBundle } from './support/worker';

// How the project runs its Temporal server. Eager activity dispatch
// (stack/temporal-dynamic-config.yaml): the activity a workflow task schedules
// comes back to the worker that completed that task, with no trip through the
// task queue. One partition per task queue. The dev server's SQLite file is in WAL mode.

describe('Temporal dynamic config', () => {
  it('passes every key of the shared file to the dev server', () => {
    const args = dynamicConfigArgs();
    expect(args).toEqual(expect.arrayContaining(['--dynamic-config-value', 'system.enableActivityEagerExecution=true']));
  });

  it('refuses a key with only constrained values (the dev server takes no constraints)', () => {
    const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'dc-'));
    const file = path.join(dir, 'dc.yaml');
    fs.writeFileSync(file, 'limit.x:\n  - value: 3\n    constraints: { namespace: a }\n');
    try {
      expect(() => dynamicConfigArgs(file)).toThrow(/constrained/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the file docker-compose mounts into its Temporal server', () => {
    const compose = parseYaml(fs.readFileSync(path.join(__dirname, '..', 'docker-compose.yml'), 'utf8')) as {
      services: { temporal: { environment: Record<string, string>; volumes: string[] } };
    };
    const temporal = compose.services.temporal;
    const mount = temporal.volumes.find((v) => v.startsWith('./stack/temporal-dynamic-config.yaml:'))!;
    expect(path.resolve(__dirname, '..', mount.split(':')[0]!)).toBe(DYNAMIC_CONFIG_FILE);
    expect(mount.split(':')[1]).toBe(temporal.environment.DYNAMIC_CONFIG_FILE_PATH);
  });
});

describe('eager activity dispatch on the test server', () => {
  const taskQueue = `eager-${randomUUID()}`;
  const ranOn: string[] = [];
  const workers: { worker: Worker; running: Promise<void>; connection: NativeConnection }[] = [];
  let client: Client;

  beforeAll(async () => {
    const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
    const ping = (name: string) => async (message: string) => {
      ranOn.push(name);
      return `pong:${message}`;
    };
    // Worker "workflows" runs workflow tasks and activities; worker "activities-only"
    // polls the same queue for activities. Through the queue both would get some.
    for (const [name, withWorkflows] of [
      ['workflows', true],
      ['activities-only', false],
    ] as const) {
      const connection = await NativeConnection.connect({ address });
      const worker = await Worker.create({
        connection,
        namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
        taskQueue,
        activities: { ping: ping(name) },
        ...(withWorkflows ? { workflowBundle: await workflowBundle() } : {}),
      });
      workers.push({ worker, running: worker.run(), connection });
    }
    client = new Client({ connection: await Connection.connect({ address }), namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  });

  afterAll(async () => {
    for (const w of workers) w.worker.shutdown();
    for (const w of workers) {
      await w.running;
      await w.connection.close();
    }
    await client.connection.close();
  });

  it("runs a workflow's activity on the worker that scheduled it", async () => {
    for (let i = 0; i < 12; i++) {
      const result = await client.workflow.execute(probeWorkflow, { taskQueue, workflowId: `eager-${randomUUID()}`, args: [`n${i}`] });
      expect(result).toBe(`pong:n${i}`);
    }
    expect(ranOn).toHaveLength(12);
    expect(new Set(ranOn)).toEqual(new Set(['workflows']));
  });

  it('gives the task queue one partition, so no task waits in a partition no poller is on', async () => {
    const partitions = await client.workflowService.listTaskQueuePartitions({
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: { name: taskQueue },
    });
    expect(partitions.workflowTaskQueuePartitions).toHaveLength(1);
    expect(partitions.activityTaskQueuePartitions).toHaveLength(1);
  });
});

describe("the dev server's SQLite file", () => {
  it('is in WAL mode (a write does not wait for readers)', () => {
    expect(DEV_SERVER_SQLITE_PRAGMAS).toContain('journal_mode=wal');
    const file = process.env.TEMPORAL_DB_FILE;
    if (!file) throw new Error('TEMPORAL_DB_FILE is set by the test stack (npm test)');
    // SQLite file header: bytes 18 and 19 are the write and read format versions, 2 in WAL mode, 1 otherwise.
    const header = Buffer.alloc(20);
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, header, 0, 20, 0);
    } finally {
      fs.closeSync(fd);
    }
    expect(header.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    expect([header[18], header[19]]).toEqual([2, 2]);
  });
});
