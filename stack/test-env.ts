/**
 * Runs jest against a private, throw-away stack:
 *   - PostgreSQL cluster .data/test-postgres (port 54339, separate from dev),
 *     with a fresh database per run, migrated, dropped at the end;
 *   - a Temporal dev server on 7243 (UI 8243) with a fresh SQLite file per run.
 * Extra arguments go to jest (`npm test -- test/foo.test.ts`). Exits with jest's
 * exit code, after printing one last plain line `N passed, N failed` for CI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { applyMigrations } from '../prisma/migrate';
import { createDatabase, dropDatabase, startPostgres, withDatabase, type PostgresHandle } from './postgres';
import { freePort, isAlive, portOpen, ROOT } from './proc';
import { startTemporal, type TemporalHandle } from './temporal';

const RUN = `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
const RESULTS = path.join(ROOT, '.data', `jest-results-${process.pid}.json`);

let pg: PostgresHandle | undefined;
let temporal: TemporalHandle | undefined;
let testDbUrl: string | undefined;
let jest: ChildProcess | undefined;
let sqliteFile: string | undefined;

async function main(): Promise<number> {
  const t0 = Date.now();
  pg = await startPostgres({ dataDir: '.data/test-postgres', port: 54339, database: 'postgres', fast: true });
  await dropAbandonedTestDatabases(pg.url);
  testDbUrl = withDatabase(pg.url, `test_${RUN}`);
  await createDatabase(testDbUrl);

  sqliteFile = path.join(ROOT, '.data', `temporal-test-${process.pid}.sqlite`);
  // 7243 normally; a free port when another test run (a second checkout, a helper) already has it.
  temporal = await startTemporal({ dbFile: sqliteFile, port: (await portOpen(7243)) ? await freePort() : 7243 });
  removeAbandonedSqliteFiles();

  const applied = await applyMigrations(testDbUrl);
  console.log(
    `[test] stack ready in ${Date.now() - t0} ms (database test_${RUN}, ${applied.length} migrations, Temporal ${temporal.address})`,
  );

  const jestBin = require.resolve('jest/bin/jest');
  jest = spawn(process.execPath, [jestBin, '--runInBand=false', '--json', `--outputFile=${RESULTS}`, ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      DATABASE_URL: testDbUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      // Lets the stack tests check how the dev server keeps its file.
      TEMPORAL_DB_FILE: sqliteFile,
      APP_ENV: 'test',
      FIXTURES_DIR: path.resolve(ROOT, '../shared/fixtures'),
    },
  });
  return new Promise((resolve) => jest!.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

/** Stops everything we started; safe to call twice. */
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    if (jest && jest.exitCode === null) jest.kill('SIGTERM');
    // (If a Ctrl-C already stopped PostgreSQL, the next run drops this database.)
    if (pg && testDbUrl) await dropDatabase(testDbUrl).catch((e) => console.error(`[test] test database not dropped now: ${e.message}`));
    await temporal?.stop().catch((e) => console.error(`[test] stopping Temporal: ${e.message}`));
    await pg?.stop().catch((e) => console.error(`[test] stopping PostgreSQL: ${e.message}`));
    for (const f of [sqliteFile, sqliteFile && `${sqliteFile}-wal`, sqliteFile && `${sqliteFile}-shm`])
      if (f) fs.rmSync(f, { force: true });
  })();
  return cleaning;
}

/** The plain summary line CI reads. A suite that cannot even load counts as a failure. */
function summary(): string {
  try {
    const r = JSON.parse(fs.readFileSync(RESULTS, 'utf8'));
    fs.rmSync(RESULTS, { force: true });
    return `${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`;
  } catch {
    return '0 passed, 0 failed (jest wrote no results)';
  }
}

/** Databases named test_<time>_<pid> whose run is gone were left by a run that was killed. */
async function dropAbandonedTestDatabases(url: string) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(String.raw`SELECT datname FROM pg_database WHERE datname ~ '^test_\d{14}_\d+$'`);
    for (const { datname } of rows) {
      if (!isAlive(Number(datname.split('_')[2]))) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await c.end();
  }
}

function removeAbandonedSqliteFiles() {
  for (const f of fs.readdirSync(path.join(ROOT, '.data'))) {
    const m = /^temporal-test-(\d+)\.sqlite/.exec(f);
    if (m && !isAlive(Number(m[1]))) fs.rmSync(path.join(ROOT, '.data', f), { force: true });
  }
}

// process.on, not once: the same Ctrl-C can arrive twice (from the terminal and
// relayed by tsx), and with no listener left tsx's own handler exits at once,
// skipping the cleanup.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    if (!cleaning) console.error(`\n[test] ${signal}: stopping`);
    void cleanup().finally(() => process.exit(code));
  });
}

void main()
  .catch((e) => {
    console.error(`[test] ${e instanceof Error ? e.message : e}`);
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    console.log(summary());
    process.exit(code);
  });
