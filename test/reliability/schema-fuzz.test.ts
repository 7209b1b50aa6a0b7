import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { createHttpServer } from '../../api/http/server';
import { RateLimits } from '../../api/http/rate-limit';
import { ROOT } from '../../stack/proc';
import { createWorkspace, signInSession, startTestApi, type TestApi } from '../support/harness';

// Schema fuzzing of the served OpenAPI document with schemathesis (pinned by
// hash in stack/python/test-tools.txt, installed by stack/setup.sh). It sends
// schema-valid and schema-violating requests to every operation and fails on
// any undocumented 5xx and any status, header, content type or body off the
// document (test/reliability/schemathesis.toml). The full report lands in
// .data/schemathesis/.
//
// Two modes, so that CI's verdict depends only on the commit:
//   - CI (the default, `npm test`): derandomized (fixed seed, deterministic
//     generation) with a budget of examples per
//     operation, on one worker, never a budget of seconds: the same requests
//     on a fast or a slow host (deterministic mode keeps no example database).
//   - `npm run fuzz` (SCHEMA_FUZZ_MODE=random): a new seed each run (printed),
//     a budget of SCHEMA_FUZZ_SECONDS (default 600) and more examples, with
//     hypothesis' example database under .data so a failure replays. What it
//     finds becomes a regression test (test/reliability/hostile-requests.test.ts).

// Every check that compares the server with its document. Left out:
// positive_data_acceptance (a schema-valid request may still break a business
// rule: an unknown upload, a malformed cursor) and the stateful checks (the
// stateful phase is not run).
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'missing_required_header',
  'unsupported_method',
  'allow_header_conformance',
  'ignored_auth',
];
const ST = path.join(ROOT, '.tools/venv-test/bin/st');
const RANDOM = process.env.SCHEMA_FUZZ_MODE === 'random';
/** CI: examples per operation and phase (a count, not a time). */
const CI_EXAMPLES = 25;
const CI_SEED = 20261125;
/** `npm run fuzz`: the time budget of each of the two runs. */
const RANDOM_SECONDS = Number(process.env.SCHEMA_FUZZ_SECONDS ?? 600) / 2;
const RANDOM_SEED = Number(process.env.SCHEMA_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** What bounds a run: examples in CI, seconds in `npm run fuzz`. */
function budget(): string[] {
  if (!RANDOM) {
    return [
      '--max-examples',
      String(CI_EXAMPLES),
      '--seed',
      String(CI_SEED),
      '--generation-deterministic',
      '--workers',
      '1',
      '--suppress-health-check',
      'too_slow',
    ];
  }
  return [
    '--max-examples',
    '500',
    '--max-time',
    String(RANDOM_SECONDS),
    '--seed',
    String(RANDOM_SEED),
    '--generation-database',
    path.join(ROOT, '.data', 'schemathesis', 'examples.db'),
    '--workers',
    '2',
  ];
}
/** jest's timeout of one run: generous in CI (a slow host takes longer, never tests less). */
const RUN_TIMEOUT_MS = RANDOM ? (RANDOM_SECONDS + 300) * 1000 : 30 * 60_000;

/** Rate limits off for the fuzzer's key: every request should reach validation and the handlers, not a 429. */
class NoRateLimits extends RateLimits {
  override async consume() {
    return { headers: {} };
  }
}

let api: TestApi;
let server: net.Server;

beforeAll(async () => {
  // A task queue no worker serves: accepted jobs wait, nothing is fetched.
  // Sign-ups limited far above what the fuzzer sends (its own counter, too), so they reach the handler like the rest.
  api = await startTestApi(
    { TEMPORAL_TASK_QUEUE: `fuzz-${process.pid}`, UPLOAD_VERIFY_WAIT_SECONDS: '1', CANCEL_WAIT_SECONDS: '1', SIGN_UPS_PER_HOUR: '100000' },
    {},
  );
  api.deps.rateLimits = new NoRateLimits(api.deps.pool);
  server = createHttpServer(api.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
});

afterAll(async () => {
  server.close();
  await api.close();
});

/**
 * One run with the credentials of one security scheme of the document, given
 * as schemathesis auth (not a raw header) so its auth checks can tell a
 * missing or wrong credential from a good one.
 */
async function runSchemathesis(label: string, auth: string, extra: string[]): Promise<string> {
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const reportDir = path.join(ROOT, '.data', 'schemathesis');
  fs.mkdirSync(reportDir, { recursive: true });
  const config = path.join(reportDir, `${label}.toml`);
  fs.writeFileSync(config, `${fs.readFileSync(path.join(__dirname, 'schemathesis.toml'), 'utf8')}\n${auth}\n`, { mode: 0o600 });
  const args = [
    '--config-file',
    config,
    'run',
    `${base}/openapi.json`,
    '--url',
    base,
    '--checks',
    CHECKS.join(','),
    '--phases',
    'examples,coverage,fuzzing',
    ...budget(),
    '--request-timeout',
    '30',
    '--report',
    'junit',
    '--report-dir',
    reportDir,
    '--report-junit-path',
    path.join(reportDir, `${label}.xml`),
    '--no-color',
    ...extra,
  ];
  const output: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    // Its working folder holds hypothesis' example database and schemathesis' cache: keep them out of the repo.
    // The hooks add a serializer for the raw media body of the local store's upload PUT (schemathesis_hooks.py).
    const env = { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: 'schemathesis_hooks', PYTHONPATH: __dirname };
    const child = spawn(ST, args, { cwd: reportDir, env });
    child.stdout.on('data', (d) => output.push(d.toString()));
    child.stderr.on('data', (d) => output.push(d.toString()));
    child.on('error', reject);
    child.on('exit', (c) => resolve(c ?? 1));
  });
  const text = output.join('');
  fs.writeFileSync(path.join(reportDir, `${label}.txt`), text);
  if (code !== 0) throw new Error(`schemathesis (${label}) exited ${code}:\n${text.slice(-12000)}`);
  return text;
}

const mode = RANDOM ? `random seed ${RANDOM_SEED}, ${RANDOM_SECONDS} s` : `seed ${CI_SEED}, ${CI_EXAMPLES} examples, deterministic`;
if (RANDOM) console.log(`[schema-fuzz] random run: seed ${RANDOM_SEED} (SCHEMA_FUZZ_SEED=${RANDOM_SEED} replays it)`);

test(
  `with an API key: no undocumented 5xx, no response off the document (${mode})`,
  async () => {
    const ws = await createWorkspace(api.deps, { plan: 'scale' });
    const text = await runSchemathesis('api-key', `[auth.openapi.bearerAuth]\nbearer = "${ws.apiKey}"`, []);
    expect(text).toMatch(/Tested: \d+/);
  },
  RUN_TIMEOUT_MS,
);

test(
  `with an owner session: the same, the session-only operations included (${mode})`,
  async () => {
    const ws = await createWorkspace(api.deps, { plan: 'scale' });
    const session = await signInSession(api.app, ws.email, ws.password);
    // Signing out or deleting the account would end the session under the fuzzer.
    const text = await runSchemathesis(
      'session',
      `[auth.openapi.sessionCookie]\napi_key = "${session.cookie.replace(/^ts_session=/, '')}"`,
      ['--header', `X-CSRF-Token: ${session.csrf}`, '--exclude-operation-id', 'signOut', '--exclude-operation-id', 'deleteAccount'],
    );
    expect(text).toMatch(/Tested: \d+/);
  },
  RUN_TIMEOUT_MS,
);
