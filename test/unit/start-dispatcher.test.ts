import type { Client } from '@temporalio/client';
import { StartDispatcher } from '../../domain/workflow-starts';

// The dispatcher that starts workflows after their accepting commits (domain/workflow-starts.ts).
// No stack needed: the starts here are plain functions.
describe('StartDispatcher', () => {
  const starter = {
    taskQueue: 'unused',
    // withDeadline is the only client method the dispatcher calls: run the start as is.
    temporal: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() } as unknown as Client,
  };

  it('runs no start inside the accepting request’s turn: the answer is written first', async () => {
    const dispatcher = new StartDispatcher(starter, () => undefined);
    const order: string[] = [];
    dispatcher.dispatch('job a', async () => order.push('start'));
    // What the handler does after dispatch (shaping and writing the response) runs before the start.
    order.push('answer');
    await Promise.resolve();
    order.push('microtasks done');
    await dispatcher.drain();
    expect(order).toEqual(['answer', 'microtasks done', 'start']);
  });

  it('keeps at most `concurrency` starts in flight and reports a failed start without losing the others', async () => {
    const errors: string[] = [];
    const dispatcher = new StartDispatcher(starter, (_err, what) => errors.push(what), { concurrency: 2, maxPending: 10 });
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      dispatcher.dispatch(`job ${name}`, async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        if (name === 'c') throw new Error('Temporal unavailable');
        started.push(name);
      });
    }
    await dispatcher.drain();
    expect(most).toBe(2);
    expect(started.sort()).toEqual(['a', 'b', 'd', 'e']);
    expect(errors).toEqual(['job c']);
  });

  it('records the starts that succeeded, many rows per statement, and keeps recording after a failed write', async () => {
    const writes: { table: string; ids: string[] }[] = [];
    const errors: string[] = [];
    let failNext = true;
    const dispatcher = new StartDispatcher(starter, (_err, what) => errors.push(what), {
      concurrency: 4,
      markStarted: async (table, ids) => {
        await new Promise((r) => setTimeout(r, 30));
        if (failNext) {
          failNext = false;
          throw new Error('database unavailable');
        }
        writes.push({ table, ids });
      },
    });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const id of ids) {
      dispatcher.dispatch(`job ${id}`, async () => {
        // The first four end together; the next four start after them and end while the first record is written.
        await new Promise((r) => setTimeout(r, ids.indexOf(id) < 4 ? 0 : 10));
        if (id === 'c') throw new Error('Temporal unavailable');
        dispatcher.started('jobs', id);
      });
    }
    await dispatcher.drain();
    // The first four ended in one turn: one statement, which failed (reported, the starter confirms those).
    expect(errors).toEqual(['job c', 'recording 3 started jobs']);
    // The next four ended while it was written: one statement for all of them, the failed start not among them.
    expect(writes).toEqual([{ table: 'jobs', ids: ['e', 'f', 'g', 'h'] }]);
    // Nothing left over, and a later start is recorded again.
    dispatcher.dispatch('job i', async () => dispatcher.started('video_discoveries', 'i'));
    await dispatcher.drain();
    expect(writes[1]).toEqual({ table: 'video_discoveries', ids: ['i'] });
  });

  it('leaves starts beyond maxPending to the starter, reported', async () => {
    const errors: string[] = [];
    const dispatcher = new StartDispatcher(starter, (_err, what) => errors.push(what), { concurrency: 1, maxPending: 1 });
    const started: string[] = [];
    for (const name of ['a', 'b', 'c']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
    await dispatcher.drain();
    expect(started).toEqual(['a']);
    expect(errors).toEqual(['job b', 'job c']);
  });
});
