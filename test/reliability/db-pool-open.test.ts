import { createDb, openPool } from '../../domain/db';
import { privateDatabase, startTestApi } from '../support/harness';

// The API's connections are opened as it starts and kept open: a burst after a quiet spell once opened a dozen
// at once (a new backend each, authenticating and planning its first statements from cold caches), and its
// first answers took 100–230 ms instead of 50 (bench/RESULTS.md, the servers section's burst).

const idleFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a pool kept open holds its connections past the idle timeout; one not kept open closes them', async () => {
  const url = await privateDatabase('poolopen');
  const kept = createDb(url, 3, () => undefined, { keepOpen: true });
  const plain = createDb(url, 3);
  try {
    for (const { pool } of [kept, plain]) {
      // pg's idle timeout (10 s) shortened, so the test need not wait for it.
      pool.options.idleTimeoutMillis = 50;
      await openPool(pool);
      expect(pool.totalCount).toBe(3);
    }
    await idleFor(400);
    expect(kept.pool.totalCount).toBe(3);
    expect(plain.pool.totalCount).toBe(0);
  } finally {
    await kept.close();
    await plain.close();
  }
});

test('the API has its connections open before its first request', async () => {
  const api = await startTestApi({}, {}, 4);
  try {
    // Three idle beside the one its job wake-ups LISTEN on.
    expect(api.deps.pool.totalCount).toBe(4);
    expect(api.deps.pool.idleCount).toBe(3);
  } finally {
    await api.close();
  }
});
