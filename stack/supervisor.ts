/**
 * Keeps a process of the local stack running (`npm run dev`: the API, the
 * worker, the recognizer): every exit is logged with its code or signal and
 * how long the process ran, and the process is started again after a backoff
 * (1 s, doubling for each exit that follows a short run, at most 30 s; a run
 * that lasted a minute resets it). A process that cannot start at all is
 * retried the same way. Stopping the supervisor stops the process for good.
 */

export interface RunningProcess {
  pid: number;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface SupervisorOptions<P extends RunningProcess> {
  name: string;
  /** Starts the process; resolves once it runs (the recognizer: once its model is loaded). */
  start: () => Promise<P>;
  log?: (line: string) => void;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run at least this long resets the backoff. */
  stableAfterMs?: number;
}

export interface Supervisor<P extends RunningProcess = RunningProcess> {
  /** The process running now (undefined between an exit and its restart). */
  current(): P | undefined;
  /** Exits seen so far (a restart follows each while the supervisor runs). */
  exits(): number;
  /** Resolves at the next successful (re)start. */
  nextStart(): Promise<P>;
  stop(): Promise<void>;
}

export async function supervise<P extends RunningProcess>(opts: SupervisorOptions<P>): Promise<Supervisor<P>> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const first = opts.firstBackoffMs ?? 1000;
  const max = opts.maxBackoffMs ?? 30_000;
  const stableAfter = opts.stableAfterMs ?? 60_000;
  let running: P | undefined;
  let stopping = false;
  let exitCount = 0;
  let backoff = first;
  let waiters: ((p: P) => void)[] = [];
  let timer: NodeJS.Timeout | undefined;

  const started = (p: P) => {
    running = p;
    const since = Date.now();
    for (const w of waiters) w(p);
    waiters = [];
    void p.exited.then(({ code, signal }) => {
      if (running === p) running = undefined;
      if (stopping) return;
      exitCount++;
      const ranMs = Date.now() - since;
      if (ranMs >= stableAfter) backoff = first;
      log(
        `[supervisor] ${opts.name} (pid ${p.pid}) exited with ${signal ? `signal ${signal}` : `code ${code}`} after ${(ranMs / 1000).toFixed(1)} s; ` +
          `starting it again in ${(backoff / 1000).toFixed(0)} s (exit ${exitCount})`,
      );
      schedule();
    });
  };

  const attempt = async () => {
    timer = undefined;
    if (stopping) return;
    try {
      const p = await opts.start();
      if (stopping) return void (await p.stop());
      started(p);
      log(`[supervisor] ${opts.name} running (pid ${p.pid})`);
    } catch (err) {
      log(
        `[supervisor] ${opts.name} did not start: ${err instanceof Error ? err.message : err}; trying again in ${(backoff / 1000).toFixed(0)} s`,
      );
      schedule();
    }
  };

  function schedule() {
    const wait = backoff;
    backoff = Math.min(max, backoff * 2);
    timer = setTimeout(() => void attempt(), wait);
  }

  started(await opts.start());
  return {
    current: () => running,
    exits: () => exitCount,
    nextStart: () => new Promise((resolve) => waiters.push(resolve)),
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await running?.stop();
    },
  };
}
