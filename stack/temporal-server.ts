/**
 * The Temporal server as it runs in production, on this machine: `go.temporal.io/server` built from its module
 * (the version the CLI's dev server bundles and docker-compose.yml runs), persistence and SQL visibility in
 * the project's PostgreSQL, its schema applied by the module's own SQL tool from the module's own
 * `schema/postgresql`. `TEMPORAL_SERVER=postgres` makes `npm run dev`, the tests and the benchmarks use it;
 * the dev server (stack/temporal.ts) stays the quick default.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { stringify as toYaml } from 'yaml';
import { createDatabase, dropDatabase, withDatabase } from './postgres';
import { claimServerPort, freePort, ROOT, superviseServer } from './proc';
import { DYNAMIC_CONFIG_FILE, frontendAnswers, registerSearchAttributes, type TemporalHandle } from './temporal';

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
/** The web UI's server: the version the Temporal CLI (the dev server) bundles, so both servers show the same UI. */
export const TEMPORAL_UI_SERVER_VERSION = 'v2.42.1';
const BIN_DIR = path.join(ROOT, '.tools/bin');
/** Each binary: its module, what `go install` names it (the last element of its package path), and its build stamp. */
const BINARIES = [
  { name: 'temporal-server', module: `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`, builtAs: 'server' },
  { name: 'temporal-sql-tool', module: `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`, builtAs: 'sql' },
  {
    name: 'temporal-ui-server',
    module: `github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_SERVER_VERSION}`,
    builtAs: 'server',
  },
] as const;
const stampOf = (b: (typeof BINARIES)[number]) => path.join(BIN_DIR, `.${b.name}-${b.module.split('@')[1]}`);

/** Whether the switch names the real server. */
export const useTemporalOnPostgres = () => process.env.TEMPORAL_SERVER === 'postgres';

/** Builds the server, its SQL tool and the UI server into .tools/bin unless these versions are there (the Go build cache makes a rebuild quick). */
export function ensureTemporalServer(): { server: string; sqlTool: string; uiServer: string; schemaDir: string } {
  fs.mkdirSync(BIN_DIR, { recursive: true });
  for (const binary of BINARIES) {
    const bin = path.join(BIN_DIR, binary.name);
    if (fs.existsSync(stampOf(binary)) && fs.existsSync(bin)) continue;
    const build = fs.mkdtempSync(path.join(BIN_DIR, '.build-'));
    try {
      console.log(`[temporal-server] building ${binary.module} (first run only; minutes on 2 cores)...`);
      const t0 = Date.now();
      const r = spawnSync('go', ['install', binary.module], { stdio: 'inherit', env: { ...process.env, GOBIN: build } });
      if (r.status !== 0) throw new Error(`go install ${binary.module} failed (exit ${r.status}); see output above`);
      fs.renameSync(path.join(build, binary.builtAs), bin);
      fs.writeFileSync(stampOf(binary), '');
      console.log(`[temporal-server] built ${binary.name} in ${Math.round((Date.now() - t0) / 1000)} s`);
    } finally {
      fs.rmSync(build, { recursive: true, force: true });
    }
  }
  const [server, sqlTool, uiServer] = BINARIES.map((b) => path.join(BIN_DIR, b.name)) as [string, string, string];
  const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const schemaDir = path.join(modCache, `go.temporal.io/server@${TEMPORAL_SERVER_VERSION}`, 'schema/postgresql/v12');
  if (!fs.existsSync(schemaDir)) throw new Error(`the schema of go.temporal.io/server ${TEMPORAL_SERVER_VERSION} is not at ${schemaDir}`);
  return { server, sqlTool, uiServer, schemaDir };
}

