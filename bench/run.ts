/**
 * `npm run bench`: every figure beside a baseline measured in the same run, on
 * a private stack (own PostgreSQL database, own Temporal dev server, a real
 * worker, the platform replay origin on loopback). Prints markdown and writes
 * bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { RateLimits } from '../api/http/rate-limit';
import { startThrowawayStack } from '../stack/throwaway-stack';
import { RESULTS_FILE, withKeptSections } from './results-file';

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const videoId = () => Array.from({ length: 11 }, () => ID_CHARS[Math.floor(Math.random() * 64)]).join('');

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

interface Load {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
}

/**
 * A client of the service in its own process, so it does not share the
 * server's event loop: node with `args`, the config as one JSON argument; its
 * last stdout line is the JSON answer.
 */
function runClientProcess<T>(args: string[], cfg: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args.at(-1)} exited ${code}`)),
    );
  });
}

/** bench/load.js: autocannon against one URL. */
const runLoad = (cfg: object) => runClientProcess<Load>([path.join(__dirname, 'load.js')], cfg);

/** bench/mcp-calls.ts (through tsx): the latencies of each case. */
const runMcpCalls = (cfg: object) =>
  runClientProcess<Record<string, { rest: number[]; legacy: number[]; modern: number[] }>>(
    ['--import', 'tsx', path.join(__dirname, 'mcp-calls.ts')],
    cfg,
  );

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

async function main() {
  const lines: string[] = [];
  const out = (s = '') => {
    lines.push(s);
    console.log(s);
  };

  // --- the stack
  const stack = await startThrowawayStack({ name: 'bench', pgPort: 54359, temporalPort: 7293 });
  Object.assign(process.env, { ...stack.env, LOG_LEVEL: 'silent' });

  // Imported after the environment is set: they read it.
  const { startTestApi, createWorkspace, bearer } = await import('../test/support/harness');
  const { startTestWorker } = await import('../test/support/worker');
  const { startReplayOrigin } = await import('../test/support/replay-origin');
  const { videositeCaptionRoutes, activityDepsFor } = await import('../test/support/job-stack');

  const origin = await startReplayOrigin([
    ...videositeCaptionRoutes(),
    // The recorded search pages, for the discovery section.
    {
      method: 'POST',
      path: '/youtubei/v1/search',
      when: (r) => !r.body.includes('"continuation"'),
      recording: 'videosite/search/search-test-videos-page1.newpipe-mock.json',
    },
  ]);
  const taskQueue = `bench-${randomUUID()}`;
  const api = await startTestApi({ TEMPORAL_TASK_QUEUE: taskQueue }, {}, 20);
  const outbound = createOutbound({ originOverride: origin.url, timeoutMs: 5000 });
  const worker = await startTestWorker(createActivities(activityDepsFor(api, outbound)), taskQueue);
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const bare = express();
  bare.use(express.json());
  bare.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  bare.post('/bare', (req, res) => {
    res.status(202).json({ ok: true, echo: req.body?.mode ?? null });
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/bare`;

  // Workspaces: reads are limited to 120 per minute per workspace, so the load rotates over many.
  const makeWorkspaces = async (count: number) => {
    const made = [];
    for (let i = 0; i < count; i += 4)
      made.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, () => createWorkspace(api.deps, { plan: 'scale' })))));
    return made;
  };
  const readers = await makeWorkspaces(160);
  const submitters = await makeWorkspaces(40);
  for (const w of submitters)
    await api.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 1000000 WHERE workspace_id = ${w.workspaceId}::uuid`;

  // `npm run bench -- --only=accept,usage`: just those sections, printed, RESULTS.md untouched.
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const want = (section: string) => !only || only.includes(section);
  const loadCfg = { connections: 16, durationSeconds: 6 };

  out(`# Benchmark results`);
  out();
  out(
    `Command: \`npm run bench\` · ${new Date().toISOString()} · ${os.cpus().length} cores, Node ${process.version}. Each figure stands beside a baseline measured in the same run; the ratio is what counts on these shared machines.`,
  );
  out();

  if (want('usage')) {
    // --- issue 2: authenticated GET /v1/usage vs a bare Express handler
    const bareGet = await runLoad({ ...loadCfg, url: bareUrl });
    const usage = await runLoad({ ...loadCfg, url: `${base}/v1/usage`, authKeys: readers.map((w) => w.apiKey) });
    out(`## Authenticated GET /v1/usage (16 connections, 6 s, separate load process)`);
    out();
    out(`| | requests/s | p50 | p99 | non-2xx |`);
    out(`|---|---|---|---|---|`);
    out(`| bare Express handler (baseline) | ${bareGet.rps.toFixed(0)} | ${bareGet.p50} ms | ${bareGet.p99} ms | ${bareGet.non2xx} |`);
    out(
      `| GET /v1/usage (auth, rate limit, ledger read) | ${usage.rps.toFixed(0)} | ${usage.p50} ms | ${usage.p99} ms | ${usage.non2xx} |`,
    );
    out(
      `| ratio | ${ratio(bareGet.rps, usage.rps)} fewer | ${ratio(usage.p50, Math.max(bareGet.p50, 0.5))} | ${ratio(usage.p99, Math.max(bareGet.p99, 0.5))} | |`,
    );
    out();
  }

  if (want('caption')) {
    // --- empty workflow round trip vs a raw Temporal gRPC call
    const emptyTimes: number[] = [];
    const grpcTimes: number[] = [];
    for (let i = 0; i < 100; i++) {
      grpcTimes.push((await timed(() => api.deps.temporal.workflowService.getSystemInfo({})))[0]);
      emptyTimes.push(
        (
          await timed(() =>
            api.deps.temporal.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `empty-${randomUUID()}`, args: [] }),
          )
        )[0],
      );
    }
    out(`## Empty Temporal workflow, start → result (100 sequential)`);
    out();
    out(`| | p50 | p99 |`);
    out(`|---|---|---|`);
    out(`| raw gRPC GetSystemInfo round trip (baseline) | ${ms(pct(grpcTimes, 50))} | ${ms(pct(grpcTimes, 99))} |`);
    out(`| empty workflow start → result | ${ms(pct(emptyTimes, 50))} | ${ms(pct(emptyTimes, 99))} |`);
    out();

    // --- issue 3: caption job submit → succeeded, and the long-poll wake-up
    const jobWs = submitters[0]!;
    const e2e: number[] = [];
    const wake: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { ...bearer(jobWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({ source: { url: `https://www.youtube.com/watch?v=${videoId()}` }, mode: 'captions_only' }),
      });
      const job = (await res.json()) as { id: string };
      const final = await fetch(`${base}/v1/jobs/${job.id}?wait=25`, { headers: bearer(jobWs.apiKey) });
      const received = Date.now();
      const body = (await final.json()) as { status: string };
      e2e.push(performance.now() - t0);
      if (body.status !== 'succeeded') throw new Error(`bench job ended ${body.status}`);
      const row = await api.deps.db.job.findUniqueOrThrow({ where: { id: job.id }, select: { finishedAt: true } });
      wake.push(received - row.finishedAt!.getTime());
    }
    const emptyP50 = pct(emptyTimes, 50);
    out(`## Caption job, submit → succeeded (60 sequential, replay origin on loopback)`);
    out();
    out(`| | p50 | p99 | vs empty workflow p50 (goal ≤ 3×) |`);
    out(`|---|---|---|---|`);
    out(`| empty workflow round trip (baseline) | ${ms(emptyP50)} | ${ms(pct(emptyTimes, 99))} | 1.00× |`);
    out(
      `| caption job submit → long poll returns succeeded | ${ms(pct(e2e, 50))} | ${ms(pct(e2e, 99))} | ${ratio(pct(e2e, 50), emptyP50)} |`,
    );
    out();
    out(`## Long-poll wake-up after completion (goal ≤ 20 ms p50)`);
    out();
    out(`Time from the finalising transaction (job.finished_at) to the waiting GET /v1/jobs/{id}?wait=25 response arriving at the client.`);
    out();
    out(`| | p50 | p99 |`);
    out(`|---|---|---|`);
    out(`| wake-up latency | ${ms(pct(wake, 50))} | ${ms(pct(wake, 99))} |`);
    out();
  }

  if (want('discovery')) {
    // --- issue 13: a video discovery (one search page from the replay origin) against the empty workflow round trip
    const empty: number[] = [];
    const discovery: number[] = [];
    const dWs = submitters[1]!;
    for (let i = 0; i < 40; i++) {
      empty.push(
        (
          await timed(() =>
            api.deps.temporal.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `empty-${randomUUID()}`, args: [] }),
          )
        )[0],
      );
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/video-discoveries`, {
        method: 'POST',
        headers: { ...bearer(dWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        // A new query each time: the short cache would answer a repeat without a workflow.
        body: JSON.stringify({ kind: 'videosite_search', query: `bench ${randomUUID()}`, limit: 20 }),
      });
      const d = (await res.json()) as { id: string };
      const final = (await (await fetch(`${base}/v1/video-discoveries/${d.id}?wait=25`, { headers: bearer(dWs.apiKey) })).json()) as {
        status: string;
      };
      discovery.push(performance.now() - t0);
      if (final.status !== 'succeeded') throw new Error(`bench discovery ended ${final.status}`);
    }
    out(`## Video discovery, POST → succeeded (40 sequential, one recorded search page from the replay origin)`);
    out();
    out(`| | p50 | p99 | vs empty workflow p50 (goal ≤ 2×) |`);
    out(`|---|---|---|---|`);
    out(`| empty workflow round trip (baseline) | ${ms(pct(empty, 50))} | ${ms(pct(empty, 99))} | 1.00× |`);
    out(
      `| POST /v1/video-discoveries → GET ?wait returns succeeded | ${ms(pct(discovery, 50))} | ${ms(pct(discovery, 99))} | ${ratio(pct(discovery, 50), pct(empty, 50))} |`,
    );
    out();
  }

  if (want('discovery-parse')) {
    const { discoveryParseBenchMarkdown } = await import('./discovery-parse.bench');
    out(`## Parsing a recorded discovery page against JSON.parse of the same body (goal ≤ 1.5×)`);
    out();
    out(discoveryParseBenchMarkdown());
    out();
  }

  if (want('accept')) {
    // --- issue 11: jobs accepted per second, one workspace, against the same writes done bare.
    // Both sides start workflows on a queue no worker serves: in production workers run
    // elsewhere; here they would take the two cores from the API being measured.
    const acceptQueue = `bench-accept-${randomUUID()}`;
    const acceptApi = await startTestApi({ TEMPORAL_TASK_QUEUE: acceptQueue }, {}, 20);
    // Submit limits out of the way (the rate limiter still runs its query per request).
    acceptApi.deps.rateLimits = new RateLimits(acceptApi.deps.pool, () => 1_000_000_000);
    const acceptServer = acceptApi.app.listen(0, '127.0.0.1');
    await new Promise((r) => acceptServer.once('listening', r));
    const acceptUrl = `http://127.0.0.1:${(acceptServer.address() as AddressInfo).port}/v1/jobs`;
    const [acceptWs, baselineWs] = await makeWorkspaces(2);
    for (const w of [acceptWs!, baselineWs!])
      await api.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 1000000 WHERE workspace_id = ${w.workspaceId}::uuid`;

    // Baseline: the same rows in one transaction (idempotency record, hold, ledger entry, job, the
    // account's reservation), then a bare workflow.start outside it. No auth, validation or rate limit.
    const bareAccept = express();
    bareAccept.use(express.json());
    const db = acceptApi.deps.db;
    bareAccept.post('/bare-accept', async (req, res) => {
      const id = randomUUID();
      const holdId = randomUUID();
      const wsId = baselineWs!.workspaceId;
      const url = String(req.body?.source?.url ?? '');
      await db.$transaction([
        db.$executeRaw`INSERT INTO idempotency_records (id, workspace_id, operation, key, request_hash, resource_type, resource_id, created_at, expires_at)
          VALUES (gen_random_uuid(), ${wsId}::uuid, 'POST /v1/jobs', ${String(req.get('idempotency-key'))}, 'x', 'job', ${id}::uuid, now(), now() + interval '48 hours')`,
        db.$executeRaw`INSERT INTO credit_holds (id, workspace_id, amount, status, charged, reason, created_at) VALUES (${holdId}::uuid, ${wsId}::uuid, 1, 'held', 0, 'bench', now())`,
        db.$executeRaw`INSERT INTO credit_ledger_entries (workspace_id, kind, amount, hold_id, note, created_at) VALUES (${wsId}::uuid, 'hold', 1, ${holdId}::uuid, 'bench', now())`,
        db.$executeRaw`INSERT INTO jobs (id, workspace_id, status, stage, mode, caption_languages, caption_preference, metadata, source_url, platform, media_id, canonical_url, reuse_key, billing_kind, credits_reserved, hold_id, workflow_id, created_at, updated_at)
          VALUES (${id}::uuid, ${wsId}::uuid, 'queued', 'resolve', 'captions_only', '{}', 'prefer_creator', '{}', ${url}, 'videosite', ${url.slice(-11)}, ${url}, ${id}, 'captions', 1, ${holdId}::uuid, ${`job-${id}`}, now(), now())`,
        db.$executeRaw`UPDATE credit_accounts SET reserved = reserved + 1, active_jobs = active_jobs + 1 WHERE workspace_id = ${wsId}::uuid AND period_credits + prepaid_credits - reserved >= 1`,
      ]);
      await acceptApi.deps.temporal.workflow.start('jobWorkflow', {
        taskQueue: acceptQueue,
        workflowId: `job-${id}`,
        args: [{ jobId: id }],
      });
      res.status(202).json({ id });
    });
    const bareAcceptServer = bareAccept.listen(0, '127.0.0.1');
    await new Promise((r) => bareAcceptServer.once('listening', r));
    const bareAcceptUrl = `http://127.0.0.1:${(bareAcceptServer.address() as AddressInfo).port}/bare-accept`;

    const acceptLoad = { connections: 16, durationSeconds: 3, method: 'POST', body: { mode: 'captions_only' }, uniqueJob: true };
    const baseline = await runLoad({ ...acceptLoad, url: bareAcceptUrl });
    const accept = await runLoad({ ...acceptLoad, url: acceptUrl, authKeys: [acceptWs!.apiKey] });
    out(`## Jobs accepted per second (POST /v1/jobs, one workspace, new video each, 16 connections, 3 s)`);
    out();
    out(
      `An accepted job commits its idempotency record, hold and row in one short transaction (credits reserved last, in one conditional UPDATE) and starts its workflow after the commit. Goal: ≥ 400/s, ≥ 50 % of the baseline, p99 ≤ 100 ms.`,
    );
    out();
    out(`| | requests/s | p50 | p99 | statuses |`);
    out(`|---|---|---|---|---|`);
    out(
      `| same writes in one transaction + bare workflow.start (baseline) | ${baseline.rps.toFixed(0)} | ${baseline.p50} ms | ${baseline.p99} ms | ${JSON.stringify(baseline.statuses)} |`,
    );
    out(
      `| POST /v1/jobs accepted | ${accept.rps.toFixed(0)} (${((accept.rps / baseline.rps) * 100).toFixed(0)} % of baseline) | ${accept.p50} ms | ${accept.p99} ms | ${JSON.stringify(accept.statuses)} |`,
    );
    out();
    acceptServer.close();
    bareAcceptServer.close();
    await acceptApi.close();
  }

  if (want('cached')) {
    // --- cached repeat vs a plain authenticated GET
    const cacheWs = submitters[1]!;
    const body = JSON.stringify({ source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'captions_only' });
    const first = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { ...bearer(cacheWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
      body,
    });
    const firstJob = (await first.json()) as { id: string };
    await fetch(`${base}/v1/jobs/${firstJob.id}?wait=25`, { headers: bearer(cacheWs.apiKey) });
    const cached: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < 100; i++) {
      const reader = readers[i % readers.length]!;
      plain.push((await timed(() => fetch(`${base}/v1/usage`, { headers: bearer(reader.apiKey) }).then((r) => r.text())))[0]);
      const ws = submitters[2 + (i % 30)]!;
      if (i < 30) {
        // Seed each workspace's cache once (not timed).
        const r = await fetch(`${base}/v1/jobs`, {
          method: 'POST',
          headers: { ...bearer(ws.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
          body,
        });
        const j = (await r.json()) as { id: string };
        await fetch(`${base}/v1/jobs/${j.id}?wait=25`, { headers: bearer(ws.apiKey) });
      }
      const [t, status] = await timed(() =>
        fetch(`${base}/v1/jobs`, {
          method: 'POST',
          headers: { ...bearer(ws.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
          body,
        }).then(async (r) => {
          await r.text();
          return r.status;
        }),
      );
      if (status !== 200) throw new Error(`cached repeat answered ${status}`);
      cached.push(t);
    }
    out(`## Cached repeat (same video and options → 200 cached) vs a plain authenticated GET (100 sequential)`);
    out();
    out(`| | p50 | p99 |`);
    out(`|---|---|---|`);
    out(`| GET /v1/usage (baseline) | ${ms(pct(plain, 50))} | ${ms(pct(plain, 99))} |`);
    out(
      `| POST /v1/jobs answered from the workspace's retained transcript | ${ms(pct(cached, 50))} | ${ms(pct(cached, 99))} (${ratio(pct(cached, 50), pct(plain, 50))} at p50) |`,
    );
    out();
  }

  if (want('webhooks')) {
    // --- issue 5: job completion → webhook received, and a batch of 50 vs 50 single jobs
    const { startWebhookReceiver } = await import('../test/support/webhook-receiver');
    const { signInSession } = await import('../test/support/harness');
    const { testTls } = await import('../test/support/tls');
    const { webhookHeaders } = await import('../domain/webhooks/signing');
    const receiver = await startWebhookReceiver();
    const hookWs = submitters[32]!;
    const session = await signInSession(api.app, hookWs.email, hookWs.password);
    const supertest = (await import('supertest')).default;
    const ep = await supertest(api.app)
      .post('/v1/webhook-endpoints')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ url: receiver.url });
    receiver.configure({ secret: ep.body.secret, failFirst: 0 });
    const https = await import('node:https');
    const rawPost: number[] = [];
    for (let i = 0; i < 40; i++) {
      const body = JSON.stringify({ event_id: randomUUID(), type: 'job.succeeded' });
      const id = JSON.parse(body).event_id;
      const ts = Math.floor(Date.now() / 1000);
      const t0 = Date.now();
      await new Promise<void>((resolve, reject) => {
        const req = https.request(
          receiver.url,
          { method: 'POST', ca: testTls().cert, headers: webhookHeaders(ep.body.secret, id, ts, body) },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const got = await receiver.waitFor((all) => all.some((r) => r.event_id === id));
      rawPost.push(got.find((r) => r.event_id === id)!.received_at - t0);
    }
    const hookLatency: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { ...bearer(hookWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({
          source: { url: `https://www.youtube.com/watch?v=${videoId()}` },
          mode: 'captions_only',
          webhook_endpoint_id: ep.body.id,
        }),
      });
      const job = (await res.json()) as { id: string };
      const all = await receiver.waitFor((xs) => xs.some((r) => r.body?.job_id === job.id), 20000);
      const hit = all.find((r) => r.body?.job_id === job.id)!;
      const row = await api.deps.db.job.findUniqueOrThrow({ where: { id: job.id }, select: { finishedAt: true } });
      hookLatency.push(hit.received_at - row.finishedAt!.getTime());
    }
    out(`## Job completion → webhook received (40 sequential jobs)`);
    out();
    out(
      `From the finalising transaction (job.finished_at) to the signed POST arriving at a receiver in another process (https on loopback).`,
    );
    out();
    out(`| | p50 | p99 |`);
    out(`|---|---|---|`);
    out(`| raw signed HTTPS POST to the same receiver (baseline) | ${ms(pct(rawPost, 50))} | ${ms(pct(rawPost, 99))} |`);
    out(`| job completion → webhook received (goal ≤ 50 ms p50) | ${ms(pct(hookLatency, 50))} | ${ms(pct(hookLatency, 99))} |`);
    out();
    await receiver.close();

    const batchWs = submitters[33]!;
    const items = Array.from({ length: 50 }, () => ({
      source: { url: `https://www.youtube.com/watch?v=${videoId()}` },
      mode: 'captions_only',
    }));
    const [batchMs] = await timed(async () => {
      const res = await fetch(`${base}/v1/batches`, {
        method: 'POST',
        headers: { ...bearer(batchWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({ items }),
      });
      const batch = (await res.json()) as { id: string; items: { job_id: string }[] };
      if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${JSON.stringify(batch)}`);
      // Long polls on each child (a read each, well inside the read limit), then the batch itself.
      for (const item of batch.items)
        await fetch(`${base}/v1/jobs/${item.job_id}?wait=25`, { headers: bearer(batchWs.apiKey) }).then((r) => r.text());
      const b = (await (await fetch(`${base}/v1/batches/${batch.id}`, { headers: bearer(batchWs.apiKey) })).json()) as { status: string };
      if (b.status !== 'succeeded') throw new Error(`bench batch ended ${b.status}`);
    });
    const singleWs = submitters[34]!;
    const [singlesMs] = await timed(async () => {
      for (let i = 0; i < 50; i++) {
        const res = await fetch(`${base}/v1/jobs`, {
          method: 'POST',
          headers: { ...bearer(singleWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
          body: JSON.stringify({ source: { url: `https://www.youtube.com/watch?v=${videoId()}` }, mode: 'captions_only' }),
        });
        const job = (await res.json()) as { id: string };
        await fetch(`${base}/v1/jobs/${job.id}?wait=25`, { headers: bearer(singleWs.apiKey) });
      }
    });
    out(`## A batch of 50 caption jobs vs 50 single jobs one after another (end to end)`);
    out();
    out(`| | total | per job |`);
    out(`|---|---|---|`);
    out(`| 50 single jobs, each submitted after the previous finished (baseline) | ${ms(singlesMs)} | ${ms(singlesMs / 50)} |`);
    out(
      `| one batch of 50 (POST /v1/batches → batch succeeded) | ${ms(batchMs)} | ${ms(batchMs / 50)} (${ratio(singlesMs, batchMs)} faster) |`,
    );
    out();
  }

  if (want('asr')) {
    // --- AI transcription speed: its own stack (the Python recognition worker), its own block of
    // RESULTS.md (bench/results-file.ts), which the write at the end keeps.
    try {
      execFileSync(
        process.execPath,
        [require.resolve('tsx/cli'), path.join(__dirname, 'asr.bench.ts'), '--minutes', process.env.BENCH_LONG_MINUTES ?? '20'],
        { stdio: 'inherit' },
      );
    } catch (e) {
      out(`(asr.bench.ts failed: ${(e as Error).message.split('\n')[0]}; its block below is from an earlier run)`);
      out();
    }
    for (const [script, args] of [['upload.bench.ts', []]] as const) {
      try {
        out(
          execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, script), ...args], {
            encoding: 'utf8',
            maxBuffer: 64 * 1024 * 1024,
          }).trim(),
        );
        out();
      } catch (e) {
        out(`(${script} failed: ${(e as Error).message.split('\n')[0]})`);
      }
    }
  }

  if (want('exports')) {
    // --- exports (their own script, one process per transcript kind, same run)
    for (const fixture of ['captions', 'asr']) {
      try {
        const exportOut = execFileSync(
          process.execPath,
          [require.resolve('tsx/cli'), path.join(__dirname, 'export.bench.ts'), '--fixture', fixture],
          { encoding: 'utf8' },
        );
        out(exportOut.trim());
        out();
      } catch (e) {
        out(`(export benchmark ${fixture} failed: ${(e as Error).message})`);
      }
    }
  }

  if (want('mcp')) {
    // --- issue 14: a tool call on the agent tool server (/mcp) against the same REST read, same run.
    // The SDK's own client in both protocol generations; each tool call is one HTTP request.
    const savedLimits = api.deps.rateLimits;
    // Read limits out of the way (the limiter still runs its statement per call, on both sides).
    api.deps.rateLimits = new RateLimits(api.deps.pool, () => 1_000_000_000);
    const [mcpWs] = await makeWorkspaces(1);
    const submitted = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { ...bearer(mcpWs!.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
      body: JSON.stringify({ source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'captions_only' }),
    });
    const jobId = ((await submitted.json()) as { id: string }).id;
    const job = (await (await fetch(`${base}/v1/jobs/${jobId}?wait=25`, { headers: bearer(mcpWs!.apiKey) })).json()) as {
      result_id: string;
    };
    const cases = [
      { name: 'get_job', restPath: `/v1/jobs/${jobId}`, args: { job_id: jobId }, restName: `GET /v1/jobs/{id}` },
      {
        name: 'get_transcript',
        restPath: `/v1/transcripts/${job.result_id}`,
        args: { transcript_id: job.result_id },
        restName: 'GET /v1/transcripts/{id}',
      },
    ];
    const N = 200;
    // The same app behind a server that also times each request inside the service (arrival to the
    // last byte handed to the socket): the service's own share, apart from the client's SDK.
    const inside: Record<string, number[]> = {};
    const timedServer = http.createServer((req, res) => {
      const t0 = performance.now();
      const version = String(req.headers['mcp-protocol-version'] ?? '');
      const key = req.url === '/mcp' ? `mcp:${version === '2026-07-28' ? 'modern' : 'legacy'}` : (req.url ?? '');
      res.on('finish', () => (inside[key] ??= []).push(performance.now() - t0));
      api.app(req, res);
    });
    timedServer.listen(0, '127.0.0.1');
    await new Promise((r) => timedServer.once('listening', r));
    const timedBase = `http://127.0.0.1:${(timedServer.address() as AddressInfo).port}`;
    const measured = await runMcpCalls({ base: timedBase, apiKey: mcpWs!.apiKey, n: N, warmup: 20, cases });
    timedServer.close();
    out(`## Agent tool server: a tool call against the same REST call (${N} sequential each, interleaved; goal ≤ 1.5× at p50)`);
    out();
    out(
      "The SDK's own client in both protocol generations and the REST client (fetch, body read as JSON) in one separate process (`bench/mcp-calls.ts`), as an agent runs apart from the service; each tool call is one HTTP request.",
    );
    out();
    out(`| call | p50 | p99 | vs REST at p50 |`);
    out(`|---|---|---|---|`);
    for (const c of cases) {
      const { rest, legacy, modern } = measured[c.name]!;
      out(`| ${c.restName} (baseline) | ${ms(pct(rest, 50))} | ${ms(pct(rest, 99))} | |`);
      out(
        `| tool ${c.name}, 2025 client (stateless fallback) | ${ms(pct(legacy, 50))} | ${ms(pct(legacy, 99))} | ${ratio(pct(legacy, 50), pct(rest, 50))} |`,
      );
      out(
        `| tool ${c.name}, 2026-07-28 client | ${ms(pct(modern, 50))} | ${ms(pct(modern, 99))} | ${ratio(pct(modern, 50), pct(rest, 50))} |`,
      );
    }
    out();
    // Inside the service: the calls of each case, in the order the client made them (warm-up dropped).
    const per = 20 + N;
    out(`Inside the service (request arrival to the last byte written; the client's SDK work excluded):`);
    out();
    out(`| call | p50 | p99 | vs REST at p50 |`);
    out(`|---|---|---|---|`);
    cases.forEach((c, i) => {
      const slice = (a: number[] | undefined) => (a ?? []).slice(i * per + 20, (i + 1) * per);
      const rest = (inside[c.restPath] ?? []).slice(20);
      const legacy = slice(inside['mcp:legacy']);
      const modern = slice(inside['mcp:modern']);
      out(`| ${c.restName} (baseline) | ${ms(pct(rest, 50))} | ${ms(pct(rest, 99))} | |`);
      out(`| tool ${c.name}, 2025 client | ${ms(pct(legacy, 50))} | ${ms(pct(legacy, 99))} | ${ratio(pct(legacy, 50), pct(rest, 50))} |`);
      out(
        `| tool ${c.name}, 2026-07-28 client | ${ms(pct(modern, 50))} | ${ms(pct(modern, 99))} | ${ratio(pct(modern, 50), pct(rest, 50))} |`,
      );
    });
    out();
    api.deps.rateLimits = savedLimits;
  }

  // The blocks of asr.bench.ts and eval:asr and the History stay as they are (bench/results-file.ts).
  if (!only) fs.writeFileSync(RESULTS_FILE, withKeptSections(lines.join('\n')));
  server.close();
  bareServer.close();
  await worker.stop();
  await outbound.close();
  await api.close();
  await origin.close();
  await stack.stop();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
