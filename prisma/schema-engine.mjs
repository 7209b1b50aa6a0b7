// Runs one Prisma Schema Engine command with the WebAssembly engine
// (@prisma/schema-engine-wasm) talking to PostgreSQL through @prisma/adapter-pg.
// This replaces the native schema-engine binary that `prisma migrate` would
// download from Prisma's servers (unreachable here).
//
// It is a separate .mjs process because the package is ESM with a direct
// `.wasm` import, which Node 20 only loads with --experimental-wasm-modules.
//
// Usage: node --experimental-wasm-modules prisma/schema-engine.mjs < request.json
//   request: { method, url, datamodels: [[path, content]], input }
//   stdout:  the method's JSON result; errors go to stderr with exit code 1.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { SchemaEngine } from '@prisma/schema-engine-wasm';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } from '@prisma/driver-adapter-utils';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const { method, url, datamodels, input } = JSON.parse(Buffer.concat(chunks).toString('utf8'));

// The engine logs JSON lines (tracing events); show warnings and errors only.
const log = (line) => {
  try {
    const e = JSON.parse(line);
    if (e.level === 'WARN' || e.level === 'ERROR') process.stderr.write(`[schema-engine] ${e.fields?.message ?? line}\n`);
  } catch {
    process.stderr.write(`[schema-engine] ${line}\n`);
  }
};

// A Rust panic inside the engine reports its message through this global
// (otherwise all we would see is "RuntimeError: unreachable").
let panicMessage;
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (m) => (panicMessage = m) };
process.on('uncaughtException', (e) => {
  process.stderr.write(`schema engine ${method} crashed: ${e?.stack ?? e}\n${panicMessage ? `engine panic: ${panicMessage}\n` : ''}`);
  process.exit(1);
});

// Connection settings as separate fields (parsed by pg's own parser), so that
// connectToShadowDb() below can point the same settings at another database.
const config = createRequire(createRequire(import.meta.url).resolve('pg'))('pg-connection-string').parse(url);
const factory = new PrismaPg(config);
factory.connectToShadowDb = connectToShadowDb;
let engine;
try {
  await patchCharColumns(factory);
  engine = await SchemaEngine.new({ datamodels }, log, bindMigrationAwareSqlAdapterFactory(factory));
  const result = await engine[method](input);
  process.stdout.write(JSON.stringify(result ?? null));
} catch (e) {
  // Engine errors are objects carrying a user-facing message (and often a code).
  const msg = e?.message ?? (typeof e === 'object' ? JSON.stringify(e) : String(e));
  process.stderr.write(`schema engine ${method} failed: ${msg}\n${panicMessage ? `engine panic: ${panicMessage}\n` : ''}`);
  process.exitCode = 1;
}
// Exit now: the adapter's pg pool would otherwise keep the process alive
// until its idle connections time out (10 s).
process.stdout.write('', () => process.exit());

// Workaround: to describe a schema (needed by diff and drift checks) the
// engine reads PostgreSQL's catalogs, and some catalog columns have the
// internal one-byte type "char" (OID 18, e.g. pg_constraint.contype).
// adapter-pg 7.10 has no mapping for OID 18 and fails with "Column type 'char'
// could not be deserialized from the database"; the engine expects such
// columns as Character values. pg already returns them as strings, so we let
// adapter-pg treat them as text (OID 25) and then report them as Character.
// The patch lives only in this short-lived process.
async function patchCharColumns(factory) {
  const probe = await factory.connect();
  const queryable = Object.getPrototypeOf(Object.getPrototypeOf(probe)); // PgQueryable (base of adapter and transactions)
  await probe.dispose();
  const { performIO, queryRaw } = queryable;
  if (typeof performIO !== 'function' || typeof queryRaw !== 'function') {
    throw new Error('adapter-pg internals changed: cannot patch "char" columns');
  }
  const CHAR_COLUMNS = Symbol('charColumns');
  queryable.performIO = async function (query) {
    const result = await performIO.call(this, query);
    const idx = result.fields.flatMap((f, i) => (f.dataTypeID === 18 ? [i] : []));
    if (idx.length) {
      result.fields = result.fields.map((f) => (f.dataTypeID === 18 ? { ...f, dataTypeID: 25 } : f));
      result.rows[CHAR_COLUMNS] = idx; // same array object comes back from queryRaw
    }
    return result;
  };
  queryable.queryRaw = async function (query) {
    const rs = await queryRaw.call(this, query);
    for (const i of rs.rows[CHAR_COLUMNS] ?? []) rs.columnTypes[i] = ColumnTypeEnum.Character;
    return rs;
  };
}

// The engine replays migrations into a temporary "shadow" database. adapter-pg
// 7.10's own connectToShadowDb() has two bugs here: with a connection string
// its shadow pool still connects to the MAIN database (pg lets the connection
// string win over the `database` it sets), and its cleanup drops the shadow
// database before closing its own connections ("is being accessed by other
// users"), leaving it behind. This is the same thing done in the right order.
async function connectToShadowDb() {
  const main = await factory.connect();
  const name = `prisma_migrate_shadow_db_${randomUUID()}`;
  await main.executeScript(`CREATE DATABASE "${name}"`);
  const shadow = await new PrismaPg({ ...config, database: name }).connect();
  const dispose = shadow.dispose.bind(shadow);
  shadow.dispose = async () => {
    await dispose();
    await main.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await main.dispose();
  };
  return shadow;
}
