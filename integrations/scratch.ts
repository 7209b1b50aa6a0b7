import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../core/processes';

/**
 * Scratch space for media on local disk: `<tmpdir>/transcript-scratch/<role>-<pid>/`, one directory per process.
 *
 * An activity removes its own files when it ends, but a process that is SIGKILLed or runs out of memory in the
 * middle of one cannot: its downloads and converted audio (megabytes per job) stayed in /tmp for good, one set per
 * crash. Naming the directory for the process lets the next process to start on the host remove what dead ones
 * left (`clearIdleScratch`). The recognizer (recognizer/scratch.py) keeps to the same layout, so either sweeps both.
 * The root must belong to one host's process table: two containers sharing it would each see the other's pids as
 * dead.
 */
export const SCRATCH_DIR_NAME = 'transcript-scratch';

export const scratchRoot = (base = os.tmpdir()) => path.join(base, SCRATCH_DIR_NAME);

const OWNER = /^[a-z]+-(\d+)$/;

/**
 * While this process runs no work (at its start, before it takes any; at its stop, after the last activity):
 * removes the scratch directories of processes that no longer run, and the one named for this process's pid (at
 * start a previous holder's: in a restarted container the new process often gets the same pid). Returns the
 * directories removed. Entries not named `<role>-<pid>` are left alone.
 */
export async function clearIdleScratch(base = os.tmpdir()): Promise<string[]> {
  const root = scratchRoot(base);
  const entries = await fs.readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of entries) {
    const owner = OWNER.exec(name);
    if (!owner) continue;
    const pid = Number(owner[1]);
    if (pid !== process.pid && isAlive(pid)) continue;
    await fs.rm(path.join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * A fresh directory under this process's scratch space (`worker-<pid>`) for `fn`, removed when `fn` ends (either
 * way). Every local file of an activity (a job's media and audio, an upload's copy) is made in one.
 */
export async function withScratchDir<T>(prefix: string, fn: (dir: string) => Promise<T>, base = os.tmpdir()): Promise<T> {
  const own = path.join(scratchRoot(base), `worker-${process.pid}`);
  await fs.mkdir(own, { recursive: true });
  const dir = await fs.mkdtemp(path.join(own, prefix));
  try {
    return await fn(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
