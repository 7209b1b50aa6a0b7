import { Client } from 'pg';
import { createDb } from '../../domain/db';
import { privateDatabase } from '../support/harness';

// A connection the server ends (a PostgreSQL restart, a failover, an operator's pg_terminate_backend) must not
// take the process with it. The scale test lost a worker process this way: the server's "terminating
// connection due to administrator command" arrived on a pooled connection with no `error` listener, and Node
// threw the event. The pool of domain/db.ts now listens on every connection: the lost one is dropped and the
// next query opens a new one.

test('connections ended by the server, one in use and one idle, are dropped; the process lives and the next query works', async () => {
  const url = await privateDatabase('connlost');
  const heard: string[] = [];
  const { prisma, pool, close } = createDb(url, 3, (err) => heard.push(err.message));
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    // One connection checked out between two queries (as a transaction holds one), one idle in the pool.
    const held = await pool.connect();
    const idle = await pool.connect();
    const pids = [
      (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
      (await idle.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
    ];
    idle.release();
    // What a server shutdown does to each of its connections.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
    // Until the idle one is out of the pool. Its end is read from its socket when the loop gets to it: the held
    // one alone can be heard twice first (the termination, then the closed socket), and a query made before the
    // idle one was dropped would take it, ended (CI on a loaded host did).
    for (let i = 0; i < 250 && (heard.length < 2 || pool.idleCount > 0); i++) await new Promise((r) => setTimeout(r, 20));
    held.release(true);
    // Heard for each (the idle one's also through the pool), and the idle one dropped.
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(pool.idleCount).toBe(0);
    for (const message of heard)
      expect(message).toMatch(/terminating connection due to administrator command|Connection terminated unexpectedly/);
    // The pool opens a new connection for the next query.
    expect(await prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    expect(pids).not.toContain((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  } finally {
    await admin.end();
    await close();
  }
});
