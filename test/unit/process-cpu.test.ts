import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpuSeconds, cpuSecondsSplit, treeCpuSeconds } from '../scale/processes';

// The CPU readings the capacity figures and the servers bench rest on (bench/sections/servers.ts): a process's
// own time apart from the children it waited for (the load generator), and a server counted with its live
// children (PostgreSQL's backends).

/** A child that spends `ms` of CPU, says so, then idles until it is killed (or exits, with `exit`). */
function burner(ms: number, exit: boolean) {
  const code = `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${ms}) {}
    console.log('done'); ${exit ? '' : 'setInterval(() => {}, 1000);'}`;
  return spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

async function said(child: ReturnType<typeof burner>, word: string) {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    if (text.includes(word)) return;
  }
  throw new Error(`the child ended without saying ${word}`);
}

describe('process CPU readings', () => {
  it('keeps a reaped child’s CPU apart from the process’s own', async () => {
    const before = cpuSecondsSplit(process.pid)!;
    const child = burner(400, true);
    await once(child, 'exit');
    const after = cpuSecondsSplit(process.pid)!;
    expect(after.reaped - before.reaped).toBeGreaterThanOrEqual(0.3);
    // This process only waited meanwhile.
    expect(after.own - before.own).toBeLessThan(0.3);
    expect(cpuSeconds(process.pid)).toBeCloseTo(after.own + after.reaped, 1);
  });

  it('counts a live child in its parent’s tree, not in the parent alone', async () => {
    const child = burner(400, false);
    try {
      const [ownBefore, treeBefore] = [cpuSeconds(process.pid)!, treeCpuSeconds(process.pid)!];
      await said(child, 'done');
      const [ownAfter, treeAfter] = [cpuSeconds(process.pid)!, treeCpuSeconds(process.pid)!];
      expect(treeAfter - treeBefore - (ownAfter - ownBefore)).toBeGreaterThanOrEqual(0.3);
      expect(ownAfter - ownBefore).toBeLessThan(0.3);
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });

  it('answers null for a process that is gone', async () => {
    const child = burner(0, true);
    const pid = child.pid!;
    await once(child, 'exit');
    expect(cpuSecondsSplit(pid)).toBeNull();
  });
});
