import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient, type Prisma } from '../prisma/generated/client';
import { traceQueries } from '../integrations/telemetry/spans';

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * One pool per process, shared by Prisma and the few raw-SQL users (rate limits, LISTEN).
 *
 * A connection the server ends (a PostgreSQL restart or failover: "terminating connection due to
 * administrator command") emits `error` on its client, and on the pool when it sat idle. Without a listener
 * Node throws that event and the whole process dies; the scale test lost a worker that way. With one, the
 * pool drops the connection, the query under way (if any) fails with its own error, and the next one opens
 * a new connection. `onConnectionError` hears of each (a log line).
 */
export function createDb(
  databaseUrl: string,
  poolSize = 10,
  onConnectionError: (err: Error) => void = () => {},
  opts: { keepOpen?: boolean } = {},
): { prisma: PrismaClient; pool: Pool; close: () => Promise<void> } {
  // keepOpen: the connections, once open, stay open (pg closes those above `min` after 10 s idle). The API's
  // do: a burst after a quiet spell otherwise opened a dozen at once, each a new backend that authenticates
  // and plans its first statements from cold caches, and its first 32 answers took 100–230 ms instead of 50.
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize, min: opts.keepOpen ? poolSize : 0 });
  pool.on('error', onConnectionError);
  pool.on('connect', (client) => client.on('error', onConnectionError));
  traceQueries(pool);
  // An interactive transaction's guard against one left open, not a budget: Prisma's 5 s default rolled back a
  // Stripe event's few statements on a loaded two-core machine (that attempt's work undone; Stripe would send it again).
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
  // Prisma does not end a pool it was given: left open, its idle connections hold the process for pg's 10 s
  // idle timeout (a stopping worker took 13 s instead of 3). Ending it twice is harmless.
  const close = async () => {
    await prisma.$disconnect();
    await pool.end().catch(() => undefined);
  };
  return { prisma, pool, close };
}

/**
 * Opens the pool's connections now (as many as it may hold, less those in use: the LISTEN connection), so the
 * first requests do not open them. Queries, not checkouts, so it never waits for a connection held for good.
 */
export async function openPool(pool: Pool): Promise<void> {
  await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.query('SELECT 1')));
}

/**
 * A value for a JSON column. Prisma's input type wants an index signature that
 * the service's interfaces (an error object, a transcript's segments, a
 * discovery's listing) do not declare; they are plain data (no Date, no
 * function), so the one cast is here rather than at every write.
 */
export function jsonColumn(value: object): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** A JSON column read back as the shape the service wrote into it (see jsonColumn). */
export function fromJsonColumn<T>(value: Prisma.JsonValue): T {
  return value as T;
}

/**
 * A model's row keyed by its columns, for a statement that writes it whole (domain/accept-work.ts acceptRow):
 * the schema maps every field to its snake_case column (`workspaceId` → `workspace_id`), and a test holds
 * each model written this way to that rule.
 */
export function rowByColumn(row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([field, value]) => [field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]));
}
