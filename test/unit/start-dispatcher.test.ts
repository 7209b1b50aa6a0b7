import type { Client } from '@temporalio/client';
import { HOLD_RECHECK_MS, StartDispatcher } from '../../domain/start-dispatcher';

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
    // Every step is released by the test (no timers): the same order on any host.
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { opened, open };
    };
    const firstFour = gate();
    const lastFour = gate();
    const firstWriteMay = gate();
    const firstWriteBegun = gate();
    const writes: { table: string; ids: string[] }[] = [];
    const errors: string[] = [];
    let writesBegun = 0;
    const dispatcher = new StartDispatcher(starter, (_err, what) => errors.push(what), {
      concurrency: 4,
      markStarted: async (table, ids) => {
        if (++writesBegun === 1) {
          firstWriteBegun.open();
          await firstWriteMay.opened;
          throw new Error('database unavailable');
        }
        writes.push({ table, ids });
      },
    });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const [i, id] of ids.entries()) {
      dispatcher.dispatch(
        `job ${id}`,
        async () => {
          await (i < 4 ? firstFour : lastFour).opened;
          if (id === 'c') throw new Error('Temporal unavailable');
        },
        { table: 'jobs', id },
      );
    }
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    // The first four end together: one statement for the three that started (it will fail).
    firstFour.open();
    await firstWriteBegun.opened;
    // The next four end while it is written.
    lastFour.open();
    await turn();
    firstWriteMay.open();
    await dispatcher.drain();
    // The failed write is reported (the starter confirms those three); the failed start is not recorded.
    expect(errors).toEqual(['job c', 'recording 3 started jobs']);
    // One statement for all four that ended meanwhile.
    expect(writes).toEqual([{ table: 'jobs', ids: ['e', 'f', 'g', 'h'] }]);
    // Nothing left over, and a later start is recorded again.
    dispatcher.dispatch('discovery i', async () => undefined, { table: 'video_discoveries', id: 'i' });
    await dispatcher.drain();
    expect(writes[1]).toEqual({ table: 'video_discoveries', ids: ['i'] });
  });

  it('leaves starts beyond maxPending to the starter, reported once per overflow with a count', async () => {
    const errors: string[] = [];
    const dispatcher = new StartDispatcher(starter, (_err, what) => errors.push(what), { concurrency: 1, maxPending: 1 });
    const started: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
    await dispatcher.drain();
    expect(started).toEqual(['a']);
    // The first start left over by name, the rest as one count once the queue had room: not a line per start.
    expect(errors).toEqual(['job b', '2 more start(s)']);
    // A later overflow is reported afresh.
    for (const name of ['e', 'f']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
    await dispatcher.drain();
    expect(started).toEqual(['a', 'e']);
    expect(errors).toEqual(['job b', '2 more start(s)', 'job f']);
  });

  describe('while the process is busy answering', () => {
    // The clock and the hold's timers are the test's; setImmediate (the dispatcher's next turn) is real.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    it('makes a start at once when the process is not busy', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => false, maxHoldMs: 1_000 });
      const started: string[] = [];
      for (const name of ['a', 'b']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
      await turn();
      expect(started).toEqual(['a', 'b']);
    });

    it('holds the starts while it is busy and makes them all once it is not', async () => {
      let busy = true;
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => busy, maxHoldMs: 1_000 });
      const started: string[] = [];
      for (const name of ['a', 'b', 'c']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
      await turn();
      await jest.advanceTimersByTimeAsync(500);
      expect(started).toEqual([]);
      // Nothing else is asked of the dispatcher: it looks again by itself.
      busy = false;
      await jest.advanceTimersByTimeAsync(HOLD_RECHECK_MS);
      expect(started).toEqual(['a', 'b', 'c']);
    });

    it('makes a start held maxHoldMs even while the process stays busy, in the order handed over', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 250 });
      const started: string[] = [];
      const dispatchAt = (t: number) => {
        for (let i = 0; i < 3; i++) dispatcher.dispatch(`job ${t}.${i}`, async () => started.push(`${t}.${i}`));
      };
      dispatchAt(0);
      await turn();
      for (let t = 50; t <= 300; t += 50) {
        await jest.advanceTimersByTimeAsync(50);
        // Each is held until it has waited 250 ms: t = 0's at t = 250.
        if (t === 200) expect(started).toEqual([]);
        if (t === 250) expect(started).toEqual(['0.0', '0.1', '0.2']);
        dispatchAt(t);
        await turn();
      }
      expect(started).toEqual([0, 50].flatMap((t) => [`${t}.0`, `${t}.1`, `${t}.2`]));
      await jest.advanceTimersByTimeAsync(250);
      expect(started).toEqual([0, 50, 100, 150, 200, 250, 300].flatMap((t) => [`${t}.0`, `${t}.1`, `${t}.2`]));
    });

    it('lets a submit accept at once unless a start has waited maxHoldMs, then once it is made', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 250, concurrency: 1 });
      let openA!: () => void;
      const started: string[] = [];
      dispatcher.dispatch('job a', async () => {
        started.push('a');
        await new Promise<void>((resolve) => (openA = resolve));
      });
      dispatcher.dispatch('job b', async () => started.push('b'));
      await turn();
      // Held, but not for long yet: a burst's submits go on.
      let caughtUp = false;
      await dispatcher.caughtUp(1_000).then(() => (caughtUp = true));
      expect(caughtUp).toBe(true);
      // 250 ms on, a is made and b, due too, waits behind it (one start at a time): a submit now waits.
      await jest.advanceTimersByTimeAsync(250);
      expect(started).toEqual(['a']);
      caughtUp = false;
      const waiting = dispatcher.caughtUp(1_000).then(() => (caughtUp = true));
      await jest.advanceTimersByTimeAsync(100);
      expect(caughtUp).toBe(false);
      // a is made: b goes, nothing has waited too long, and the submit goes on.
      openA();
      await waiting;
      expect(started).toEqual(['a', 'b']);
    });

    it('lets one waiting submit accept per start made while the starts are behind, and all once they are not', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 250, concurrency: 1 });
      const gates: Record<string, () => void> = {};
      for (const name of ['a', 'b', 'c']) dispatcher.dispatch(`job ${name}`, () => new Promise<void>((resolve) => (gates[name] = resolve)));
      await turn();
      await jest.advanceTimersByTimeAsync(250);
      // a is in flight; b and c have waited 250 ms.
      const accepted: string[] = [];
      const first = dispatcher.caughtUp(10_000).then(() => accepted.push('first'));
      const second = dispatcher.caughtUp(10_000).then(() => accepted.push('second'));
      await jest.advanceTimersByTimeAsync(10);
      expect(accepted).toEqual([]);
      // a made: b goes, c still overdue behind it: one submit goes on.
      gates.a!();
      await first;
      await jest.advanceTimersByTimeAsync(10);
      expect(accepted).toEqual(['first']);
      // b made: c goes, nothing waits any more: the other goes on.
      gates.b!();
      await second;
      expect(accepted).toEqual(['first', 'second']);
      gates.c!();
    });

    it('lets a waiting submit accept after maxWaitMs even if the starts have not caught up', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 250, concurrency: 1 });
      dispatcher.dispatch('job a', () => new Promise(() => undefined));
      dispatcher.dispatch('job b', async () => undefined);
      await turn();
      await jest.advanceTimersByTimeAsync(250);
      let caughtUp = false;
      void dispatcher.caughtUp(500).then(() => (caughtUp = true));
      await jest.advanceTimersByTimeAsync(499);
      expect(caughtUp).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(caughtUp).toBe(true);
    });

    it('holds nothing once asked to drain (the process stops)', async () => {
      const dispatcher = new StartDispatcher(starter, () => undefined, { busy: () => true, maxHoldMs: 1_000 });
      const started: string[] = [];
      for (const name of ['a', 'b', 'c', 'd']) dispatcher.dispatch(`job ${name}`, async () => started.push(name));
      await turn();
      expect(started).toEqual([]);
      await dispatcher.drain();
      expect(started).toEqual(['a', 'b', 'c', 'd']);
    });
  });
});
