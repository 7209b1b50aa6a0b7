/**
 * `npm run test:scale` (issue 27, items 3 and 5): the service scaled out and hurt on purpose, on the real
 * Temporal server on PostgreSQL. Two API processes, two TypeScript workers and two recognizers, each its
 * production entry point in its own process, take 1,000 jobs (caption jobs and batches of them answered by
 * the replay origin, short uploads through the recognizer) from several workspaces with webhooks to loopback
 * receivers. Meanwhile one worker, one API process and one recognizer are SIGKILLed (and started again, as a
 * supervisor would), PostgreSQL is restarted once, and then every process is replaced in a rolling restart
 * (start the new one, SIGTERM the old one). Afterwards the checks below must all hold, and the figures are
 * printed (bench/RESULTS.md and docs/capacity.md quote them). Exits 1 when a check fails.
 *
 * The order of the work and of the disruptions is fixed (a seeded shuffle, times from the start), so a run
 * differs from another only by the machine's timing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { Client as TemporalClient, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { changePlan } from '../../domain/accounts/plan';
import { createApiKey, signUp } from '../../domain/accounts/accounts';
import { SCOPES } from '../../domain/accounts/principal';
import { createDb } from '../../domain/db';
import { createWebhookEndpoint } from '../../domain/webhooks/endpoints';
import { startPostgres, type PostgresHandle } from '../../stack/postgres';
import { freePort, ROOT } from '../../stack/proc';
import { startThrowawayStack } from '../../stack/throwaway-stack';
import { pct } from '../../bench/harness';
import { writeBlock } from '../../bench/results-file';
import { workflowIds } from '../../workflows/definitions';
import { activityRetries } from '../support/activity-retries';
import { ASR_EVAL_DIR } from '../support/asr-eval';
import { videositeCaptionRoutes } from '../support/job-stack';
import { startReplayOrigin } from '../support/replay-origin';
import { testTls } from '../support/tls';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { FailoverClient, sleep } from './client';
import { ProcessSet, treeCpuSeconds, type ServiceProcess } from './processes';
import { buildWorkflowBundles } from '../../worker/workflow-bundle';

const WORKSPACES = 4;
const CAPTION_JOBS = 720;
const BATCHES = 25;
const BATCH_SIZE = 10;
const UPLOAD_JOBS = 30;
/** One unit of work (a job, a batch, an upload and its job) is due every PACE_MS from the start. */
const PACE_MS = 160;
const SUBMITTERS = 6;
/** The disruptions, in ms from the start of the submits. */
const AT = { killWorker: 8_000, killApi: 16_000, killRecognizer: 24_000, stopPostgres: 34_000, pgOutageMs: 6_000, rolling: 52_000 };
/**
 * A disruption also waits this long after the one before it has recovered (its replacement ready, PostgreSQL
 * accepting again). On a loaded host a restart can take 15–20 s and would otherwise push the next disruptions
 * onto it: one CI run stopped PostgreSQL 0.4 s after a killed recognizer's replacement came up, and one piece met
 * the kill, the restart and the deploy in a row. By the time a replacement is ready the killed process's work
 * has been retried (heartbeat timeout 10 s), so 5 s is enough: each crash is recovered from before the next.
 */
const SETTLE_MS = 5_000;
/** A killed process is started again after this long (a supervisor's restart delay). */
const RESTART_DELAY_MS = 3_000;
/**
 * What "stuck" means: a job that lost its place (a start, an attempt or a signal lost for good) waits for a timeout of
 * 30 minutes. A piece whose recognizer was SIGKILLed waits for the heartbeat timeout (10 s), then queues behind the
 * pieces of 1,000 jobs on two recognizers: 66.7 s once on a new machine's first run. A batch committed while the
 * workers restarted one by one had its children started 137 s later once (their parent's workflow task queued
 * behind hundreds of open jobs' replays on two busy cores). Five minutes stays far from a lost place and from that.
 */
const STALL_LIMIT_MS = 300_000;
const STOP_BOUND_MS: Record<ServiceProcess['kind'], number> = { api: 30_000, worker: 25_000, recognizer: 30_000 };

const SECRETS_KEY = 'scale-test-secrets-key-0123456789abcdef';