/** Creates a database when missing and brings its schema to the module's newest version (both steps idempotent). */
function applySchema(sqlTool: string, pg: URL, database: string, versionedDir: string): void {
  const base = ['--plugin', 'postgres12', '--ep', pg.hostname, '-p', pg.port, '-u', decodeURIComponent(pg.username), '--db', database];
  const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(pg.password) };
  const run = (args: string[], quiet = false) => {
    const r = spawnSync(sqlTool, [...base, ...(quiet ? ['--quiet'] : []), ...args], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`temporal-sql-tool ${args.join(' ')} on ${database} failed:\n${r.stdout}${r.stderr}`);
  };
  // setup-schema -v 0.0 creates the version table (a no-op, with --quiet, when it exists); update-schema applies what is missing.
  run(['setup-schema', '-v', '0.0'], true);
  run(['update-schema', '-d', versionedDir]);
}

export interface TemporalOnPostgresOptions {
  /** The project's PostgreSQL (any database of it): the server's two databases are made beside it. */
  pgUrl: string;
  /** Names the databases (`temporal_<name>`, `temporal_<name>_visibility`) and the config folder under .data/. */
  name: string;
  /** The frontend's gRPC port (what TEMPORAL_ADDRESS names). */
  port: number;
  /** Drop both databases on stop (a throw-away test stack). */
  dropOnStop?: boolean;
  /** The web UI's port; a free one when not given. */
  uiPort?: number;
}

