/**
 * `npm run bench`: every figure beside a baseline measured in the same run, on
 * a private stack (own PostgreSQL database, own Temporal dev server, a real
 * worker, the platform replay origin on loopback). Prints markdown and writes
 * bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { applyMigrations } from '../prisma/migrate';
import { createDatabase, dropDatabase, startPostgres, withDatabase } from '../stack/postgres';
import { ROOT } from '../stack/proc';
import { startTemporal } from '../stack/temporal';

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

function runLoad(cfg: object): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'load.js'), JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load exited ${code}`)),
    );
  });
}

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
  const pg = await startPostgres({ dataDir: '.data/bench-postgres', port: 54359, database: 'postgres', fast: true });
  const dbUrl = withDatabase(pg.url, `bench_${Date.now()}`);
  await createDatabase(dbUrl);
  await applyMigrations(dbUrl);
  const sqlite = path.join(ROOT, '.data', `temporal-bench-${process.pid}.sqlite`);
  const temporal = await startTemporal({ dbFile: sqlite, port: 7293 });
  Object.assign(process.env, { DATABASE_URL: dbUrl, TEMPORAL_ADDRESS: temporal.address, APP_ENV: 'test', LOG_LEVEL: 'silent' });

  // Imported after the environment is set: they read it.
  const { startTestApi, createWorkspace, bearer } = await import('../test/support/harness');
  const { startTestWorker } = await import('../test/support/worker');
  const { startReplayOrigin } = await import('../test/support/replay-origin');
  const { videositeCaptionRoutes, activityDepsFor } = await import('../test/support/job-stack');

  const origin = await startReplayOrigin(videositeCaptionRoutes());
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

  out(`# Benchmark results`);
  out();
  out(
    `Command: \`npm run bench\` · ${new Date().toISOString()} · ${os.cpus().length} cores, Node ${process.version}. Each figure stands beside a baseline measured in the same run; the ratio is what counts on these shared machines.`,
  );
  out();

  // --- issue 2: authenticated GET /v1/usage vs a bare Express handler
  const loadCfg = { connections: 16, durationSeconds: 6 };
  const bareGet = await runLoad({ ...loadCfg, url: bareUrl });
  const usage = await runLoad({ ...loadCfg, url: `${base}/v1/usage`, authKeys: readers.map((w) => w.apiKey) });
  out(`## Authenticated GET /v1/usage (16 connections, 6 s, separate load process)`);
  out();
  out(`| | requests/s | p50 | p99 | non-2xx |`);
  out(`|---|---|---|---|---|`);
  out(`| bare Express handler (baseline) | ${bareGet.rps.toFixed(0)} | ${bareGet.p50} ms | ${bareGet.p99} ms | ${bareGet.non2xx} |`);
  out(`| GET /v1/usage (auth, rate limit, ledger read) | ${usage.rps.toFixed(0)} | ${usage.p50} ms | ${usage.p99} ms | ${usage.non2xx} |`);
  out(
    `| ratio | ${ratio(bareGet.rps, usage.rps)} fewer | ${ratio(usage.p50, Math.max(bareGet.p50, 0.5))} | ${ratio(usage.p99, Math.max(bareGet.p99, 0.5))} | |`,
  );
  out();

  // --- empty workflow round trip vs a raw Temporal gRPC call
  const emptyTimes: number[] = [];
  const grpcTimes: number[] = [];
  for (let i = 0; i < 100; i++) {
    grpcTimes.push((await timed(() => api.deps.temporal.workflowService.getSystemInfo({})))[0]);
    emptyTimes.push(
      (
        await timed(() => api.deps.temporal.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `empty-${randomUUID()}`, args: [] }))
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

  // --- jobs accepted per second vs a bare Express POST handler
  const barePost = await runLoad({ ...loadCfg, durationSeconds: 5, url: bareUrl, method: 'POST', body: { mode: 'captions_only' } });
  const accept = await runLoad({
    ...loadCfg,
    durationSeconds: 5,
    url: `${base}/v1/jobs`,
    method: 'POST',
    authKeys: submitters.slice(1).map((w) => w.apiKey),
    body: { mode: 'captions_only' },
    uniqueJob: true,
  });
  out(`## Jobs accepted per second (POST /v1/jobs, new video each, 16 connections, 5 s)`);
  out();
  out(
    `Each accepted job writes idempotency record, hold and job in one transaction and starts its workflow before committing; the worker runs them meanwhile.`,
  );
  out();
  out(`| | requests/s | p50 | p99 | statuses |`);
  out(`|---|---|---|---|---|`);
  out(
    `| bare Express JSON POST (baseline) | ${barePost.rps.toFixed(0)} | ${barePost.p50} ms | ${barePost.p99} ms | ${JSON.stringify(barePost.statuses)} |`,
  );
  out(`| POST /v1/jobs accepted | ${accept.rps.toFixed(0)} | ${accept.p50} ms | ${accept.p99} ms | ${JSON.stringify(accept.statuses)} |`);
  out();

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

  // --- issue 4: AI transcription through the whole pipeline vs the recognizer called directly
  {
    const { audioDir, concatWithPauses, makeSpeech, PARAGRAPHS, wordErrorRate } = await import('../test/support/speech');
    const { uploadReady } = await import('../test/support/uploads');
    const { PocketsphinxRecognizer } = await import('../integrations/recognizers/pocketsphinx');
    const { toRecognizerWav } = await import('../integrations/media/convert');
    const { probeMedia } = await import('../integrations/media/probe');
    const dir = await audioDir('bench-');
    const parts = await Promise.all(PARAGRAPHS.map((p, i) => makeSpeech(p, dir.dir, `p${i}`)));
    const audio = await concatWithPauses(
      parts.map((p) => p.path),
      path.join(dir.dir, 'speech.wav'),
      1,
    );
    const text = parts.map((p) => p.text).join(' ');
    const seconds = (await probeMedia(audio)).durationMs / 1000;
    const wav16 = await toRecognizerWav(audio, path.join(dir.dir, 'speech16.wav'));
    const direct = new PocketsphinxRecognizer();
    const directRuns: number[] = [];
    let directText = '';
    for (let i = 0; i < 3; i++) {
      const [t, r] = await timed(() => direct.recognize(wav16, { language: 'en' }));
      directRuns.push(t);
      directText = r.text;
    }
    const asrWs = submitters[35]!;
    const pipelineRuns: number[] = [];
    let pipelineText = '';
    for (let i = 0; i < 3; i++) {
      const uploadId = await uploadReady(api, asrWs, audio, 'audio/wav');
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { ...bearer(asrWs.apiKey), 'content-type': 'application/json', 'idempotency-key': `bench-${randomUUID()}` },
        body: JSON.stringify({ source: { upload_id: uploadId }, mode: 'transcribe', language: 'en' }),
      });
      const job = (await res.json()) as { id: string };
      const final = (await (await fetch(`${base}/v1/jobs/${job.id}?wait=25`, { headers: bearer(asrWs.apiKey) })).json()) as {
        status: string;
        result_id: string;
      };
      pipelineRuns.push(performance.now() - t0);
      if (final.status !== 'succeeded') throw new Error(`bench transcription ended ${final.status}`);
      pipelineText = (
        (await (await fetch(`${base}/v1/transcripts/${final.result_id}`, { headers: bearer(asrWs.apiKey) })).json()) as { text: string }
      ).text;
    }
    const rtf = (msList: number[]) => pct(msList, 50) / 1000 / seconds;
    out(`## AI transcription real-time factor (${seconds.toFixed(1)} s of flite speech, pocketsphinx, median of 3)`);
    out();
    out(`| | median time | RTF | WER |`);
    out(`|---|---|---|---|`);
    out(
      `| pocketsphinx called directly on the 16 kHz wav (baseline) | ${ms(pct(directRuns, 50))} | ${rtf(directRuns).toFixed(3)} | ${(wordErrorRate(text, directText) * 100).toFixed(1)} % |`,
    );
    out(
      `| job through the pipeline (submit → succeeded: workflow, ffprobe, conversion, storage, pieces ≤ 90 s, stitch) | ${ms(pct(pipelineRuns, 50))} | ${rtf(pipelineRuns).toFixed(3)} (overhead ${(((pct(pipelineRuns, 50) - pct(directRuns, 50)) / pct(directRuns, 50)) * 100).toFixed(0)} %) | ${(wordErrorRate(text, pipelineText) * 100).toFixed(1)} % |`,
    );
    out();
    await dir.cleanup();
  }
  for (const [script, args] of [
    ['asr.bench.ts', ['--minutes', process.env.BENCH_LONG_MINUTES ?? '20']],
    ['upload.bench.ts', []],
  ] as const) {
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

  fs.writeFileSync(path.join(__dirname, 'RESULTS.md'), lines.join('\n') + '\n');
  server.close();
  bareServer.close();
  await worker.stop();
  await outbound.close();
  await api.close();
  await origin.close();
  await dropDatabase(dbUrl).catch(() => undefined);
  await temporal.stop();
  await pg.stop();
  for (const f of [sqlite, `${sqlite}-wal`, `${sqlite}-shm`]) fs.rmSync(f, { force: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
