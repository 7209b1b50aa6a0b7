/**
 * `npm run dev`: the whole service on this machine.
 *   PostgreSQL  .data/dev-postgres, port 54329 (data kept between runs)
 *   Temporal    .data/temporal-dev.sqlite, port 7233, UI 8233 (workflows kept between runs)
 *   stripe-mock port 12111 (Stripe's API for checkout and portal; not started when
 *               STRIPE_SECRET_KEY is set in this shell: then that Stripe account is used)
 *   then migrations, the dev seed, and the API (port 3000) and worker processes,
 *   and the speech recognition worker (recognizer/, Python: Whisper base, loaded once).
 *   The API, the worker and the recognizer are supervised (stack/supervisor.ts): each
 *   exit is logged and the process is started again with backoff.
 * `npm run dev -- --traces` also runs Jaeger (stack/jaeger.ts: OTLP on 4318, query API on 16686) and turns
 * tracing on in the API, worker and recognizer; `npm run traces` reads the traces back.
 * Ctrl-C stops the API and workers first, then Temporal, then PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { seedDevWorkspace } from '../domain/accounts/seed';
import { createDb } from '../domain/db';
import { applyMigrations } from '../prisma/migrate';
import { startPostgres, type PostgresHandle } from './postgres';
import { prefixLines, ROOT, waitFor } from './proc';
import { startRecognizer, type RecognizerHandle } from './recognizer';
import { LLM_MODEL_NAME, llmInstalled, startLlmServer, type LlmServerHandle } from './llm';
import { supervise, type RunningProcess, type Supervisor } from './supervisor';
import { startStripeMock, STRIPE_DEV_WEBHOOK_SECRET, STRIPE_MOCK_SECRET_KEY, type StripeMockHandle } from './stripe-mock';
import { startTemporal, type TemporalHandle } from './temporal';
import { startTemporalOnPostgres, useTemporalOnPostgres } from './temporal-server';
import { startJaeger, type JaegerHandle } from './jaeger';

const PORT = 3000;
const BASE = `http://localhost:${PORT}`;
/** The recognizer's stream port, where the API relays GET /v1/listen. */
const RECOGNIZER_STREAM_PORT = 7301;

let pg: PostgresHandle | undefined;
let temporal: TemporalHandle | undefined;
let recognizer: Supervisor<RecognizerHandle> | undefined;
let stripeMock: StripeMockHandle | undefined;
let jaeger: JaegerHandle | undefined;
let llm: LlmServerHandle | undefined;
const supervisors: Supervisor[] = [];
let stopping = false;

