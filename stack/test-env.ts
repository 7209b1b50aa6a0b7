/**
 * Runs jest against a private, throw-away stack:
 *   - PostgreSQL cluster .data/test-postgres (port 54339, separate from dev),
 *     with a fresh database per run, migrated, dropped at the end;
 *   - a Temporal dev server on 7243 (UI 8243) with a fresh SQLite file per run;
 *   - the speech recognition worker (recognizer/, Python) on that server's
 *     `recognition` task queue, reading and writing the run's local object
 *     store under DATA_DIR (.data/test-data-<pid>, removed at the end).
 * Extra arguments go to jest (`npm test -- test/foo.test.ts`). Exits with jest's
 * exit code, after printing one last plain line `N passed, N failed` for CI.
 *
 * TEST_STACK_NAME=<name> TEST_PG_PORT=<port> gives a run its own cluster
 * (.data/<name>-postgres): two people (or helpers) testing side by side in one
 * checkout must not share a cluster, because a run stops its cluster at its end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { isAlive, ROOT } from './proc';
import { startThrowawayStack, type ThrowawayStack } from './throwaway-stack';

const RUN = `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
const RESULTS = path.join(ROOT, '.data', `jest-results-${process.pid}.json`);

let stack: ThrowawayStack | undefined;
let jest: ChildProcess | undefined;

async function main(): Promise<number> {
  const t0 = Date.now();
  // 7243 normally; a free port when another test run (a second checkout, a helper) already has it.
  const name = process.env.TEST_STACK_NAME ?? 'test';
  const pgPort = Number(process.env.TEST_PG_PORT ?? 54339);
  stack = await startThrowawayStack({ name, pgPort, temporalPort: 7243, databaseName: `test_${RUN}`, recognizer: true });
  await dropAbandonedTestDatabases(stack.pg.url);
  removeAbandonedSqliteFiles();
  console.log(
    `[test] stack ready in ${Date.now() - t0} ms (database test_${RUN}, ${stack.migrations.length} migrations, Temporal ${stack.temporal.address}, recognizer ready in ${stack.recognizer!.startMs} ms)`,
  );

  const jestBin = require.resolve('jest/bin/jest');
  jest = spawn(process.execPath, [jestBin, '--runInBand=false', '--json', `--outputFile=${RESULTS}`, ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      // DATABASE_URL, TEMPORAL_ADDRESS, DATA_DIR (the object store the recognition worker shares), TEMPORAL_DB_FILE
      // (the stack tests check how the dev server keeps its file), APP_ENV=test, RECOGNITION_TASK_QUEUE.
      ...stack.env,
      FIXTURES_DIR: path.resolve(ROOT, '../shared/fixtures'),
      ASR_EVAL_DIR: path.resolve(ROOT, '../shared/asr-eval'),
    },
  });
  return new Promise((resolve) => jest!.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

/** Stops everything we started; safe to call twice. */
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    if (jest && jest.exitCode === null) jest.kill('SIGTERM');
    // The run's own databases (test/support/harness.ts privateDatabase), then the stack.
    // (If a Ctrl-C already stopped PostgreSQL, the next run drops them.)
    if (stack) await dropRunDatabases(stack.pg.url).catch((e) => console.error(`[test] private databases not dropped now: ${e.message}`));
    await stack?.stop();
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

async function dropRunDatabases(url: string) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [`test_${RUN}_`]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

/** Databases named test_<time>_<pid>[_<tag>] whose run is gone were left by a run that was killed. */
async function dropAbandonedTestDatabases(url: string) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(
      String.raw`SELECT datname FROM pg_database WHERE datname ~ '^test_\d{14}_\d+(_\w+)?$'`,
    );
    for (const { datname } of rows) {
      if (!isAlive(Number(datname.split('_')[2]))) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await c.end();
  }
}

function removeAbandonedSqliteFiles() {
  for (const f of fs.readdirSync(path.join(ROOT, '.data'))) {
    const m = /^temporal-test-(\d+)\.sqlite/.exec(f) ?? /^test-data-(\d+)$/.exec(f);
    if (m && !isAlive(Number(m[1]))) fs.rmSync(path.join(ROOT, '.data', f), { recursive: true, force: true });
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