const failures: string[] = [];
const checks: string[] = [];
const check = (ok: boolean, what: string) => {
  console.log(`[scale] ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  checks.push(`${ok ? 'held' : '**failed**'}: ${what}`);
  if (!ok) failures.push(what);
};
/** `npm run test:scale -- --record` writes the run's checks and figures into bench/RESULTS.md (never in CI: it is a tracked file). */
const RECORD = process.argv.includes('--record');

type Unit = { kind: 'caption'; n: number } | { kind: 'batch'; n: number } | { kind: 'upload'; n: number };

/** mulberry32: the fixed-seed shuffle that orders the work. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function workList(): Unit[] {
  const units: Unit[] = [
    ...Array.from({ length: CAPTION_JOBS }, (_, n) => ({ kind: 'caption' as const, n })),
    ...Array.from({ length: BATCHES }, (_, n) => ({ kind: 'batch' as const, n })),
    ...Array.from({ length: UPLOAD_JOBS }, (_, n) => ({ kind: 'upload' as const, n })),
  ];
  const random = seeded(27);
  for (let i = units.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [units[i], units[j]] = [units[j]!, units[i]!];
  }
  return units;
}

async function main(): Promise<void> {
  const t0Stack = Date.now();
  // This test owns its whole stack: its own cluster (so it can restart it) and the real Temporal server on it.
  delete process.env.DATABASE_URL;
  process.env.TEMPORAL_SERVER = 'postgres';
  const pgPort = await freePort();
  const stack = await startThrowawayStack({ name: 'scale', pgPort, temporalPort: 7253, recognizer: false });
  let pg: PostgresHandle = stack.pg;
  const origin = await startReplayOrigin(videositeCaptionRoutes({ captionDelayMs: 50 }));
  // The processes' logs stay here until the next run (for a look at what happened).
  const runDir = path.join(ROOT, '.data', 'scale-run');
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true });
  // The workers trust the receivers' test certificate the way a deployment trusts a private CA.
  const caFile = path.join(runDir, 'receiver-ca.pem');
  fs.writeFileSync(caFile, testTls().cert);
  const clip = path.join(runDir, 'clip.wav');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-i',
    path.join(ASR_EVAL_DIR, 'en/jfk_inaugural.flac'),
    '-t',
    '4',
    '-ac',
    '1',
    '-ar',
    '16000',
    clip,
  ]);
  const clipBytes = fs.readFileSync(clip);
  // The deploy's artifact: the workflows bundled once, so that no worker start (first, restarted, rolling) bundles them.
  const bundleDir = path.join(runDir, 'workflow-bundle');
  await buildWorkflowBundles(bundleDir);

  const procs = new ProcessSet({
    env: {
      ...(process.env as Record<string, string>),
      ...stack.env,
      APP_ENV: 'test',
      LOG_LEVEL: 'info',
      PLATFORM_ORIGIN_OVERRIDE: origin.url,
      NODE_EXTRA_CA_CERTS: caFile,
      SECRETS_KEY,
      WORKFLOW_BUNDLE_DIR: bundleDir,
    },
    logDir: path.join(runDir, 'logs'),
    temporalAddress: stack.temporal.address,
    dataDir: stack.dataDir,
    apiPort: freePort,
  });
  const receivers: WebhookReceiver[] = [];
  // createDb drops a connection the PostgreSQL restart ends (domain/db.ts), for this client as for the service.
  const { prisma: db, close: closeDb } = createDb(stack.dbUrl, 4);
  const temporal = new TemporalClient({ connection: await Connection.connect({ address: stack.temporal.address }) });
  try {
    await Promise.all([procs.start('api'), procs.start('api'), procs.start('worker'), procs.start('worker')]);
    await procs.start('recognizer');
    await procs.start('recognizer');
    console.log(`[scale] stack and 6 processes up in ${((Date.now() - t0Stack) / 1000).toFixed(1)} s (Temporal ${stack.temporal.address})`);
    const client = new FailoverClient(() => procs.live('api'));

    // Workspaces: the Scale plan, each with a webhook endpoint on its own receiver (one signing secret each).
    const workspaces: { id: string; key: string; endpointId: string }[] = [];
    for (let i = 0; i < WORKSPACES; i++) {
      const { user, workspace } = await signUp(
        db,
        { email: `scale-${process.pid}-${i}@example.test`, password: 'correct horse battery staple', display_name: 'Scale' },
        { baseUrl: 'http://127.0.0.1' },
      );
      await db.user.update({ where: { id: user.id }, data: { emailVerifiedAt: new Date() } });
      await changePlan(db, workspace.id, 'scale');
      const key = (await createApiKey(db, workspace.id, { name: 'scale', scopes: [...SCOPES] })).secret;
      const receiver = await startWebhookReceiver();
      receivers.push(receiver);
      // Registering an endpoint takes an owner's session (test/webhooks.test.ts covers that route): the domain call here.
      const ep = await createWebhookEndpoint(db, SECRETS_KEY, { loopbackOnly: true }, workspace.id, { url: receiver.url });
      receiver.configure({ secret: ep.secret });
      workspaces.push({ id: workspace.id, key, endpointId: ep.id });
    }
    const dbBefore = await databaseStats(stack.pg.url, stack.dbUrl);

    // ---- The work, paced, with the disruptions on their own clock.
    const accepted = new Map<string, 'caption' | 'upload'>();
    const batchIds: string[] = [];
    const submitLatency: number[] = [];
    const refusedFinally: string[] = [];
    const units = workList();
    const t0 = Date.now();
    let next = 0;
    const videoId = (prefix: string, n: number) => `${prefix}${String(n).padStart(11 - prefix.length, '0')}`;
    const captionJob = (ws: (typeof workspaces)[number], id: string) => ({
      source: { url: `https://www.youtube.com/watch?v=${id}` },
      mode: 'captions_only',
      webhook_endpoint_id: ws.endpointId,
    });
    // 202, or a replay (200) of a submit whose earlier attempt got no answer: that attempt was accepted, its
    // answer lost with the API process killed or the database restarted after the commit. Every unit's
    // submit is new work (no retained transcript can answer it), so a 200 is never a first answer.
    let acceptedBeforeAnswerLost = 0;
    const acceptedNowOrBefore = (r: { status: number; retried: boolean }) => {
      if (r.status === 200 && r.retried) acceptedBeforeAnswerLost++;
      return r.status === 202 || (r.status === 200 && r.retried);
    };
    const submitOne = async (unit: Unit, index: number) => {
      const ws = workspaces[index % WORKSPACES]!;
      const idem = `scale-${process.pid}-${unit.kind}-${unit.n}`;
      const started = Date.now();
      if (unit.kind === 'caption') {
        const r = await client.json('POST', '/v1/jobs', { key: ws.key, idempotencyKey: idem, body: captionJob(ws, videoId('sc', unit.n)) });
        if (acceptedNowOrBefore(r)) accepted.set(String(r.body.id), 'caption');
        else refusedFinally.push(`${unit.kind} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      } else if (unit.kind === 'batch') {
        const items = Array.from({ length: BATCH_SIZE }, (_, k) => captionJob(ws, videoId('sb', unit.n * BATCH_SIZE + k)));
        const r = await client.json('POST', '/v1/batches', {
          key: ws.key,
          idempotencyKey: idem,
          body: { items, webhook_endpoint_id: ws.endpointId },
        });
        if (acceptedNowOrBefore(r)) {
          batchIds.push(String(r.body.id));
          for (const item of r.body.items as { job_id: string }[]) accepted.set(item.job_id, 'caption');
        } else refusedFinally.push(`${unit.kind} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      } else {
        const uploadId = await uploadClip(client, ws.key, clipBytes);
        const r = await client.json('POST', '/v1/jobs', {
          key: ws.key,
          idempotencyKey: idem,
          body: { source: { upload_id: uploadId }, mode: 'transcribe', language: 'en', webhook_endpoint_id: ws.endpointId },
        });
        if (acceptedNowOrBefore(r)) accepted.set(String(r.body.id), 'upload');
        else refusedFinally.push(`${unit.kind} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
      submitLatency.push(Date.now() - started);
    };
    const submitters = Array.from({ length: SUBMITTERS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= units.length) return;
        const due = t0 + i * PACE_MS;
        if (due > Date.now()) await sleep(due - Date.now());
        await submitOne(units[i]!, i);
      }
    });

    const events: { at: number; what: string }[] = [];
    const mark = (what: string) => {
      events.push({ at: Date.now() - t0, what });
      console.log(`[scale] +${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`);
    };
    /** When the last disruption had recovered, in ms from the start. */
    let recoveredAt = 0;
    const until = async (ms: number) => {
      const due = t0 + Math.max(ms, recoveredAt + SETTLE_MS);
      if (due > Date.now()) await sleep(due - Date.now());
    };
    const crash = async (kind: ServiceProcess['kind']) => {
      const victim = procs.live(kind)[0]!;
      const exit = await procs.kill(victim);
      mark(`SIGKILLed ${victim.name} (${exit.signal})`);
      await sleep(RESTART_DELAY_MS);
      const fresh = await procs.start(kind);
      mark(`started ${fresh.name}`);
      recoveredAt = Date.now() - t0;
    };
    /** Jobs of this run not yet final: what a deploy's stop has in flight. */
    const openJobs = () =>
      db.job.count({
        where: { workspaceId: { in: workspaces.map((w) => w.id) }, status: { notIn: ['succeeded', 'failed', 'cancelled'] } },
      });
    const pgOutage = { from: 0, to: 0 };
    let pgCpuBeforeRestart = 0;
    const stopExits: { name: string; kind: ServiceProcess['kind']; code: number | null; signal: string | null; tookMs: number }[] = [];
    const disruptions = (async () => {
      await until(AT.killWorker);
      await crash('worker');
      await until(AT.killApi);
      await crash('api');
      await until(AT.killRecognizer);
      await crash('recognizer');
      await until(AT.stopPostgres);
      pgOutage.from = Date.now();
      pgCpuBeforeRestart = treeCpuSeconds(pg.pid) ?? 0;
      await pg.stop();
      mark('PostgreSQL stopped');
      await sleep(AT.pgOutageMs);
      pg = await startPostgres({
        dataDir: '.data/scale-postgres',
        port: pgPort,
        database: 'postgres',
        fast: true,
        ignoreDatabaseUrl: true,
      });
      pgOutage.to = Date.now();
      mark('PostgreSQL started again');
      recoveredAt = Date.now() - t0;
      await until(AT.rolling);
      // The deploy: every process replaced, one at a time, the new one up before the old one is told to stop.
      // Workers first, which hold the running jobs' activities; then the recognizers while uploads still arrive (a
      // stopping recognizer has recognition in flight); the API processes last. Each stop's line says how many
      // jobs were open: a deploy after the work would prove nothing.
      for (const kind of ['worker', 'worker', 'recognizer', 'recognizer', 'api', 'api'] as const) {
        const old = procs.live(kind)[0]!;
        const fresh = await procs.start(kind);
        const inFlight = await openJobs();
        const exit = await procs.terminate(old);
        stopExits.push({ name: old.name, kind, code: exit.code, signal: exit.signal, tookMs: exit.tookMs });
        mark(
          `rolling: ${fresh.name} up, ${old.name} stopped by SIGTERM with ${inFlight} jobs open (exit ${exit.code ?? exit.signal} after ${exit.tookMs} ms)`,
        );
      }
    })();
    await Promise.all([...submitters, disruptions]);
    const submitSeconds = (Date.now() - t0) / 1000;
    mark(
      `all ${units.length} units submitted; ${accepted.size} jobs and ${batchIds.length} batches accepted (${acceptedBeforeAnswerLost} of the submits answered by their replay after an attempt whose answer was lost)`,
    );

    // ---- Every accepted job final.
    const ids = [...accepted.keys()];
    let open = ids.length;
    const finalDeadline = Date.now() + 10 * 60_000;
    while (Date.now() < finalDeadline) {
      open = await db.job.count({ where: { id: { in: ids }, status: { notIn: ['succeeded', 'failed', 'cancelled'] } } });
      if (open === 0) break;
      await sleep(1000);
    }
    mark(`${ids.length - open} of ${ids.length} jobs final`);
    const workspaceIds = workspaces.map((w) => w.id);
    const jobs = await db.job.findMany({
      where: { workspaceId: { in: workspaceIds } },
      select: { id: true, status: true, error: true, createdAt: true, finishedAt: true },
    });

    // ---- Every webhook event delivered.
    const eventDeadline = Date.now() + 3 * 60_000;
    let undelivered = -1;
    while (Date.now() < eventDeadline) {
      undelivered = await db.webhookEvent.count({ where: { workspaceId: { in: workspaceIds }, deliveredAt: null } });
      if (undelivered === 0) break;
      await sleep(1000);
    }
    mark(`webhook events undelivered: ${undelivered}`);
    const webhookEvents = await db.webhookEvent.findMany({
      where: { workspaceId: { in: workspaceIds } },
      select: { id: true, type: true },
    });

    // ---- Checks.
    const byStatus: Record<string, number> = {};
    for (const j of jobs) byStatus[j.status] = (byStatus[j.status] ?? 0) + 1;
    check(
      refusedFinally.length === 0,
      `every submit accepted in the end (${refusedFinally.length} refused: ${refusedFinally.slice(0, 3).join('; ')})`,
    );
    check(
      accepted.size === CAPTION_JOBS + BATCHES * BATCH_SIZE + UPLOAD_JOBS,
      `${accepted.size} jobs accepted of ${CAPTION_JOBS + BATCHES * BATCH_SIZE + UPLOAD_JOBS}`,
    );
    check(
      jobs.length === accepted.size && jobs.every((j) => accepted.has(j.id)),
      `exactly the accepted jobs exist (${jobs.length} rows): no retried submit made a second job`,
    );
    check((byStatus.succeeded ?? 0) === jobs.length, `every job succeeded once: ${JSON.stringify(byStatus)}`);
    const failedErrors = jobs.filter((j) => j.status !== 'succeeded').map((j) => JSON.stringify(j.error));
    if (failedErrors.length) console.log(`[scale] not succeeded: ${failedErrors.slice(0, 5).join('\n')}`);

    const credit = await creditTotals(db, workspaceIds);
    check(
      credit.openHolds === 0 && credit.reserved === 0,
      `no credit left on hold (${credit.openHolds} holds open, ${credit.reserved} reserved)`,
    );
    check(
      credit.held === credit.charged + credit.released,
      `credits held ${credit.held} = charged ${credit.charged} + released ${credit.released}`,
    );
    check(credit.holdsSettledTwice === 0, `no hold settled twice (${credit.holdsSettledTwice})`);
    check(credit.jobsWithoutOneHold === 0, `each job has exactly one hold (${credit.jobsWithoutOneHold} without)`);

    const expectedEvents = jobs.length + batchIds.length;
    check(
      webhookEvents.length === expectedEvents,
      `${webhookEvents.length} webhook events recorded, one per job and batch (${expectedEvents})`,
    );
    const deliveries = receivers.flatMap((r) => r.received);
    const byEvent = new Map<string, typeof deliveries>();
    for (const d of deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
    const missing = webhookEvents.filter((e) => !(byEvent.get(e.id) ?? []).some((d) => d.status === 200));
    check(missing.length === 0, `every webhook event received at least once with a valid signature (${missing.length} missing)`);
    const inconsistent = [...byEvent.values()].filter((ds) => ds.some((d) => !d.signature_ok || d.raw !== ds[0]!.raw));
    check(
      inconsistent.length === 0,
      `every delivery of an event has the same id, body and a valid signature (${inconsistent.length} differ)`,
    );
    const duplicates = deliveries.filter((d) => d.duplicate).length;

    const fiveXx = client.log.answers.filter((a) => a.status >= 500);
    const undocumented = fiveXx.filter((a) => a.status !== 503 || a.retryAfter === null || a.code !== 'SERVICE_UNAVAILABLE');
    check(
      undocumented.length === 0,
      `no 5xx but documented 503s with Retry-After (${undocumented.length} others: ${JSON.stringify(undocumented.slice(0, 3))})`,
    );
    const outsideWindows = fiveXx.filter(
      (a) => a.detail !== 'shutting_down' && (a.at < pgOutage.from - 2_000 || a.at > pgOutage.to + 30_000),
    );
    check(outsideWindows.length === 0, `503s only while PostgreSQL restarted or a process drained (${outsideWindows.length} outside)`);

    const workerLogs = fs.readdirSync(path.join(runDir, 'logs')).filter((f) => f.startsWith('worker-'));
    const bundledAtStart = workerLogs.filter(
      (f) =>
        !fs
          .readFileSync(path.join(runDir, 'logs', f), 'utf8')
          .split('\n')
          .some((line) => line.includes('"msg":"worker running"') && line.includes('"workflow_bundle":{"codePath"')),
    );
    check(
      workerLogs.length > 0 && bundledAtStart.length === 0,
      `every worker ran the prebuilt workflow bundle (${workerLogs.length} workers; bundled at start: ${JSON.stringify(bundledAtStart)})`,
    );
    const crashes = procs.unexpectedExits();
    check(crashes.length === 0, `no process exited unless told to (${JSON.stringify(crashes)}; logs in .data/scale-run/logs)`);
    for (const e of stopExits) {
      check(
        e.code === 0 && e.tookMs <= STOP_BOUND_MS[e.kind],
        `${e.name} stopped by SIGTERM exited ${e.code ?? e.signal} in ${e.tookMs} ms (bound ${STOP_BOUND_MS[e.kind]} ms)`,
      );
    }

    const history = await histories(temporal, jobs, accepted);
    // The steps of the worst job of each kind of wait (up to four), from the first submit: which step waited,
    // on which queue and who took it (the poller's identity).
    const worstOfEachKind = new Map<string, string>();
    for (const x of history.stalls) if (!worstOfEachKind.has(`${x.from} → ${x.to}`)) worstOfEachKind.set(`${x.from} → ${x.to}`, x.job);
    for (const jobId of [...new Set(worstOfEachKind.values())].slice(0, 4)) {
      const steps = history.timelines.get(jobId)!.map((p) => `+${((p.t - t0) / 1000).toFixed(1)} ${p.detail ?? p.what}`);
      console.log(`[scale] steps of job ${jobId}:\n  ${steps.join('\n  ')}`);
    }
    check(
      history.maxStallMs <= STALL_LIMIT_MS,
      `no job sat more than ${STALL_LIMIT_MS / 1000} s without progress (${
        // Only gaps over 20 s are kept (histories()): none is not a gap of 0 s.
        history.maxStallJob
          ? `longest ${(history.maxStallMs / 1000).toFixed(1)} s, job ${history.maxStallJob}`
          : 'no gap over 20 s between two steps of any job'
      })`,
    );

    // ---- Figures.
    const dbAfter = await databaseStats(pg.url, stack.dbUrl);
    const latency = jobs.filter((j) => j.finishedAt).map((j) => j.finishedAt!.getTime() - j.createdAt.getTime());
    const lastFinish = Math.max(...jobs.map((j) => j.finishedAt?.getTime() ?? 0));
    const count = (pred: (a: (typeof client.log.answers)[number]) => boolean) => client.log.answers.filter(pred).length;
    const temporalCpu = treeCpuSeconds(stack.temporal.pid) ?? NaN;
    const pgCpu = pgCpuBeforeRestart + (treeCpuSeconds(pg.pid) ?? NaN);
    // CPU once ready (the work), apart from what the processes' starts cost.
    const cpuByKind: Record<string, number> = {};
    const startCpuByKind: Record<string, number> = {};
    for (const { kind, seconds, atReady } of procs.cpu.values()) {
      cpuByKind[kind] = (cpuByKind[kind] ?? 0) + seconds - atReady;
      startCpuByKind[kind] = (startCpuByKind[kind] ?? 0) + atReady;
    }
    const figures = {
      jobs: jobs.length,
      batches: batchIds.length,
      uploads: UPLOAD_JOBS,
      workspaces: WORKSPACES,
      submit_seconds: Number(submitSeconds.toFixed(1)),
      all_final_seconds: Number(((lastFinish - t0) / 1000).toFixed(1)),
      submit_latency_ms: { p50: pct(submitLatency, 50), p99: pct(submitLatency, 99) },
      job_latency_ms: { p50: pct(latency, 50), p99: pct(latency, 99), max: Math.max(...latency) },
      longest_stall_s: Number((history.maxStallMs / 1000).toFixed(1)),
      stalls_over_20_s: history.stalls.length,
      retried_activities: history.retried,
      longest_stalls: history.stalls
        .slice(0, 8)
        .map((x) => `${(x.ms / 1000).toFixed(1)} s at +${((x.at - t0) / 1000).toFixed(1)} s: ${x.from} → ${x.to} (job ${x.job})`),
      answers: client.log.answers.length,
      answers_503_draining: count((a) => a.status === 503 && a.detail === 'shutting_down'),
      answers_503_unavailable: count((a) => a.status === 503 && a.detail !== 'shutting_down'),
      answers_429: count((a) => a.status === 429),
      connection_errors: client.log.connectionErrors.length,
      webhook_deliveries: deliveries.length,
      webhook_duplicates: duplicates,
      credits: credit,
      stops: stopExits.map((e) => `${e.name} ${e.tookMs} ms`),
      events,
      cpu_seconds: { ...roundAll(cpuByKind), temporal_server: round(temporalCpu), postgresql: round(pgCpu) },
      cpu_seconds_starting_processes: roundAll(startCpuByKind),
      per_job: {
        history_events: history.eventsPerJob,
        state_transitions: history.transitionsPerJob,
        service_db_bytes: Math.round((dbAfter.bytes.service - dbBefore.bytes.service) / jobs.length),
        temporal_db_bytes: Math.round((dbAfter.bytes.temporal - dbBefore.bytes.temporal) / jobs.length),
        service_commits: round((dbAfter.commits.service - dbBefore.commits.service) / jobs.length),
        temporal_commits: round((dbAfter.commits.temporal - dbBefore.commits.temporal) / jobs.length),
        service_rows_written: round((dbAfter.tuplesWritten.service - dbBefore.tuplesWritten.service) / jobs.length),
        temporal_rows_written: round((dbAfter.tuplesWritten.temporal - dbBefore.tuplesWritten.temporal) / jobs.length),
        wal_bytes: Math.round(walBytes(dbBefore.walLsn, dbAfter.walLsn) / jobs.length),
        service_rows: Number(((await rowCount(stack.dbUrl)) / jobs.length).toFixed(1)),
      },
    };
    console.log(`[scale] figures ${JSON.stringify(figures, null, 2)}`);
    fs.writeFileSync(path.join(ROOT, '.data', 'scale-figures.json'), JSON.stringify(figures, null, 2));
    // The last stop of each process is a SIGTERM too: each must exit 0 (not abort while it tears down).
    for (const { name, kind, exit } of await procs.stopAll()) {
      check(exit.code === 0, `${name} (${kind}) stopped at the end exited ${exit.code ?? exit.signal}`);
    }
    if (RECORD) writeBlock('scale', resultsMarkdown(figures));
  } catch (err) {
    failures.push(String(err));
    console.error(err);
  } finally {
    await procs.stopAll();
    await Promise.all(receivers.map((r) => r.close()));
    await temporal.connection.close().catch(() => undefined);
    await closeDb();
    await origin.close();
    await stack.stop();
    if (pg !== stack.pg) await pg.stop().catch(() => undefined);
    console.log(`[scale] the processes' logs are in ${path.relative(ROOT, runDir)}/logs`);
  }
}

/** The run as a block of bench/RESULTS.md. */
function resultsMarkdown(f: Record<string, unknown>): string {
  const j = (v: unknown) => JSON.stringify(v).replace(/"/g, '').replace(/,/g, ', ');
  return [
    '## Scale test: 2 API processes, 2 workers, 2 recognizers on the production Temporal server, hurt on purpose',
    '',
    `Command: \`npm run test:scale -- --record\` · ${new Date().toISOString()} · ${os.cpus().length} cores. What the test does: README, "Scaled out and hurt on purpose".`,
    '',
    '| figure | value |',
    '|---|---|',
    ...Object.entries(f)
      .filter(([k]) => !['events', 'longest_stalls', 'stops'].includes(k))
      .map(([k, v]) => `| ${k.replace(/_/g, ' ')} | ${j(v)} |`),
    '',
    'Disruptions (ms from the first submit):',
    '',
    ...(f.events as { at: number; what: string }[]).map((e) => `- +${e.at} ms: ${e.what}`),
    '',
    'Longest stalls (any gap over 20 s between two steps of a job):',
    '',
    ...(f.longest_stalls as string[]).map((s) => `- ${s}`),
    '',
    'Checks:',
    '',
    ...checks.map((c) => `- ${c}`),
  ].join('\n');
}

const round = (x: number) => Number(x.toFixed(1));
const roundAll = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));

/** A history event as `ActivityTaskScheduled recognizePiece`: its type and, for activities, the activity's name. */
/** A failure's message on one line, cut to `max` characters. */
const oneLine = (message: string | null | undefined, max: number) => (message ?? '?').replace(/\s+/g, ' ').slice(0, max);

function eventName(e: proto.api.history.v1.IHistoryEvent, detailed = false): string {
  const type = String(proto.api.enums.v1.EventType[e.eventType as number] ?? e.eventType).replace(/^EVENT_TYPE_/, '');
  const activity = e.activityTaskScheduledEventAttributes?.activityType?.name;
  const name = activity ? `${type} ${activity}` : type;
  if (!detailed) return name;
  // Who took a task, on which queue it waited, how an attempt ended: enough to tell a dead process from a queue.
  const started = e.workflowTaskStartedEventAttributes ?? e.activityTaskStartedEventAttributes;
  const queue = e.workflowTaskScheduledEventAttributes?.taskQueue ?? e.activityTaskScheduledEventAttributes?.taskQueue;
  const timeout = e.workflowTaskTimedOutEventAttributes?.timeoutType ?? e.activityTaskTimedOutEventAttributes?.retryState;
  const attempt = e.activityTaskStartedEventAttributes?.attempt;
  // A retried activity's attempts before the last leave no event: the last one carries why the previous failed.
  const lastFailure = e.activityTaskStartedEventAttributes?.lastFailure;
  return [
    name,
    queue ? `queue=${queue.name}${queue.kind === proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY ? ' (sticky)' : ''}` : '',
    started?.identity ? `by=${started.identity}` : '',
    attempt && attempt > 1 ? `attempt=${attempt}` : '',
    timeout !== undefined && timeout !== null ? `timeout=${String(timeout)}` : '',
    lastFailure ? `after: ${oneLine(lastFailure.message, 160)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Reserve, PUT, complete (and poll while it verifies): the upload's id once it is ready. */
async function uploadClip(client: FailoverClient, key: string, bytes: Buffer): Promise<string> {
  const slot = await client.json('POST', '/v1/uploads', {
    key,
    body: { filename: 'clip.wav', content_type: 'audio/wav', bytes: bytes.length },
  });
  if (slot.status !== 201) throw new Error(`reserve: ${slot.status} ${JSON.stringify(slot.body)}`);
  const id = String(slot.body.id);
  const url = new URL(String(slot.body.signed_upload_url));
  const put = await client.put(url.pathname + url.search, 'audio/wav', bytes);
  if (put.status >= 300) throw new Error(`PUT: ${put.status} ${JSON.stringify(put.body)}`);
  for (let i = 0; i < 120; i++) {
    const done = await client.json('POST', `/v1/uploads/${id}/complete`, { key });
    // 409 status=ready: a completion retried on another process after the first one had finished.
    if (done.status === 200 || (done.status === 409 && JSON.stringify(done.body).includes('status=ready'))) return id;
    if (done.status !== 202) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
    await sleep(500);
  }
  throw new Error(`upload ${id} not ready after a minute`);
}

async function creditTotals(db: ReturnType<typeof createDb>['prisma'], workspaceIds: string[]) {
  const sum = async (kind: 'hold' | 'charge' | 'release') =>
    (await db.creditLedgerEntry.aggregate({ where: { workspaceId: { in: workspaceIds }, kind }, _sum: { amount: true } }))._sum.amount ?? 0;
  const openHolds = await db.creditHold.count({ where: { workspaceId: { in: workspaceIds }, status: 'held' } });
  const reserved =
    (await db.creditAccount.aggregate({ where: { workspaceId: { in: workspaceIds } }, _sum: { reserved: true } }))._sum.reserved ?? 0;
  // A hold settles once: one charge entry at most, one release entry at most.
  const settledTwice = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (
      SELECT hold_id FROM credit_ledger_entries WHERE workspace_id = ANY(${workspaceIds}::uuid[]) AND kind IN ('charge', 'release')
      GROUP BY hold_id, kind HAVING count(*) > 1) t`;
  const jobsWithoutOneHold = await db.job.count({ where: { workspaceId: { in: workspaceIds }, holdId: null } });
  return {
    held: await sum('hold'),
    charged: await sum('charge'),
    released: await sum('release'),
    openHolds,
    reserved,
    holdsSettledTwice: Number(settledTwice[0]?.n ?? 0),
    jobsWithoutOneHold,
  };
}

/**
 * The longest time any job went without a step: from its commit to its workflow's first event, between
 * consecutive events of its history, and from the last event to its row's finish. Also the mean history
 * length and Temporal state transitions of a job, by kind (docs/capacity.md).
 */
async function histories(
  temporal: TemporalClient,
  jobs: { id: string; createdAt: Date; finishedAt: Date | null }[],
  kinds: Map<string, 'caption' | 'upload'>,
) {
  const stalls: { ms: number; job: string; from: string; to: string; at: number }[] = [];
  const timelines = new Map<string, { t: number; what: string; detail?: string }[]>();
  const events: Record<string, number[]> = { caption: [], upload: [] };
  const transitions: Record<string, number[]> = { caption: [], upload: [] };
  /** Activities that needed more than one attempt, by type and why the attempt before the last failed. */
  const retried = new Map<string, number>();
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const handle = temporal.workflow.getHandle(workflowIds.job(job.id));
        let points: { t: number; what: string; detail?: string }[] = [];
        try {
          const history = await handle.fetchHistory();
          const description = await handle.describe();
          points = (history.events ?? []).map((e) => ({
            t: Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6),
            what: eventName(e),
            detail: eventName(e, true),
          }));
          events[kinds.get(job.id) ?? 'caption']!.push(points.length);
          for (const r of activityRetries(history.events)) {
            const why = `${r.activity}: ${oneLine(r.lastFailure?.message, 100)}`;
            retried.set(why, (retried.get(why) ?? 0) + 1);
          }
          transitions[kinds.get(job.id) ?? 'caption']!.push(Number(description.raw.workflowExecutionInfo?.stateTransitionCount ?? 0));
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
        points.push({ t: job.createdAt.getTime(), what: 'job committed' });
        points.push({ t: job.finishedAt?.getTime() ?? Date.now(), what: 'job row final' });
        points.sort((a, b) => a.t - b.t);
        for (let i = 1; i < points.length; i++) {
          const ms = points[i]!.t - points[i - 1]!.t;
          if (ms > 20_000) {
            stalls.push({ ms, job: job.id, from: points[i - 1]!.what, to: points[i]!.what, at: points[i - 1]!.t });
            timelines.set(job.id, points);
          }
        }
      }
    }),
  );
  stalls.sort((a, b) => b.ms - a.ms);
  const mean = (xs: number[]) => (xs.length ? Number((xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)) : 0);
  return {
    maxStallMs: stalls[0]?.ms ?? 0,
    maxStallJob: stalls[0]?.job ?? '',
    /** Gaps over 20 s, longest first, with the steps on either side. */
    stalls,
    /** The whole history of each job with a gap over 20 s (what a failure of the check is read from). */
    timelines,
    eventsPerJob: { caption: mean(events.caption!), upload: mean(events.upload!) },
    transitionsPerJob: { caption: mean(transitions.caption!), upload: mean(transitions.upload!) },
    retried: Object.fromEntries([...retried].sort((a, b) => b[1] - a[1])),
  };
}

