import fs from 'node:fs';
import path from 'node:path';
import { applyMigrations } from '../prisma/migrate';
import { createDatabase, dropDatabase, startPostgres, withDatabase, type PostgresHandle } from './postgres';
import { freePort, portOpen, ROOT } from './proc';
import { startRecognizer, type RecognizerHandle } from './recognizer';
import { startStripeMock, STRIPE_DEV_WEBHOOK_SECRET, STRIPE_MOCK_SECRET_KEY, type StripeMockHandle } from './stripe-mock';
import { startTemporal, type TemporalHandle } from './temporal';
import { freePortBelowSmallint, startTemporalOnPostgres, useTemporalOnPostgres } from './temporal-server';

// The private, throw-away stack that the tests (stack/test-env.ts) and the
// benchmarks (bench/run.ts, bench/asr-stack.ts) run against: a fresh database
// in its own PostgreSQL cluster, a Temporal dev server on a fresh SQLite file,
// stripe-mock (Stripe's API, stateless) on a free loopback port, optionally the
// speech recognition worker, and a local object store folder; all removed by stop().

export interface ThrowawayStack {
  pg: PostgresHandle;
  temporal: TemporalHandle;
  stripeMock: StripeMockHandle;
  dbUrl: string;
  /** The local object store folder (DATA_DIR) the recognition worker shares. */
  dataDir: string;
  sqliteFile: string;
  migrations: string[];
  /** Set when `recognizer` was asked for; replaceable (bench/asr-stack.ts restarts it). */
  recognizer: RecognizerHandle | null;
  startRecognizer(env?: Record<string, string>): Promise<RecognizerHandle>;
  /** The settings a process on this stack reads. */
  env: Record<string, string>;
  /** Safe to call twice; the recognizer handle it stops is the current one. */
  stop(): Promise<void>;
}

export async function startThrowawayStack(opts: {
  /** Names the cluster folder (.data/<name>-postgres), the database, the SQLite file and DATA_DIR. */
  name: string;
  pgPort: number;
  /** Falls back to a free port when this one is taken (another run of the same stack). */
  temporalPort: number;
  databaseName?: string;
  recognizer?: boolean;
  recognizerEnv?: Record<string, string>;
  /**
   * Start its own PostgreSQL and Temporal server even when DATABASE_URL and TEMPORAL_ADDRESS name others (a
   * bench inside another stack's environment that reads its servers' CPU).
   */
  ownServers?: boolean;
  /** Which Temporal server; TEMPORAL_SERVER decides when absent. */
  temporalServer?: 'dev' | 'postgres';
}): Promise<ThrowawayStack> {
  const dataDir = path.join(ROOT, '.data', `${opts.name}-data-${process.pid}`);
  // Nothing of the stack is handed out until it is whole: a step that fails stops what already runs (last
  // started, first stopped), or a failed start (a migration that does not apply) leaves servers behind.
  // stop() undoes the same list once the stack is whole.
  const started: { what: string; undo: () => Promise<unknown> }[] = [];
  const undoStarted = async () => {
    for (const { what, undo } of started.reverse()) await undo().catch((e) => console.error(`[${opts.name}] ${what}: ${e.message}`));
  };
  try {
    const pg = await startPostgres({
      dataDir: `.data/${opts.name}-postgres`,
      port: opts.pgPort,
      database: 'postgres',
      fast: true,
      ignoreDatabaseUrl: opts.ownServers,
    });
    started.push({ what: 'stopping PostgreSQL', undo: () => pg.stop() });
    const dbUrl = withDatabase(pg.url, opts.databaseName ?? `${opts.name}_${Date.now()}`);
    await createDatabase(dbUrl);
    started.push({ what: 'database not dropped now', undo: () => dropDatabase(dbUrl) });
    const sqliteFile = path.join(ROOT, '.data', `temporal-${opts.name}-${process.pid}.sqlite`);
    // Undone after the dev server that writes it stops, as stop() does.
    started.push({
      what: 'removing its files',
      undo: async () => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        for (const f of [sqliteFile, `${sqliteFile}-wal`, `${sqliteFile}-shm`]) fs.rmSync(f, { force: true });
      },
    });
    const onPostgres = (opts.temporalServer ?? (useTemporalOnPostgres() ? 'postgres' : 'dev')) === 'postgres';
    const temporalPort = !(await portOpen(opts.temporalPort))
      ? opts.temporalPort
      : onPostgres
        ? await freePortBelowSmallint()
        : await freePort();
    // TEMPORAL_SERVER=postgres: the production server on this stack's PostgreSQL instead of the dev server (stack/temporal-server.ts).
    const temporal = onPostgres
      ? await startTemporalOnPostgres({ pgUrl: pg.url, name: `${opts.name}_${process.pid}`, port: temporalPort, dropOnStop: true })
      : await startTemporal({ dbFile: sqliteFile, port: temporalPort, ignoreTemporalAddress: opts.ownServers });
    started.push({ what: 'stopping Temporal', undo: () => temporal.stop() });
    const stripeMock = await startStripeMock({ port: await freePort() });
    started.push({ what: 'stopping stripe-mock', undo: () => stripeMock.stop() });
    // The recognizer's stream port (GET /v1/listen relays real-time audio to it; a restarted recognizer keeps it), with
    // two stream slots so that the test files that stream can run side by side.
    const streamPort = await freePort();
    const startRec = (env: Record<string, string> = {}) =>
      startRecognizer({
        temporalAddress: temporal.address,
        dataDir,
        env: { LOG_LEVEL: 'warn', RECOGNIZER_STREAM_PORT: String(streamPort), RECOGNIZER_STREAMS: '2', ...opts.recognizerEnv, ...env },
      });
    // The recognizer loads its model while the migrations run; both settle before a failure of either is answered.
    const [migrating, recognizing] = await Promise.allSettled([
      applyMigrations(dbUrl),
      opts.recognizer ? startRec() : Promise.resolve(null),
    ]);
    // The recognizer is not on the list: stop() stops the current one (startRecognizer replaces it).
    if (migrating.status === 'rejected') {
      if (recognizing.status === 'fulfilled') await recognizing.value?.stop().catch(() => undefined);
      throw migrating.reason;
    }
    if (recognizing.status === 'rejected') throw recognizing.reason;
    return stackOf({
      opts,
      pg,
      dbUrl,
      dataDir,
      sqliteFile,
      temporal,
      stripeMock,
      migrations: migrating.value,
      recognizer: recognizing.value,
      streamPort,
      startRec,
      undoStarted,
    });
  } catch (err) {
    await undoStarted();
    throw err;
  }
}

