import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearIdleScratch, scratchRoot, withScratchDir } from '../../integrations/scratch';

// A process killed in the middle of an activity cannot remove its media files: the next process to start on the
// host does (integrations/scratch.ts; the recognizer's recognizer/scratch.py keeps the same layout).

/** The pid of a process that has exited and been reaped: the id names no process now. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

let base: string;
beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'scratch-unit-'))));
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** A process's scratch directory as a crash leaves it: a job's folder with audio in it. */
function leftover(name: string): string {
  const dir = path.join(scratchRoot(base), name);
  fs.mkdirSync(path.join(dir, 'job-x'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'job-x', 'audio.wav'), Buffer.alloc(1024));
  return dir;
}

test("removes dead processes' scratch and the one named for its own pid; keeps a running process's and unknown names", async () => {
  const dead = [leftover(`worker-${deadPid()}`), leftover(`recognizer-${deadPid()}`)];
  const own = leftover(`worker-${process.pid}`);
  const running = leftover(`recognizer-${process.ppid}`);
  const unknown = leftover('notes');
  const removed = await clearIdleScratch(base);
  expect(removed.sort()).toEqual([...dead, own].map((d) => path.basename(d)).sort());
  for (const d of [...dead, own]) expect(fs.existsSync(d)).toBe(false);
  for (const d of [running, unknown]) expect(fs.existsSync(path.join(d, 'job-x', 'audio.wav'))).toBe(true);
});

test('a host with no scratch yet: nothing removed, nothing thrown', async () => {
  expect(await clearIdleScratch(base)).toEqual([]);
});

test("withScratchDir works in this process's directory and removes its folder after a result and after a failure", async () => {
  let seen = '';
  await withScratchDir(
    'job-',
    async (dir) => {
      seen = dir;
      expect(path.dirname(dir)).toBe(path.join(base, 'transcript-scratch', `worker-${process.pid}`));
      fs.writeFileSync(path.join(dir, 'audio.wav'), 'x');
    },
    base,
  );
  expect(fs.existsSync(seen)).toBe(false);
  await expect(
    withScratchDir(
      'upload-',
      async (dir) => {
        seen = dir;
        throw new Error('probe failed');
      },
      base,
    ),
  ).rejects.toThrow('probe failed');
  expect(fs.existsSync(seen)).toBe(false);
});
