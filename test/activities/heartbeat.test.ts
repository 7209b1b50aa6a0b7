import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { asActivity } from '../../activities/failures';
import { savedProgress, saveProgress, whileHeartbeating } from '../../activities/heartbeat';

// activities/heartbeat.ts in Temporal's mock activity environment: which
// heartbeats leave (with what details), what a retry sees, and a cancel
// reaching the activity. Only the heartbeat ticker's interval runs on fake
// timers; the environment's own promises stay real.

beforeEach(() => {
  jest.useFakeTimers({
    doNotFake: [
      'Date',
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setTimeout',
      'clearTimeout',
    ],
  });
});
afterEach(() => jest.useRealTimers());

/** An activity environment recording the details of every heartbeat. */
function recordingEnv(info: ConstructorParameters<typeof MockActivityEnvironment>[0] = {}) {
  const env = new MockActivityEnvironment(info);
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  return { env, beats };
}

/** A piece of work the test ends: `started` once it runs, `finish()` to end it. */
function work() {
  let started!: () => void;
  let finish!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const finished = new Promise<void>((r) => (finish = r));
  return {
    started: startedP,
    finish,
    body: async () => {
      started();
      await finished;
      return 'done';
    },
  };
}

describe('whileHeartbeating', () => {
  it('heartbeats every 2 s while a slow activity works, and stops when it ends', async () => {
    const { env, beats } = recordingEnv();
    const w = work();
    const running = env.run(() => whileHeartbeating(w.body));
    await w.started;
    await jest.advanceTimersByTimeAsync(1_999);
    expect(beats).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(beats).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(4_000);
    expect(beats).toHaveLength(3);
    w.finish();
    expect(await running).toBe('done');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(beats).toHaveLength(3);
  });

  it('sends no heartbeat for a quick activity', async () => {
    const { env, beats } = recordingEnv();
    expect(await env.run(() => whileHeartbeating(async () => 'quick'))).toBe('quick');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(beats).toHaveLength(0);
  });

  it('sends none from a local activity (they cannot heartbeat), nor outside an activity', async () => {
    const { env, beats } = recordingEnv({ isLocal: true });
    const w = work();
    const running = env.run(() =>
      whileHeartbeating(async () => {
        saveProgress({ piecesStored: 1 });
        expect(savedProgress()).toBeUndefined();
        return w.body();
      }),
    );
    await w.started;
    await jest.advanceTimersByTimeAsync(10_000);
    w.finish();
    await running;
    expect(beats).toHaveLength(0);
    expect(await whileHeartbeating(async () => 'plain call')).toBe('plain call');
    expect(savedProgress()).toBeUndefined();
  });
});

describe('saveProgress / savedProgress', () => {
  it('saved progress goes out at once and rides along with every later heartbeat', async () => {
    const { env, beats } = recordingEnv();
    const w = work();
    let firstStored!: () => void;
    let secondPiece!: () => void;
    const first = new Promise<void>((r) => (firstStored = r));
    const second = new Promise<void>((r) => (secondPiece = r));
    const running = env.run(() =>
      whileHeartbeating(async () => {
        saveProgress({ piecesStored: 1 });
        firstStored();
        await second;
        saveProgress({ piecesStored: 2 });
        return w.body();
      }),
    );
    await first;
    expect(beats).toEqual([{ piecesStored: 1 }]);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(beats).toEqual([{ piecesStored: 1 }, { piecesStored: 1 }]);
    secondPiece();
    await w.started;
    expect(beats).toEqual([{ piecesStored: 1 }, { piecesStored: 1 }, { piecesStored: 2 }]);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(beats).toEqual([{ piecesStored: 1 }, { piecesStored: 1 }, { piecesStored: 2 }, { piecesStored: 2 }]);
    w.finish();
    await running;
  });

  it('a retry sees the details of the last heartbeat of the attempt before; a first attempt sees none', async () => {
    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: { piecesStored: 2 } });
    expect(await retry.run(async () => savedProgress<{ piecesStored: number }>())).toEqual({ piecesStored: 2 });
    const first = new MockActivityEnvironment();
    expect(await first.run(async () => savedProgress())).toBeUndefined();
  });
});

describe('cancellation', () => {
  it('reaches the activity: its wait ends with CancelledFailure (passed through unchanged) and the heartbeats stop', async () => {
    const { env, beats } = recordingEnv();
    let started!: () => void;
    const isRunning = new Promise<void>((r) => (started = r));
    const running = env.run(() =>
      asActivity(async () => {
        started();
        await Context.current().cancelled;
      }),
    );
    await isRunning;
    await jest.advanceTimersByTimeAsync(2_000);
    expect(beats).toHaveLength(1);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(beats).toHaveLength(1);
  });
});