function stackOf(parts: {
  opts: { name: string };
  pg: PostgresHandle;
  dbUrl: string;
  dataDir: string;
  sqliteFile: string;
  temporal: TemporalHandle;
  stripeMock: StripeMockHandle;
  migrations: string[];
  recognizer: RecognizerHandle | null;
  streamPort: number;
  startRec: (env?: Record<string, string>) => Promise<RecognizerHandle>;
  /** Stops the servers and removes the files, last started first (the recognizer aside). */
  undoStarted: () => Promise<void>;
}): ThrowawayStack {
  const { opts, pg, dbUrl, dataDir, sqliteFile, temporal, stripeMock, migrations, recognizer, streamPort, startRec, undoStarted } = parts;
  let stopping: Promise<void> | undefined;
  const stack: ThrowawayStack = {
    pg,
    temporal,
    stripeMock,
    dbUrl,
    dataDir,
    sqliteFile,
    migrations,
    recognizer,
    async startRecognizer(env) {
      stack.recognizer = await startRec(env);
      return stack.recognizer;
    },
    env: {
      DATABASE_URL: dbUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      // The web UI of either server (its /api/v1 is what the operator runbook's links use).
      TEMPORAL_UI_URL: temporal.uiUrl,
      TEMPORAL_DB_FILE: sqliteFile,
      APP_ENV: 'test',
      DATA_DIR: dataDir,
      RECOGNITION_TASK_QUEUE: 'recognition',
      RECOGNIZER_STREAM_URL: `tcp://127.0.0.1:${streamPort}`,
      // stripe-node talks to stripe-mock (domain/config.ts stripeSettings); events are signed by the tests.
      STRIPE_API_BASE: stripeMock.apiBase,
      STRIPE_SECRET_KEY: STRIPE_MOCK_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: STRIPE_DEV_WEBHOOK_SECRET,
    },
    stop() {
      stopping ??= (async () => {
        await stack.recognizer?.stop().catch((e) => console.error(`[${opts.name}] stopping the recognizer: ${e.message}`));
        await undoStarted();
      })();
      return stopping;
    },
  };
  return stack;
}
