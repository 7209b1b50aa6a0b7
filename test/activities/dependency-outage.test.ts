import { CancelledFailure, ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ServiceError } from '../../core/errors';
import { createDb } from '../../domain/db';
import { asActivity, toTemporalFailure } from '../../activities/failures';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// activities/failures.ts: an activity whose PostgreSQL goes away and comes back finishes in the attempt it is
// in (the scale test's PostgreSQL restart had cost a job three attempts and 35 s of retry delays), with the
// real errors Prisma and its pg adapter raise, through a relay the test cuts. And the delay a failure of the
// catalogue carries to Temporal.

let proxy: TcpProxy;
let db: ReturnType<typeof createDb>;

beforeAll(async () => {
  const url = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  url.host = proxy.address;
  db = createDb(url.toString(), 2);
});
afterEach(() => proxy.restore());
afterAll(async () => {
  await db.close();
  await proxy.close();
});

/** A remote activity's context, on an attempt that started now with the given start-to-close timeout. */
const attemptEnv = (startToCloseTimeoutMs = 60_000, isLocal = false) =>
  new MockActivityEnvironment({ isLocal, currentAttemptScheduledTimestampMs: Date.now(), startToCloseTimeoutMs });

const selectOne = async () => (await db.prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`)[0]!.one;

describe('an activity whose database does not answer', () => {
  it('waits in the same attempt and finishes once the database is back', async () => {
    expect(await selectOne()).toBe(1); // a pooled connection, reset by the cut
    await proxy.cut();
    const tries: string[] = [];
    const restored = new Promise((r) => setTimeout(r, 1_500)).then(() => proxy.restore());
    const result = await attemptEnv().run(() =>
      asActivity(async () => {
        try {
          const one = await selectOne();
          tries.push('answered');
          return one;
        } catch (err) {
          tries.push((err as Error).message.split('\n').filter(Boolean).at(-1)!);
          throw err;
        }
      }),
    );
    await restored;
    expect(result).toBe(1);
    // Refused (or reset) at least once, then answered: no failed attempt left the activity.
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries.at(-1)).toBe('answered');
  });

  it('fails the attempt with the real error when the database stays away until its timeout is near', async () => {
    await proxy.cut();
    // start-to-close 7 s: the waiting must end by 5 s before it, 2 s after the attempt started.
    const env = attemptEnv(7_000);
    const giveUpAt = env.context.info.currentAttemptScheduledTimestampMs + 2_000;
    const tries: number[] = [];
    const failure = await env.run(() => asActivity(() => (tries.push(Date.now()), selectOne()))).catch((err: unknown) => err);
    const gaveUp = Date.now();
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect(String((failure as Error).message)).toMatch(/reach database server|ECONNREFUSED|connection/i);
    // It tried again in the same attempt (waiting 0.25 s, then 0.5 s, doubling), and stopped only when the next wait
    // would have ended past the give-up time. How many tries fit depends on how long each takes on a loaded
    // machine (a run saw 1.3 s where 1.75 s was asserted); the rule does not.
    expect(tries.length).toBeGreaterThanOrEqual(2);
    const nextWait = Math.min(250 * 2 ** (tries.length - 1), 2_000);
    expect(gaveUp + nextWait).toBeGreaterThan(giveUpAt);
  });

  it('is not waited for in a local activity: its own retry policy (inside the workflow task) decides', async () => {
    await proxy.cut();
    let tries = 0;
    const failure = await attemptEnv(60_000, true)
      .run(() => asActivity(() => (tries++, selectOne())))
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(tries).toBe(1);
  });

  it('stops waiting when the activity is cancelled', async () => {
    await proxy.cut();
    const env = attemptEnv();
    const running = env.run(() => asActivity(selectOne)).catch((err: unknown) => err);
    setTimeout(() => env.cancel(), 600);
    expect(await running).toBeInstanceOf(CancelledFailure);
  });

  it('any other error fails the attempt at once', async () => {
    let tries = 0;
    const failure = await attemptEnv()
      .run(() =>
        asActivity(async () => {
          tries++;
          await db.prisma.$queryRaw`SELECT * FROM no_such_table`;
        }),
      )
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(tries).toBe(1);
    // A failure of the catalogue too, even one caused by an unreachable database: its code decides.
    tries = 0;
    const refused = await attemptEnv()
      .run(() =>
        asActivity(async () => {
          tries++;
          throw new ServiceError('STORAGE_UNAVAILABLE', 'storage', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
        }),
      )
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).type).toBe('STORAGE_UNAVAILABLE');
    expect(tries).toBe(1);
  });
});

describe('the delay a failure carries to Temporal', () => {
  const delayOf = (err: ServiceError, attempt: number) => (toTemporalFailure(err, attempt) as ApplicationFailure).nextRetryDelay;

  it('a retryable error of the catalogue waits 5 s, 10 s, 20 s … by attempt, or the Retry-After it was given', () => {
    expect([1, 2, 3, 4].map((n) => delayOf(new ServiceError('SOURCE_TIMEOUT', 'x'), n))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(delayOf(new ServiceError('SOURCE_RATE_LIMITED', 'x', { retryAfterSeconds: 7 }), 3)).toBe(7_000);
  });

  it('a final error carries none (it is not retried)', () => {
    expect(delayOf(new ServiceError('SOURCE_PRIVATE', 'x'), 1)).toBeUndefined();
  });
});
