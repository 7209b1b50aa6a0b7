import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpuSeconds, cpuSecondsSplit, treeCpuSeconds } from '../scale/processes';

// The CPU readings the capacity figures and the servers bench rest on (bench/sections/servers.ts): a process's
// own time apart from the children it waited for (the load generator), and a server counted with its live
// children (PostgreSQL's backends).
//
// The process read is a shell started for the test, not this jest worker: a worker also runs other test files,
// and what one of them leaves running (a timer, a polling client) spends CPU of the worker's own while the test
// waits (2 s in one CI run), which a quiet parent cannot.

/** Node.js code that spends `ms` of CPU, says `done`, then exits or idles until its group is killed. */
function burnCode(ms: number, exit: boolean) {
  return `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${ms}) {}
    console.log('done'); ${exit ? '' : 'setInterval(() => {}, 1000);'}`;
}

/** A shell running `script` with the Node.js binary as $1 and `code` as $2, in a process group of its own. */
function shell(script: string, code: string) {
  return spawn('/bin/sh', ['-c', script, 'sh', process.execPath, code], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
}

type Shell = ReturnType<typeof shell>;

async function said(child: Shell, word: string) {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    if (text.includes(word)) return;
  }
  throw new Error(`the child ended without saying ${word}`);
}

/** Ends the shell and whatever it started (a shell that already ended may have left its burner running). */
async function stop(child: Shell) {
  const running = child.exitCode === null && child.signalCode === null;
  const exited = running ? once(child, 'exit') : Promise.resolve();
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the whole group is gone already
  }
  await exited;
}

describe('process CPU readings', () => {
  it('keeps a reaped child’s CPU apart from the process’s own', async () => {
    // The shell waits for the burner (so reaps it), says so, then blocks reading its stdin.
    const parent = shell('"$1" -e "$2"; echo reaped; read line', burnCode(400, true));
    try {
      await said(parent, 'reaped');
      const split = cpuSecondsSplit(parent.pid!)!;
      expect(split.reaped).toBeGreaterThanOrEqual(0.3);
      // The shell only waited meanwhile.
      expect(split.own).toBeLessThan(0.3);
      expect(cpuSeconds(parent.pid!)).toBeCloseTo(split.own + split.reaped, 1);
    } finally {
      await stop(parent);
    }
  });

  it('counts a live child in its parent’s tree, not in the parent alone', async () => {
    // The burner runs in the background and stays alive (unreaped) after its burn; the shell waits for it.
    const parent = shell('"$1" -e "$2" & wait', burnCode(400, false));
    try {
      await said(parent, 'done');
      const [own, tree] = [cpuSeconds(parent.pid!)!, treeCpuSeconds(parent.pid!)!];
      expect(tree - own).toBeGreaterThanOrEqual(0.3);
      expect(own).toBeLessThan(0.3);
    } finally {
      await stop(parent);
    }
  });

  it('answers null for a process that is gone', async () => {
    const child = spawn('/bin/sh', ['-c', 'exit 0'], { stdio: 'ignore' });
    const pid = child.pid!;
    await once(child, 'exit');
    expect(cpuSecondsSplit(pid)).toBeNull();
  });
});