/** Starts the real server on the project's PostgreSQL; resolves once the `default` namespace has the service's search attributes. */
export async function startTemporalOnPostgres(opts: TemporalOnPostgresOptions): Promise<TemporalHandle> {
  const { server, sqlTool, uiServer, schemaDir } = ensureTemporalServer();
  const pg = new URL(opts.pgUrl);
  const databases = { persistence: `temporal_${opts.name}`, visibility: `temporal_${opts.name}_visibility` };
  for (const db of Object.values(databases)) await createDatabase(withDatabase(opts.pgUrl, db));
  applySchema(sqlTool, pg, databases.persistence, path.join(schemaDir, 'temporal/versioned'));
  applySchema(sqlTool, pg, databases.visibility, path.join(schemaDir, 'visibility/versioned'));

  const root = path.join(ROOT, '.data', `temporal-server-${opts.name}`);
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  // The dev server's dynamic config, as the file the real server reads (docker-compose.yml mounts the same file).
  fs.copyFileSync(DYNAMIC_CONFIG_FILE, path.join(root, 'config/dynamicconfig.yaml'));
  const ports = {
    frontendHttp: await freePortBelowSmallint(),
    ...(Object.fromEntries(await Promise.all(PORT_NAMES.map(async (n) => [n, await freePortBelowSmallint()] as const))) as Record<
      PortName,
      number
    >),
  };
  fs.writeFileSync(path.join(root, 'config/development.yaml'), toYaml(serverConfig(opts, pg, databases, ports, root)));

  const address = `127.0.0.1:${opts.port}`;
  const pidFile = path.join(ROOT, '.data', `temporal-server-${opts.port}.pid`);
  await claimServerPort({ name: 'Temporal server', port: opts.port, pidFile, shareHint: `TEMPORAL_ADDRESS=${address}` });
  const child = spawn(server, ['--root', root, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stopServer = await superviseServer(child, {
    name: `Temporal server on ${address}`,
    prefix: '[temporal-server] ',
    pidFile,
    readyTimeoutMs: 120_000,
    stepMs: 250,
    killAfterMs: 15_000,
    ready: () => frontendAnswers(opts.port, (conn) => conn.workflowService.getSystemInfo({})),
  });
  let stopUi = async () => {};
  const stop = async () => {
    await stopUi();
    await stopServer();
    if (opts.dropOnStop) for (const db of Object.values(databases)) await dropDatabase(withDatabase(opts.pgUrl, db)).catch(() => undefined);
  };
  const conn = await Connection.connect({ address });
  let uiUrl = '';
  try {
    await ensureNamespace(conn, 'default');
    // A new namespace reaches every service's namespace cache within its refresh interval (about 10 s).
    let added: string[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        added = await registerSearchAttributes(conn);
        break;
      } catch (err) {
        if (attempt >= 120 || !/not found/i.test(String((err as Error).message))) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    if (added.length > 0) console.log(`[temporal-server] registered search attributes ${added.join(', ')}`);
    const ui = await startUiServer(uiServer, path.join(root, 'ui'), address, opts.uiPort ?? (await freePort()));
    stopUi = ui.stop;
    uiUrl = ui.url;
  } catch (err) {
    await stop();
    throw err;
  } finally {
    await conn.close();
  }
  return { address, uiUrl, started: true, pid: child.pid ?? null, stop };
}

/**
 * The Temporal web UI as production runs it: its own server (temporalio/ui-server) in front of the frontend's
 * gRPC port, the same UI the dev server embeds. Resolves once it serves its page.
 */
async function startUiServer(
  bin: string,
  root: string,
  grpcAddress: string,
  port: number,
): Promise<{ url: string; stop: () => Promise<void> }> {
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  const url = `http://127.0.0.1:${port}`;
  const config = {
    temporalGrpcAddress: grpcAddress,
    host: '127.0.0.1',
    port,
    enableUi: true,
    defaultNamespace: 'default',
    notifyOnNewVersion: false,
    refreshInterval: '1m',
    // Loopback over plain http: the session cookie cannot be Secure.
    cors: { cookieInsecure: true, allowOrigins: [url] },
    auth: { enabled: false },
  };
  fs.writeFileSync(path.join(root, 'config/development.yaml'), toYaml(config));
  const pidFile = path.join(ROOT, '.data', `temporal-ui-server-${port}.pid`);
  await claimServerPort({ name: 'Temporal UI server', port, pidFile, shareHint: `another UI server on ${url}` });
  const child = spawn(bin, ['--root', root, '--config', 'config', '--env', 'development', 'start'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = await superviseServer(child, {
    name: `Temporal UI server on ${url}`,
    prefix: '[temporal-ui] ',
    pidFile,
    readyTimeoutMs: 30_000,
    stepMs: 100,
    killAfterMs: 5_000,
    ready: () =>
      fetch(url, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.ok,
        () => false,
      ),
  });
  return { url, stop };
}

/** The namespace the service uses, registered once (the real server, unlike the dev server, starts with none). */
async function ensureNamespace(conn: Connection, namespace: string): Promise<void> {
  const exists = () =>
    conn.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
  if (!(await exists())) {
    await conn.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') })
      .catch((err: unknown) => {
        if (!/already exists|AlreadyExists/.test(String((err as Error).message))) throw err;
      });
  }
  for (let i = 0; i < 120 && !(await exists()); i++) await new Promise((r) => setTimeout(r, 250));
}

/**
 * A free loopback port the server's cluster-membership table can hold: it stores ports as `smallint`, so
 * the OS's ephemeral ports (32768 and up) fail its start ("value is out of range for type smallint").
 */
export async function freePortBelowSmallint(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const PORT_NAMES = [
  'frontendMembership',
  'historyGrpc',
  'historyMembership',
  'matchingGrpc',
  'matchingMembership',
  'workerGrpc',
  'workerMembership',
] as const;
type PortName = (typeof PORT_NAMES)[number];

/** The server's static config: every service in one process on loopback, persistence and visibility in PostgreSQL. */
function serverConfig(
  opts: TemporalOnPostgresOptions,
  pg: URL,
  databases: { persistence: string; visibility: string },
  ports: Record<PortName, number> & { frontendHttp: number },
  root: string,
) {
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.hostname}:${pg.port}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra: Record<string, unknown> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: { 'postgres-default': datastore(databases.persistence, 20), 'postgres-visibility': datastore(databases.visibility, 10) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(opts.port, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.historyGrpc, ports.historyMembership),
      matching: service(ports.matchingGrpc, ports.matchingMembership),
      worker: service(ports.workerGrpc, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${opts.port}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: path.join(root, 'config/dynamicconfig.yaml'), pollInterval: '10s' },
  };
}