interface DatabaseStats {
  /** Bytes on disk of the service's database and of Temporal's two. */
  bytes: { service: number; temporal: number };
  /** Transactions committed and rows written (inserted, updated, deleted), from pg_stat_database. */
  commits: { service: number; temporal: number };
  tuplesWritten: { service: number; temporal: number };
  /** The cluster's write-ahead log position: what was written, in bytes, between two readings. */
  walLsn: string;
}

async function databaseStats(adminUrl: string, serviceUrl: string): Promise<DatabaseStats> {
  const c = new PgClient({ connectionString: adminUrl });
  await c.connect();
  try {
    const rows = (
      await c.query<{ datname: string; bytes: string; commits: string; written: string }>(
        `SELECT d.datname, pg_database_size(d.datname) AS bytes, s.xact_commit AS commits,
                s.tup_inserted + s.tup_updated + s.tup_deleted AS written
           FROM pg_database d JOIN pg_stat_database s ON s.datid = d.oid`,
      )
    ).rows;
    const service = new URL(serviceUrl).pathname.slice(1);
    const pick = (field: 'bytes' | 'commits' | 'written') => ({
      service: Number(rows.find((r) => r.datname === service)?.[field] ?? 0),
      temporal: rows.filter((r) => r.datname.startsWith('temporal_scale')).reduce((a, r) => a + Number(r[field]), 0),
    });
    const walLsn = (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    return { bytes: pick('bytes'), commits: pick('commits'), tuplesWritten: pick('written'), walLsn };
  } finally {
    await c.end();
  }
}

/** Bytes between two WAL positions (`X/Y`, hexadecimal halves). */
function walBytes(from: string, to: string): number {
  const n = (lsn: string) => {
    const [hi, lo] = lsn.split('/');
    return Number.parseInt(hi!, 16) * 2 ** 32 + Number.parseInt(lo!, 16);
  };
  return n(to) - n(from);
}

/** Rows in the service's tables (exact counts). */
async function rowCount(url: string): Promise<number> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    const tables = (await c.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`)).rows;
    let total = 0;
    for (const { t } of tables) total += Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${t}"`)).rows[0]!.n);
    return total;
  } finally {
    await c.end();
  }
}

main().then(
  () => {
    if (failures.length > 0) {
      console.log(`[scale] ${failures.length} check(s) failed`);
      process.exit(1);
    }
    console.log('[scale] all checks held');
    process.exit(0);
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
