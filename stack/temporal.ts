/**
 * Local Temporal for dev and tests: the Temporal CLI's dev server (Temporal
 * Server + SQLite + web UI in one binary). No server binary is on npm and the
 * vendor download site is unreachable here, so we build the CLI from the Go
 * module proxy once into .tools/bin and reuse it.
 *
 * If TEMPORAL_ADDRESS is set, that server is used and nothing is started.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { parse as parseYaml } from 'yaml';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/definitions';
import { claimServerPort, portOpen, ROOT, serveUntilSignal, superviseServer } from './proc';

// v1.5.1 is the newest CLI whose go.mod has no `replace` directive, which
// `go install module@version` refuses. It bundles Temporal Server 1.29.1.
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const EXPECTED_SERVER = 'Server 1.29.1';
export const TEMPORAL_BIN = path.join(ROOT, '.tools/bin/temporal');

/** Shared with docker-compose.yml, which mounts it as the server's dynamic config file. */
export const DYNAMIC_CONFIG_FILE = path.join(ROOT, 'stack/temporal-dynamic-config.yaml');

/**
 * The dynamic config file as `--dynamic-config-value KEY=JSON` arguments for
 * the dev server (it takes no file). Only unconstrained values (the first
 * entry of each key without `constraints`) can be expressed that way.
 */
export function dynamicConfigArgs(file = DYNAMIC_CONFIG_FILE): string[] {
  const doc = (parseYaml(fs.readFileSync(file, 'utf8')) ?? {}) as Record<string, { value: unknown; constraints?: unknown }[]>;
  const args: string[] = [];
  for (const [key, entries] of Object.entries(doc)) {
    const plain = entries.find((e) => e.constraints === undefined);
    if (!plain) throw new Error(`${file}: ${key} has only constrained values, which the dev server cannot take`);
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(plain.value)}`);
  }
  return args;
}

/**
 * SQLite settings of the dev server's file. In the default rollback-journal
 * mode about half of all task dispatches took 40-60 ms instead of ~10 ms
 * (first workflow task of a caption job, p50 39 -> 15 ms with WAL), the
 * pattern of writes waiting in SQLite's busy handler. WAL lets readers and the writer
 * work at once; synchronous=NORMAL is still safe against a crashed process,
 * which is all a dev server's history needs.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/**
 * The service's search attributes (workflows/definitions.ts) as
 * `--search-attribute Name=Type` arguments: the dev server registers them when
 * it creates the namespace, that is on a new SQLite file.
 */
export function searchAttributeArgs(): string[] {
  return SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=${TypedSearchAttributes.toMetadataType(k.type)}`]);
}

/** An AddSearchAttributes request's map (name → indexed value type) of these keys. */
export function searchAttributeTypes(keys = SEARCH_ATTRIBUTE_KEYS) {
  return Object.fromEntries(keys.map((k) => [k.name, encodeSearchAttributeIndexedValueType(k.type)!]));
}

/**
 * Registers the search attributes a server does not have yet (a dev server on
 * a SQLite file made before they existed ignores the start flags), and waits
 * until the namespace lists them. Adding one that exists is a no-op.
 */
