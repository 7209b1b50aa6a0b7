/**
 * Small process helpers shared by the stack scripts.
 *
 * The servers we start (postgres, temporal) are child processes. If our node
 * process is killed hard (SIGKILL, closed terminal), they keep running and hold
 * their port and data files, so the next start would fail. Before starting we
 * look for such a leftover and stop it, unless a live node process still owns
 * it (then another `npm run dev` / `npm test` is using it: the caller decides).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isAlive } from '../core/processes';

export { isAlive };

export const ROOT = path.resolve(__dirname, '..');

/** Parent pid and the parent's command name, from /proc (Linux only). */
function parentOf(pid: number): { ppid: number; comm: string } | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const comm = fs.readFileSync(`/proc/${ppid}/comm`, 'utf8').trim();
    return { ppid, comm };
  } catch {
    return undefined;
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return false;
}

/**
 * Stops a server left running by a previous run that died without cleaning up.
 * `signal` is the server's "shut down now" signal (SIGINT = fast shutdown for postgres).
 * Returns 'in-use' (and leaves it alone) when a live node process owns it.
 */
export async function reclaimLeftover(pid: number, what: string, signal: NodeJS.Signals): Promise<'none' | 'in-use'> {
  if (!pid || !isAlive(pid)) return 'none';
  const parent = parentOf(pid);
  if (!parent || parent.comm === 'node') return 'in-use';
  console.log(`[stack] stopping ${what} left over from an earlier run (pid ${pid})`);
  process.kill(pid, signal);
  if (!(await waitFor(() => !isAlive(pid), 30_000))) {
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), 5_000);
  }
  return 'none';
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Before a server of ours starts on `port`: stops the one a hard-killed run
 * left there (its pid is in `pidFile`), and refuses when another live run owns
 * it or something else holds the port. `shareHint` tells how to use the
 * running server instead (e.g. "TEMPORAL_ADDRESS=127.0.0.1:7233").
 */
export async function claimServerPort(opts: { name: string; port: number; pidFile: string; shareHint: string }): Promise<void> {
  fs.mkdirSync(path.dirname(opts.pidFile), { recursive: true });
  if (fs.existsSync(opts.pidFile)) {
    const pid = Number(fs.readFileSync(opts.pidFile, 'utf8'));
    if ((await reclaimLeftover(pid, `${opts.name} on port ${opts.port}`, 'SIGTERM')) === 'in-use') {
      throw new Error(
        `${opts.name} on port ${opts.port} is already run by another dev/test process (pid ${pid}): stop that first, or set ${opts.shareHint} to share it`,
      );
    }
  }
  if (await portOpen(opts.port)) {
    throw new Error(`Port ${opts.port} is already in use; cannot start ${opts.name} there (set ${opts.shareHint} to use a running server)`);
  }
}

/**
 * `tsx stack/<server>.ts`: starts one server and keeps it running until
 * Ctrl-C or SIGTERM. process.on, not once: a second signal (tsx relays them
 * too) must not kill us mid-stop.
 */
export function serveUntilSignal(label: string, start: () => Promise<{ stop(): Promise<void>; describe: string }>): void {
  (async () => {
    const t0 = Date.now();
    const server = await start();
    console.log(`[${label}] ready in ${Date.now() - t0} ms: ${server.describe}  (Ctrl-C to stop)`);
    const stop = () => server.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  })().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}

/** Forwards a child's output line by line with a prefix. */
export function prefixLines(child: ChildProcess, prefix: string, enabled: () => boolean = () => true): void {
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    let buf = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      if (enabled()) for (const l of lines) out.write(prefix + l + '\n');
    });
    stream?.on('end', () => {
      if (buf && enabled()) out.write(prefix + buf + '\n');
    });
  }
}

export interface ServerSupervision {
  /** Name in messages, e.g. `Temporal`. */
  name: string;
  /** Output prefix, e.g. `[temporal] `. */
  prefix: string;
  /** Written with the child's pid (so a later run can reclaim a leftover), removed on stop. */
  pidFile: string;
  /** Readiness probe; a server that exits while we wait fails at once. */
  ready: () => Promise<boolean>;
  readyTimeoutMs: number;
  stepMs: number;
  /** SIGTERM first, SIGKILL after this long. */
  killAfterMs: number;
}

/**
 * Runs a spawned server for the stack: prefixed output (silenced once we stop
 * it: shutdown warnings are noise), waits until it is ready, and returns its
 * stop function.
 */
export async function superviseServer(child: ChildProcess, opts: ServerSupervision): Promise<() => Promise<void>> {
  fs.writeFileSync(opts.pidFile, String(child.pid));
  let stopping = false;
  prefixLines(child, opts.prefix, () => !stopping);
  let exited: number | null | undefined;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const ready = await waitFor(
    async () => {
      if (exited !== undefined) throw new Error(`${opts.name} exited with code ${exited} (output above)`);
      return opts.ready();
    },
    opts.readyTimeoutMs,
    opts.stepMs,
  );
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`${opts.name} did not become ready within ${opts.readyTimeoutMs / 1000} s`);
  }
  return async () => {
    stopping = true;
    if (exited === undefined) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
      await exitPromise;
      clearTimeout(killer);
    }
    fs.rmSync(opts.pidFile, { force: true });
  };
}
