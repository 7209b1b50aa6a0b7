import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, ROOT } from '../../stack/proc';

/**
 * The real worker entry point (worker/main.ts) as a process of its own, on `taskQueue`, resolved once it says it
 * runs: for the tests that SIGKILL workers. node with tsx as a loader, not the tsx CLI: that runs the program in
 * a child of its own, which a SIGKILL would orphan.
 */
export async function startWorkerProcess(opts: {
  taskQueue: string;
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      APP_ENV: 'test',
      LOG_LEVEL: 'info',
      TEMPORAL_TASK_QUEUE: opts.taskQueue,
      DATABASE_URL: opts.databaseUrl,
      WORKER_METRICS_PORT: String(await freePort()),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${log}`)), 60_000);
    child.stdout!.on('data', (d) => {
      log += d.toString();
      if (log.includes('worker running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d) => (log += d.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}:\n${log}`)));
  });
  return child;
}

/** SIGKILLs every worker still running and waits for each to exit. */
export async function killAll(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers
      .filter((w) => w.exitCode === null && w.signalCode === null)
      .map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGKILL')))),
  );
}
