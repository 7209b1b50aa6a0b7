import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { queuePollers } from '../../integrations/temporal-pollers';
import { freePort, ROOT } from '../../stack/proc';
import { startRecognizer } from '../../stack/recognizer';
import { supervise, type RunningProcess, type Supervisor } from '../../stack/supervisor';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi } from '../support/harness';
import { videositeCaptionRoutes } from '../support/job-stack';
import { startReplayOrigin, type ReplayOrigin } from '../support/replay-origin';

// Issue 23, item 9: with `npm run dev`, a SIGKILLed worker used to stay dead
// (jobs sat in acquire_audio) and a killed recognizer vanished without a log
// line, while /readyz said ready. The local launcher now keeps each process
// running through stack/supervisor.ts (what stack/dev.ts uses), and
// GET /readyz/workers tells whether anything polls the task queues.

const taskQueue = `supervised-${randomUUID()}`;
const recognitionQueue = `supervised-rec-${randomUUID()}`;
let origin: ReplayOrigin;
let api: TestApi;
let databaseUrl: string;
const logs: string[] = [];
const supervisors: Supervisor<RunningProcess>[] = [];

/** The real worker entry point as its own process (node with tsx as a loader: one process, as stack/dev.ts runs it). */
function startWorker(): Promise<RunningProcess> {
  return new Promise((resolve, reject) => {
    void (async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          APP_ENV: 'test',
          LOG_LEVEL: 'info',
          TEMPORAL_TASK_QUEUE: taskQueue,
          RECOGNITION_TASK_QUEUE: recognitionQueue,
          DATABASE_URL: databaseUrl,
          PLATFORM_ORIGIN_OVERRIDE: origin.url,
          WORKER_METRICS_PORT: String(await freePort()),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.once('exit', (code, signal) => r({ code, signal })),
      );
      let out = '';
      const timer = setTimeout(() => reject(new Error(`worker did not start:\n${out}`)), 60_000);
      child.stdout!.on('data', (d) => {
        out += d.toString();
        if (out.includes('worker running')) {
          clearTimeout(timer);
          resolve({
            pid: child.pid!,
            exited,
            stop: async () => {
              if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
              await exited;
            },
          });
        }
      });
      child.stderr!.on('data', (d) => (out += d.toString()));
      void exited.then(({ code }) => reject(new Error(`worker exited with ${code} before it ran:\n${out}`)));
    })();
  });
}

beforeAll(async () => {
  origin = await startReplayOrigin(videositeCaptionRoutes());
  // The worker runs the workflow starter, which looks at every job of its database: one of its own.
  databaseUrl = await privateDatabase('supervised');
  api = await startTestApi({ DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue, RECOGNITION_TASK_QUEUE: recognitionQueue });
});

afterAll(async () => {
  await Promise.all(supervisors.map((s) => s.stop()));
  await api.close();
  await origin.close();
});

const waitUntil = async (what: string, check: () => Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting until ${what}`);
};

test('a SIGKILLed worker and recognizer are logged and started again; readiness follows the pollers; jobs still finish', async () => {
  const readiness = () => request(api.app).get('/readyz/workers');
  // Nothing polls yet.
  expect((await readiness()).status).toBe(503);

  const worker = await supervise({ name: 'worker', start: startWorker, log: (l) => logs.push(l), firstBackoffMs: 500 });
  supervisors.push(worker);
  const recognizer = await supervise({
    name: 'recognizer',
    log: (l) => logs.push(l),
    firstBackoffMs: 500,
    start: () =>
      startRecognizer({
        temporalAddress: process.env.TEMPORAL_ADDRESS!,
        taskQueue: recognitionQueue,
        dataDir: process.env.DATA_DIR ?? '.data',
      }),
  });
  supervisors.push(recognizer);
  await waitUntil('both task queues have pollers', async () => (await readiness()).status === 200);
  const ready = (await readiness()).body;
  expect(ready.task_queues[taskQueue]).toMatchObject({ role: 'jobs', status: 'ok' });
  expect(ready.task_queues[recognitionQueue]).toMatchObject({ role: 'recognition', status: 'ok' });

  // Kill the worker hard, then submit while it is down.
  const first = worker.current()!;
  const restarted = worker.nextStart();
  process.kill(first.pid, 'SIGKILL');
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  const job = await request(api.app)
    .post('/v1/jobs')
    .set(bearer(ws.apiKey))
    .set('Idempotency-Key', randomUUID())
    .send({ source: { url: 'https://www.youtube.com/watch?v=super000001' }, mode: 'captions_only' });
  expect(job.status).toBe(202);
  const second = await restarted;
  expect(second.pid).not.toBe(first.pid);
  expect(logs.join('\n')).toMatch(
    new RegExp(`worker \\(pid ${first.pid}\\) exited with signal SIGKILL after [\\d.]+ s; starting it again in`),
  );
  const done = await request(api.app).get(`/v1/jobs/${job.body.id}`).query({ wait: 25 }).set(bearer(ws.apiKey));
  expect(done.body.status).toBe('succeeded');

  // The recognizer too: its death is a log line, and a new one polls again.
  const rec = recognizer.current()!;
  const recRestarted = recognizer.nextStart();
  process.kill(rec.pid, 'SIGKILL');
  const rec2 = await recRestarted;
  expect(rec2.pid).not.toBe(rec.pid);
  expect(logs.join('\n')).toMatch(new RegExp(`recognizer \\(pid ${rec.pid}\\) exited with signal SIGKILL`));
  await waitUntil('the new recognizer polls', async () =>
    (await queuePollers(api.deps.temporal, 'default', recognitionQueue)).activity.some((id) => id.startsWith(`${rec2.pid}@`)),
  );
  expect(worker.exits()).toBe(1);
  expect(recognizer.exits()).toBe(1);

  // A poller that stopped polling ages out of readiness: seen from 80 s later, the killed processes no longer count.
  const later = await queuePollers(api.deps.temporal, 'default', recognitionQueue, { now: Date.now() + 80_000 });
  expect(later.activity).toEqual([]);
}, 180_000);
