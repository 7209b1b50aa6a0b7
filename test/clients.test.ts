import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createWebhookEndpoint } from '../domain/webhooks/endpoints';
import { createWorkspace } from './support/harness';
import { startListeningJobStack, submit, videositeCaptionRoutes, VIDEO_URL, waitFinal, type JobStack } from './support/job-stack';
import { jfkWav, twoVoiceWav } from './support/voices';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

// The official clients (clients/typescript, clients/python) against the live test stack: their generated
// code must match the document the API serves at /openapi.json, the TypeScript package must build and
// answer as `npx transcript`, the Python package must install with pip, and each client's own tests
// (a job end to end, an upload, a batch, an error, a real webhook delivery verified, the CLI) must pass.

const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const PYTHON = path.join(ROOT, '.tools/venv-test/bin/python');

let stack: JobStack;
let listening: Awaited<ReturnType<typeof startListeningJobStack>>;
let receiver: WebhookReceiver;
let base: string;
let workDir: string;
let clientEnv: NodeJS.ProcessEnv;

/** A child process's exit code with what it printed, so a failure shows the client's own report. */
async function runTool(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      timeout: 600_000,
      maxBuffer: 64 << 20,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  // The platform's translation of the caption track into Portuguese (the CLI's --translate-to pt).
  listening = await startListeningJobStack([
    {
      path: '/api/timedtext',
      when: (req) => req.query.get('tlang') === 'pt',
      body: '<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body><p t="0" d="4000">Tradução da plataforma</p></body></timedtext>',
      headers: { 'content-type': 'text/xml' },
    },
    ...videositeCaptionRoutes(),
  ]);
  ({ stack, base } = listening);
  receiver = await startWebhookReceiver();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clients-'));
  const ws = await createWorkspace(stack.api.deps, { plan: 'pro' });

  // A real delivery for the clients to verify: an endpoint, a job that ends, the request as received.
  const endpoint = await createWebhookEndpoint(stack.api.deps.db, stack.api.deps.secretsKey, stack.api.deps.addressPolicy, ws.workspaceId, {
    url: receiver.url,
  });
  receiver.configure({ secret: endpoint.secret });
  const job = await submit(stack.api, ws.apiKey, { source: { url: VIDEO_URL }, mode: 'captions_only', webhook_endpoint_id: endpoint.id });
  expect((await waitFinal(stack.api, ws.apiKey, job.body.id)).body.status).toBe('succeeded');
  const [delivery] = await receiver.waitFor((all) => all.some((d) => d.body?.job_id === job.body.id), 20_000);
  expect(delivery!.signature_ok).toBe(true);
  const webhookFile = path.join(workDir, 'delivery.json');
  fs.writeFileSync(webhookFile, JSON.stringify({ raw: delivery!.raw, headers: delivery!.headers, secret: endpoint.secret }));

  const audio = await jfkWav(path.join(workDir, 'jfk.wav'));
  // Speech no job has transcribed yet (a transcript of the same file would be reused at once).
  const slow = await twoVoiceWav(path.join(workDir, 'slow.wav'));
  clientEnv = {
    ...process.env,
    TRANSCRIPT_API_URL: base,
    TRANSCRIPT_API_KEY: ws.apiKey,
    TRANSCRIPT_TEST_VIDEO_URL: VIDEO_URL,
    TRANSCRIPT_TEST_AUDIO: audio,
    TRANSCRIPT_TEST_SLOW_AUDIO: slow,
    TRANSCRIPT_TEST_WEBHOOK: webhookFile,
  };
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await listening?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('keeps the generated client code in step with the document the API serves', async () => {
  const served = await request(stack.api.app).get('/openapi.json').expect(200);
  const document = path.join(workDir, 'served-openapi.json');
  fs.writeFileSync(document, JSON.stringify(served.body));
  const check = await runTool(TSX, ['stack/clients.ts', 'check', '--document', document]);
  expect(check.output).toContain('generated code matches the served document');
  expect(check.code).toBe(0);
  // The check fails on a document that differs (here: one more operation).
  const changed = { ...served.body, paths: { ...served.body.paths, '/v1/extra': { get: { responses: { 200: { description: 'x' } } } } } };
  fs.writeFileSync(document, JSON.stringify(changed));
  const stale = await runTool(TSX, ['stack/clients.ts', 'check', '--document', document]);
  expect(stale.code).toBe(1);
  expect(stale.output).toMatch(/out of date with the served document: clients\/openapi\.json, clients\/typescript\/src\/schema\.ts/);
}, 120_000);

it("passes the TypeScript client's own tests, and answers as npx transcript", async () => {
  const build = await runTool(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'clients/typescript/tsconfig.build.json']);
  expect(build.output).toBe('');
  const help = await runTool('npx', ['--no-install', 'transcript', '--help']);
  expect(help.code).toBe(0);
  expect(help.output).toMatch(/^Usage: transcript <command>/);
  const usage = await runTool('npx', ['--no-install', 'transcript', 'usage'], { env: clientEnv });
  expect(usage.output).toMatch(/^plan\tpro\ncredits remaining\t\d+\n/);
  const own = await runTool(TSX, ['--test', '--test-reporter=spec', 'clients/typescript/test/client.test.ts'], { env: clientEnv });
  if (own.code !== 0) console.error(own.output);
  expect(own.output).toMatch(/ℹ fail 0/);
  expect(own.output).toMatch(/ℹ skipped 0/);
  expect(own.output).toMatch(/✔ streams speech in real time with listen\(\)/);
  expect(own.output).toMatch(/✔ opens an Opus stream when asked/);
  expect(own.code).toBe(0);
}, 600_000);

it('installs the Python client with pip and passes its own tests against the installed copy', async () => {
  // Built from a copy, so the build leaves nothing in the tree; installed without fetching anything.
  const source = path.join(workDir, 'python-src');
  fs.cpSync(path.join(ROOT, 'clients/python'), source, { recursive: true });
  const target = path.join(workDir, 'site');
  const install = await runTool(PYTHON, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--no-deps',
    '--no-build-isolation',
    '--target',
    target,
    source,
  ]);
  expect(install.code).toBe(0);
  expect(fs.existsSync(path.join(target, 'transcript_client/models.py'))).toBe(true);
  const tests = path.join(source, 'tests');
  const own = await runTool(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', tests, '-t', tests], {
    env: { ...clientEnv, PYTHONPATH: target },
    cwd: workDir,
  });
  if (own.code !== 0) console.error(own.output);
  expect(own.output).toMatch(/\nOK\n?$/);
  expect(own.output).not.toMatch(/skipped/);
  expect(own.output).toMatch(/test_streams_speech_in_real_time_with_listen .* ok/);
  expect(own.code).toBe(0);
}, 600_000);
