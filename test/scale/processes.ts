import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../stack/proc';
import { startRecognizer, type RecognizerHandle } from '../../stack/recognizer';

// The scale test's service processes, each the production entry point in its own OS process: the API
// (api/main.ts), the TypeScript worker (worker/main.ts) and the Python recognizer. Each can be SIGKILLed
// (a crash) or SIGTERMed (a deploy), and each one's CPU time is sampled from /proc for docs/capacity.md.

export type ProcessKind = 'api' | 'worker' | 'recognizer';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

export interface ServiceProcess {
  kind: ProcessKind;
  name: string;
  pid: number;
  /** The API's port; 0 for the others. */
  port: number;
  exited: Promise<Exit>;
  alive(): boolean;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds of a process and of its children it has waited for (ffmpeg under a worker), or null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  const split = cpuSecondsSplit(pid);
  return split && split.own + split.reaped;
}

/** cpuSeconds in its two parts: the process's own and its reaped children's (a load generator it ran). */
export function cpuSecondsSplit(pid: number): { own: number; reaped: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { own: (Number(f[11]) + Number(f[12])) / TICKS, reaped: (Number(f[13]) + Number(f[14])) / TICKS };
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a server and all its live children (PostgreSQL's backends), its reaped children included; null
 * for a server that is gone or whose pid is not known (one this process did not start).
 */
export function treeCpuSeconds(rootPid: number | null): number | null {
  if (rootPid === null) return null;
  const own = cpuSeconds(rootPid);
  if (own === null) return null;
  let total = own;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === rootPid) total += (Number(f[11]) + Number(f[12])) / TICKS;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export class ProcessSet {
  private readonly all: ServiceProcess[] = [];
  /**
   * The last CPU reading of each process that ever ran (a killed one keeps its last sample), and its reading
   * when it became ready: what starting it cost (tsx compiling the sources, the model's load) is not work.
   */
  readonly cpu = new Map<string, { kind: ProcessKind; seconds: number; atReady: number }>();
  private readonly sampler: NodeJS.Timeout;
  private seq = 0;
  /** Processes told to go (killed, terminated): any other exit is a crash the checks must see. */
  private readonly toldToGo = new Set<string>();
  private readonly crashes: { name: string; code: number | null; signal: NodeJS.Signals | null }[] = [];

  constructor(
    private readonly opts: {
      env: Record<string, string>;
      logDir: string;
      temporalAddress: string;
      dataDir: string;
      apiPort: () => Promise<number>;
    },
  ) {
    fs.mkdirSync(opts.logDir, { recursive: true });
    this.sampler = setInterval(() => this.sample(), 500);
  }

  private sample(): void {
    for (const p of this.all) {
      if (!p.alive()) continue;
      const s = cpuSeconds(p.pid);
      const known = this.cpu.get(p.name);
      if (s !== null) this.cpu.set(p.name, { kind: p.kind, seconds: s, atReady: known?.atReady ?? s });
    }
  }

  /** Processes that exited without being told to (a crash), with how they ended. */
  unexpectedExits(): { name: string; code: number | null; signal: NodeJS.Signals | null }[] {
    return [...this.crashes];
  }

  live(kind?: ProcessKind): ServiceProcess[] {
    return this.all.filter((p) => p.alive() && (!kind || p.kind === kind));
  }

  async start(kind: ProcessKind): Promise<ServiceProcess> {
    const name = `${kind}-${++this.seq}`;
    const proc = kind === 'recognizer' ? await this.startRecognizer(name) : await this.startNode(kind, name);
    this.all.push(proc);
    void proc.exited.then((e) => {
      if (!this.toldToGo.has(proc.name)) this.crashes.push({ name: proc.name, code: e.code, signal: e.signal });
    });
    const atReady = cpuSeconds(proc.pid) ?? 0;
    this.cpu.set(proc.name, { kind, seconds: atReady, atReady });
    return proc;
  }

  /** A crash: SIGKILL, nothing flushed, nothing finished. */
  async kill(proc: ServiceProcess): Promise<Exit> {
    this.toldToGo.add(proc.name);
    this.sample();
    process.kill(proc.pid, 'SIGKILL');
    return proc.exited;
  }

  /** A deploy's stop: SIGTERM, then the process drains and exits by itself. */
  async terminate(proc: ServiceProcess): Promise<Exit & { tookMs: number }> {
    this.toldToGo.add(proc.name);
    this.sample();
    const t0 = Date.now();
    process.kill(proc.pid, 'SIGTERM');
    const exit = await proc.exited;
    return { ...exit, tookMs: exit.at - t0 };
  }

  /** SIGTERM to every live process (SIGKILL after 30 s); each one's exit. */
  async stopAll(): Promise<{ name: string; kind: ProcessKind; exit: Exit }[]> {
    clearInterval(this.sampler);
    this.sample();
    return Promise.all(
      this.live().map(async (p) => {
        this.toldToGo.add(p.name);
        process.kill(p.pid, 'SIGTERM');
        const killer = setTimeout(() => p.alive() && process.kill(p.pid, 'SIGKILL'), 30_000);
        const exit = await p.exited;
        clearTimeout(killer);
        return { name: p.name, kind: p.kind, exit };
      }),
    );
  }

  private async startNode(kind: 'api' | 'worker', name: string): Promise<ServiceProcess> {
    const entry = kind === 'api' ? 'api/main.ts' : 'worker/main.ts';
    const port = kind === 'api' ? await this.opts.apiPort() : 0;
    const env: Record<string, string> = {
      ...this.opts.env,
      ...(kind === 'api' ? { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } : { WORKER_METRICS_PORT: '0' }),
    };
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = fs.createWriteStream(path.join(this.opts.logDir, `${name}.log`));
    const ready = kind === 'api' ? 'api listening' : 'worker running';
    return this.track(child, kind, name, port, log, ready);
  }

  private track(
    child: ChildProcess,
    kind: 'api' | 'worker',
    name: string,
    port: number,
    log: fs.WriteStream,
    ready: string,
  ): Promise<ServiceProcess> {
    let exit: Exit | undefined;
    const exited = new Promise<Exit>((resolve) =>
      child.once('exit', (code, signal) => {
        exit = { code, signal, at: Date.now() };
        log.end();
        resolve(exit);
      }),
    );
    return new Promise((resolve, reject) => {
      let seen = '';
      let up = false;
      const timer = setTimeout(() => reject(new Error(`${name} did not start in 90 s; log in ${log.path}`)), 90_000);
      const onData = (d: Buffer) => {
        log.write(d);
        if (up) return;
        seen += d.toString();
        if (seen.includes(ready)) {
          up = true;
          clearTimeout(timer);
          resolve({ kind, name, pid: child.pid!, port, exited, alive: () => exit === undefined });
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then((e) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${e.code ?? e.signal}) before it was ready; log in ${log.path}`));
      });
    });
  }

  private async startRecognizer(name: string): Promise<ServiceProcess> {
    const handle: RecognizerHandle = await startRecognizer({
      temporalAddress: this.opts.temporalAddress,
      dataDir: this.opts.dataDir,
      env: { LOG_LEVEL: 'warn' },
      prefix: `[${name}] `,
    });
    let gone = false;
    const exited = handle.exited.then((e) => {
      gone = true;
      return { ...e, at: Date.now() };
    });
    // The handle's own stop only removes its pid file once the process is gone.
    void exited.then(() => handle.stop().catch(() => undefined));
    return { kind: 'recognizer', name, pid: handle.pid, port: 0, exited, alive: () => !gone };
  }
}
