/**
 * Small process helpers shared by the stack scripts.
 *
 * The servers we start (postgres, temporal) are child processes. If our node
 * process is killed hard (SIGKILL, closed terminal), they keep running and hold
 * their port and data files, so the next start would fail. Before starting we
 * look for such a leftover and stop it, unless a live node process still owns
 * it (then another `npm run dev` / `npm test` is using it: the caller decides).
 */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