export async function registerSearchAttributes(conn: Connection, namespace = 'default'): Promise<string[]> {
  const listed = async () => (await conn.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  const have = await listed();
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !(k.name in have));
  if (missing.length === 0) return [];
  await conn.operatorService.addSearchAttributes({ namespace, searchAttributes: searchAttributeTypes(missing) });
  for (let i = 0; i < 120; i++) {
    const now = await listed();
    if (missing.every((k) => k.name in now)) return missing.map((k) => k.name);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Temporal did not list the new search attributes ${missing.map((k) => k.name).join(', ')} within 30 s`);
}

/** Whether a Temporal frontend on 127.0.0.1:`port` accepts a connection and answers `probe`. */
export async function frontendAnswers(port: number, probe: (conn: Connection) => Promise<unknown>): Promise<boolean> {
  if (!(await portOpen(port))) return false;
  const conn = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 2000 }).catch(() => undefined);
  if (!conn) return false;
  try {
    await probe(conn);
    return true;
  } catch {
    return false;
  } finally {
    await conn.close();
  }
}

export interface TemporalHandle {
  address: string;
  uiUrl: string;
  started: boolean;
  /** The server's process id when this process started it (the scale test and the servers bench read its CPU). */
  pid: number | null;
  stop(): Promise<void>;
}

/** Builds the CLI into .tools/bin unless the pinned version is already there. */
export function ensureTemporalCli(): string {
  if (fs.existsSync(TEMPORAL_BIN)) {
    // `go install` does not stamp a CLI version (it prints 0.0.0-DEV), but the
    // bundled server version identifies the build.
    const v = spawnSync(TEMPORAL_BIN, ['--version'], { encoding: 'utf8' }).stdout ?? '';
    if (v.includes(EXPECTED_SERVER)) return TEMPORAL_BIN;
    console.log(`[temporal] ${TEMPORAL_BIN} reports "${v.trim()}", expected ${EXPECTED_SERVER}: rebuilding`);
  }
  if (spawnSync('go', ['version']).status !== 0) {
    throw new Error(
      'The Temporal CLI is missing and Go (1.25+) is not installed to build it. ' +
        `Install Go, or run \`GOBIN=${path.dirname(TEMPORAL_BIN)} go install ${TEMPORAL_CLI_MODULE}\`, ` +
        'or point TEMPORAL_ADDRESS at a running Temporal server.',
    );
  }
  console.log(`[temporal] building ${TEMPORAL_CLI_MODULE} into .tools/bin (first run only; several minutes on 2 cores)...`);
  const t0 = Date.now();
  // `-x` would be noisy; go prints "go: downloading ..." lines, which is progress enough.
  const r = spawnSync('go', ['install', TEMPORAL_CLI_MODULE], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: path.dirname(TEMPORAL_BIN) },
  });
  if (r.status !== 0 || !fs.existsSync(TEMPORAL_BIN)) {
    throw new Error(`go install ${TEMPORAL_CLI_MODULE} failed (exit ${r.status}); see output above`);
  }
  console.log(`[temporal] built in ${Math.round((Date.now() - t0) / 1000)} s`);
  return TEMPORAL_BIN;
}

export async function startTemporal(opts: {
  dbFile: string;
  port: number;
  /** Start this server even when TEMPORAL_ADDRESS names another (like startPostgres's ignoreDatabaseUrl). */
  ignoreTemporalAddress?: boolean;
}): Promise<TemporalHandle> {
  if (process.env.TEMPORAL_ADDRESS && !opts.ignoreTemporalAddress) {
    return {
      address: process.env.TEMPORAL_ADDRESS,
      uiUrl: process.env.TEMPORAL_UI_URL ?? '(not known: TEMPORAL_ADDRESS was given)',
      started: false,
      pid: null,
      stop: async () => {},
    };
  }
  const bin = ensureTemporalCli();
  const address = `127.0.0.1:${opts.port}`;
  const uiPort = opts.port + 1000;
  const dbFile = path.resolve(ROOT, opts.dbFile);
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });

  // A server left by a run that was killed hard still holds the port.
  const pidFile = path.join(ROOT, '.data', `temporal-${opts.port}.pid`);
  await claimServerPort({ name: 'Temporal', port: opts.port, pidFile, shareHint: `TEMPORAL_ADDRESS=127.0.0.1:${opts.port}` });

  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--ui-port',
    String(uiPort),
    '--log-level',
    'warn',
    ...dynamicConfigArgs(),
    ...searchAttributeArgs(),
    ...DEV_SERVER_SQLITE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p]),
  ];
  // Own process group: a Ctrl-C in the terminal reaches only us, and we stop
  // the server after the processes that use it.
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stop = await superviseServer(child, {
    name: `Temporal on ${address}`,
    prefix: '[temporal] ',
    pidFile,
    readyTimeoutMs: 120_000,
    stepMs: 250,
    killAfterMs: 15_000,
    // Ready = the frontend answers and the `default` namespace is registered
    // (start-dev registers it during startup; clients fail until then).
    ready: () => frontendAnswers(opts.port, (conn) => conn.workflowService.describeNamespace({ namespace: 'default' })),
  });

  // A SQLite file from before the search attributes existed keeps its namespace as it was.
  const conn = await Connection.connect({ address });
  try {
    const added = await registerSearchAttributes(conn);
    if (added.length > 0) console.log(`[temporal] registered search attributes ${added.join(', ')} on ${dbFile}`);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await conn.close();
  }

  return {
    address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    started: true,
    pid: child.pid ?? null,
    stop,
  };
}

// `tsx stack/temporal.ts [dbFile] [port]`: start a dev server and keep it running.
if (require.main === module) {
  serveUntilSignal('temporal', async () => {
    const t = await startTemporal({ dbFile: process.argv[2] ?? '.data/temporal-dev.sqlite', port: Number(process.argv[3] ?? 7233) });
    return { stop: t.stop, describe: `${t.address}, UI ${t.uiUrl}` };
  });
}