async function main() {
  pg = await startPostgres({ dataDir: '.data/dev-postgres', port: 54329 });
  temporal = useTemporalOnPostgres()
    ? await startTemporalOnPostgres({ pgUrl: pg.url, name: 'dev', port: 7233, uiPort: 8233 })
    : await startTemporal({ dbFile: '.data/temporal-dev.sqlite', port: 7233 });
  // A real (test-mode) Stripe account when the shell names one; else Stripe's own mock.
  if (!process.env.STRIPE_SECRET_KEY) stripeMock = await startStripeMock({ port: 12111 });
  if (process.argv.includes('--traces')) jaeger = await startJaeger({ otlp: 4318, query: 16686, queryGrpc: 16685 });
  // Summaries: the embedded language model, unless the shell names an endpoint of its own (LLM_BASE_URL).
  if (!process.env.LLM_BASE_URL && llmInstalled()) llm = await startLlmServer({ port: 8091 });
  const applied = await applyMigrations(pg.url);
  console.log(`[dev] migrations: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);

  const env = {
    ...process.env,
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    PORT: String(PORT),
    RECOGNIZER_STREAM_URL: `tcp://127.0.0.1:${RECOGNIZER_STREAM_PORT}`,
    APP_ENV: 'development',
    DATA_DIR: '.data',
    TEMPORAL_UI_URL: temporal.uiUrl,
    ...(jaeger ? { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint } : {}),
    ...(llm ? { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: LLM_MODEL_NAME } : {}),
    ...(stripeMock
      ? {
          STRIPE_API_BASE: stripeMock.apiBase,
          STRIPE_SECRET_KEY: STRIPE_MOCK_SECRET_KEY,
          STRIPE_WEBHOOK_SECRET: process.env.STRIPE_WEBHOOK_SECRET ?? STRIPE_DEV_WEBHOOK_SECRET,
        }
      : {}),
  };
  const seed = await runSeed(pg.url);

  // Each process is kept running: an exit is logged and the process started again with backoff (stack/supervisor.ts).
  supervisors.push(await superviseChild('api', 'api/main.ts', env), await superviseChild('worker', 'worker/main.ts', env));
  // Same Temporal and object store (DATA_DIR) as the worker; S3_* and WHISPER_* pass through from this shell.
  recognizer = await supervise({
    name: 'recognizer',
    log,
    start: () =>
      startRecognizer({
        temporalAddress: temporal!.address,
        dataDir: env.DATA_DIR,
        env: {
          LOG_LEVEL: process.env.LOG_LEVEL,
          OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT,
          RECOGNIZER_STREAM_PORT: String(RECOGNIZER_STREAM_PORT),
        },
      }),
  });
  const apiUp = await waitFor(
    () =>
      fetch(`${BASE}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
    500,
  );
  printBanner(seed, apiUp);
}

type Seed = Awaited<ReturnType<typeof seedDevWorkspace>>;

/** The dev account (domain/accounts/seed.ts): its key and password go into the banner. */
async function runSeed(databaseUrl: string): Promise<Seed> {
  const { prisma, close } = createDb(databaseUrl, 2);
  try {
    return await seedDevWorkspace(prisma, BASE);
  } finally {
    await close();
  }
}

const log = (line: string) => console.error(`[dev] ${line.replace(/^\[supervisor\] /, '')}`);

/** A TypeScript process of the service (tsx as a node loader: one process, so a signal reaches the program itself). */
function startChild(name: string, entry: string, env: NodeJS.ProcessEnv): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  prefixLines(child, `[${name}] `);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid ?? -1,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

async function superviseChild(name: string, entry: string, env: NodeJS.ProcessEnv): Promise<Supervisor> {
  return supervise({ name, log, start: async () => startChild(name, entry, env) });
}

function printBanner(seed: Seed, apiUp: boolean) {
  const lines = [
    '',
    '================================================================',
    ` API           ${BASE}${apiUp ? '' : '   (not answering /healthz yet: see [api] output)'}`,
    ` OpenAPI       ${BASE}/openapi.json`,
    ` API docs      ${BASE}/docs`,
    ` Temporal UI   ${temporal!.uiUrl}`,
    ` Traces        ${jaeger ? `Jaeger ${jaeger.queryUrl} (OTLP ${jaeger.otlpEndpoint}); read them with npm run traces` : 'off (npm run dev -- --traces turns them on)'}`,
    ` Stripe        ${stripeMock ? `stripe-mock ${stripeMock.apiBase} (no state, no webhooks)` : 'the account of STRIPE_SECRET_KEY'}`,
    ` Database      ${pg!.url}`,
    ` Recognizer    ${
      recognizer?.current()
        ? recognizer
            .current()!
            .readyLine.replace(/^recognizer ready: /, '')
            .split(' ')
            .slice(0, 5)
            .join(' ')
        : 'not running'
    }`,
    ` Summaries     ${llm ? `${LLM_MODEL_NAME} at ${llm.baseUrl}` : process.env.LLM_BASE_URL ? `the endpoint of LLM_BASE_URL` : 'off (bash stack/llm-setup.sh installs the model)'}`,
  ];
  lines.push(
    ` API key       ${seed.apiKey}`,
    `               curl -H 'Authorization: Bearer ${seed.apiKey}' ${BASE}/v1/usage`,
    ` Sign in       ${seed.email} / ${seed.password}`,
    `               browser: ${BASE}/app/sign-in`,
    `               or: curl -c cookies.txt -H 'Content-Type: application/json' \\`,
    `                     -d '{"email":"${seed.email}","password":"${seed.password}"}' ${BASE}/app/session`,
  );

  lines.push(
    ` Dev outbox    ${BASE}/app/dev/outbox   (e-mails the service "sent")`,
    ' Ctrl-C stops everything.',
    '================================================================',
    '',
  );
  console.log(lines.join('\n'));
}

/** Children first (they hold connections to the servers), then Temporal, then PostgreSQL. */
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  console.log('\n[dev] stopping...');
  await Promise.all([recognizer?.stop(), ...supervisors.map((s) => s.stop())]);
  await llm?.stop().catch((e) => console.error(`[dev] stopping the language model: ${e.message}`));
  await temporal?.stop().catch((e) => console.error(`[dev] stopping Temporal: ${e.message}`));
  await jaeger?.stop().catch((e) => console.error(`[dev] stopping Jaeger: ${e.message}`));
  await stripeMock?.stop().catch((e) => console.error(`[dev] stopping stripe-mock: ${e.message}`));
  await pg?.stop().catch((e) => console.error(`[dev] stopping PostgreSQL: ${e.message}`));
  process.exit(code);
}

// process.on, not once: a repeated signal (terminal + tsx relay) must not kill us mid-shutdown.
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().catch((e) => {
  console.error(`[dev] ${e instanceof Error ? e.stack : e}`);
  void shutdown(1);
});
