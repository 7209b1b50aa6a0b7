import pino from 'pino';
import type { Db } from '../../domain/db';
import type { StarterPass } from '../../domain/pending-starts';
import type { WorkflowStarter } from '../../domain/workflow-starts';
import { runWorkflowStarter } from '../../worker/workflow-starter';

// The starter loop of a worker process, its passes plain functions: no stack needed.

const HOUR = 60 * 60_000;
const db = {} as Db;
const starter = {} as WorkflowStarter;
const quiet = pino({ level: 'silent' });
const pass = (backlog = false): StarterPass => ({ jobs: 0, batches: 0, uploads: 0, discoveries: 0, events: 0, started: 0, backlog });

/** Resolves with what `p` resolves to, or 'still waiting' after `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms).unref())]);

describe('runWorkflowStarter', () => {
  it('stops at once when stopped between passes (asleep for its interval)', async () => {
    let passes = 0;
    const stop = runWorkflowStarter(db, starter, quiet, HOUR, async () => {
      passes += 1;
      return pass();
    });
    await new Promise((r) => setTimeout(r, 20));
    await expect(within(stop(), 2000)).resolves.toBeUndefined();
    expect(passes).toBe(1);
  });

  it('stops at the end of the pass when stopped during one, without beginning the interval’s sleep', async () => {
    // A worker's shutdown that lands while a pass reads the database: it waited the whole interval (10 minutes in a test).
    let release!: () => void;
    let inPass!: () => void;
    const entered = new Promise<void>((r) => (inPass = r));
    const stop = runWorkflowStarter(db, starter, quiet, HOUR, async () => {
      inPass();
      await new Promise<void>((r) => (release = r));
      return pass();
    });
    await entered;
    const stopping = stop();
    release();
    await expect(within(stopping, 2000)).resolves.toBeUndefined();
  });

  it('runs the next pass at once after a full page (a backlog), and stops after it', async () => {
    let passes = 0;
    const stop = runWorkflowStarter(db, starter, quiet, HOUR, async () => {
      passes += 1;
      return pass(passes < 3);
    });
    for (let i = 0; i < 100 && passes < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(passes).toBe(3);
    await expect(within(stop(), 2000)).resolves.toBeUndefined();
  });
});
