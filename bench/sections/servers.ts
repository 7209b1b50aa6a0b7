import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { RateLimits } from '../../api/http/rate-limit';
import { applyMigrations } from '../../prisma/migrate';
import { createDatabase, withDatabase } from '../../stack/postgres';
import { ROOT, waitFor } from '../../stack/proc';
import { startThrowawayStack, type ThrowawayStack } from '../../stack/throwaway-stack';
import { sleep } from '../../test/scale/client';
import { cpuSeconds, cpuSecondsSplit, ProcessSet, treeCpuSeconds } from '../../test/scale/processes';
import type { TestApi, TestWorkspace } from '../../test/support/harness';
import { MAX_HOLD_MS } from '../../domain/start-dispatcher';
import { runWorkflowStarter } from '../../worker/workflow-starter';
import { type BenchContext, type BenchSection, type Load, ms, ratio, runLoad, timed, videoId } from '../harness';

// Issue 27, item 6: the same figures on both Temporal servers in one run: the dev server (SQLite, the
// default of every stack) and the production server on PostgreSQL (stack/temporal-server.ts). Each gets a
// stack of its own, so neither measures the other's leftovers.

const SERVERS = [
  { kind: 'dev', label: 'dev server (SQLite)', pgPort: 54361, temporalPort: 7295 },
  { kind: 'postgres', label: 'production server (PostgreSQL)', pgPort: 54362, temporalPort: 7297 },
] as const;
const BURST = 2000;
const THROUGHPUT_JOBS = 300;
/** A load that lasts: long enough that starts held while the API is busy are made anyway, MAX_HOLD_MS on. */
const LASTING_S = 12;

interface ServerFigures {
  label: string;
  baseline: Load;
  accept: Load;
  burst: Load;
  burstStartedMs: number;
  /** Of the burst's accepted jobs, the workflows listed when the wait for them ended (all, unless it gave up). */
  burstListed: number;
  singlesMs: number;
  batchMs: number;
  oneWorker: { perSecond: number; cpu: number };
  twoWorkers: { perSecond: number; cpu: number };
  /**
   * CPU per request, by process: a bare start, and an accepted job with its workflow's start (measured until
   * every accepted job's workflow had started, as the API starts them after its answers).
   */
  cost: { baseline: CpuSplit; accept: CpuSplit; acceptStartedMs: number; acceptUnstarted: number };
  /**
   * The same 16 connections for LASTING_S: bare starts per second, and for the API the workflows it started
   * per second once its held starts came due (from MAX_HOLD_MS to the end), beside what it answered.
   */
  lasting: { bare: Load; accept: Load; startedPerSecond: number; startLateMs: number };
  /** Share of the machine's cores busy during each phase: where it is near 100 %, the CPU is the limit. */
  busy: { baseline: number; accept: number; burst: number; batch: number; oneWorker: number; twoWorkers: number };
}

export const serversSection: BenchSection = {
  name: 'servers',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const figures: ServerFigures[] = [];
    for (const server of SERVERS) figures.push(await measure(ctx, server));
    const { out } = ctx;
    out(`## Both Temporal servers side by side (issue 27)`);
    out();
    out(
      `Each server on a stack of its own in this run. Acceptance: 16 connections for 3 s of POST /v1/jobs (a caption job each, no worker polling, so the two cores serve the API) beside a bare \`workflow.start\` behind Express, the same-run baseline. While 8 or more submits are in flight the API holds the starts of what it accepted, each for up to 4 s (README, "Answers first in a burst"), so the acceptance and burst rows measure the commit and the starts drain after; what a load that lasts can sustain is measured by the "load that lasts" rows: the same 16 connections for ${LASTING_S} s, where what counts is the workflows the API started per second once its held starts came due (from ${MAX_HOLD_MS / 1000} s on), against bare starts over the same load; and bounded from the CPU each accepted job costs with its start. The burst: ${BURST} submits over 32 connections, its rate from the first request to the last answer; then the time until every one of their workflows is listed by visibility, started by the API after each commit or, for those its queue left over, by the starter that every worker runs (here in the bench process, as no worker serves this stack). The batch: 50 caption jobs in one POST /v1/batches against 50 single jobs one after another, end to end with one worker process. Throughput: ${THROUGHPUT_JOBS} caption jobs submitted at once and run to the end by one, then by two worker processes (\`worker/main.ts\`); the CPU column is what the worker processes used of the machine's 2 cores meanwhile.`,
    );
    out();
    out(`| | ${figures.map((f) => f.label).join(' | ')} |`);
    out(`|---|${figures.map(() => '---').join('|')}|`);
    const row = (name: string, cell: (f: ServerFigures) => string) => out(`| ${name} | ${figures.map(cell).join(' | ')} |`);
    const busy = (x: number) => `${(x * 100).toFixed(0)} % busy`;
    row(
      'bare workflow.start (baseline): starts/s · p99 · machine',
      (f) => `${f.baseline.rps.toFixed(0)}/s · ${f.baseline.p99} ms · ${busy(f.busy.baseline)}`,
    );
    row(
      'POST /v1/jobs accepted/s · p99 (goal ≥ 90 % of baseline) · machine',
      (f) =>
        `${f.accept.rps.toFixed(0)}/s · ${f.accept.p99} ms (${((f.accept.rps / f.baseline.rps) * 100).toFixed(0)} %) · ${busy(f.busy.accept)}`,
    );
    const perRequest = (c: CpuSplit) =>
      `${(cpuTotal(c) * 1000).toFixed(1)} ms (API ${(c.api * 1000).toFixed(1)} · Temporal ${(c.temporal * 1000).toFixed(1)} · PostgreSQL ${(c.postgres * 1000).toFixed(1)} · load ${(c.load * 1000).toFixed(1)})`;
    row('CPU per bare start: all · by process', (f) => perRequest(f.cost.baseline));
    row('CPU per accepted job, its workflow started: all · by process', (f) => {
      const unstarted = f.cost.acceptUnstarted ? `, ${f.cost.acceptUnstarted} still not started` : '';
      return `${perRequest(f.cost.accept)}; every start made ${(f.cost.acceptStartedMs / 1000).toFixed(1)} s after the load${unstarted}`;
    });
    row('a load that lasts, with the cores full, is accepted at about (CPU per bare start ÷ per accepted job)', (f) => {
      const share = `${((cpuTotal(f.cost.baseline) / cpuTotal(f.cost.accept)) * 100).toFixed(0)} % of the baseline`;
      // Only a baseline that keeps the cores busy is held back by them; one that waits on Temporal is not.
      return f.busy.baseline < 0.9
        ? `${share} (not the limit: the baseline left ${((1 - f.busy.baseline) * 100).toFixed(0)} % of the cores idle)`
        : share;
    });
    row(
      `a load that lasts ${LASTING_S} s, measured: workflows started/s from ${MAX_HOLD_MS / 1000} s on (goal ≥ 90 % of bare starts/s over the same load) · answered/s · p99 · start's lateness`,
      (f) =>
        `${f.lasting.startedPerSecond.toFixed(0)}/s (${((f.lasting.startedPerSecond / f.lasting.bare.rps) * 100).toFixed(0)} % of ${f.lasting.bare.rps.toFixed(0)}/s) · ${f.lasting.accept.rps.toFixed(0)}/s · ${f.lasting.accept.p99} ms · start ${(f.lasting.startLateMs / 1000).toFixed(1)} s after its commit (median)`,
    );
    row(
      `burst of ${BURST}: accepted/s · p99 (goal ≥ 400/s, ≤ 100 ms) · machine`,
      (f) =>
        `${(f.burst.total / f.burst.seconds).toFixed(0)}/s · ${f.burst.p99} ms (p50 ${f.burst.p50} ms)${f.burst.non2xx ? ` (${f.burst.non2xx} not 202)` : ''} · ${busy(f.busy.burst)}`,
    );
    row(`burst: every workflow started (listed) after`, (f) => {
      const accepted = f.burst.statuses['202'] ?? 0;
      const shortOf = f.burstListed < accepted ? ` (gave up: ${f.burstListed} of ${accepted} listed)` : '';
      return `${(f.burstStartedMs / 1000).toFixed(1)} s${shortOf}`;
    });
    row('50 single jobs one after another (baseline)', (f) => ms(f.singlesMs));
    row(
      'one batch of 50 (goal ≥ 5× faster) · machine',
      (f) => `${ms(f.batchMs)} (${ratio(f.singlesMs, f.batchMs)} faster) · ${busy(f.busy.batch)}`,
    );
    row(
      "batch's floor: 50 jobs at the 1-worker rate below · so at most",
      (f) => `${ms(50_000 / f.oneWorker.perSecond)} · ${ratio(f.singlesMs, 50_000 / f.oneWorker.perSecond)} faster`,
    );
    row(
      'caption jobs/s, 1 worker · its CPU · machine',
      (f) => `${f.oneWorker.perSecond.toFixed(1)}/s · ${(f.oneWorker.cpu * 100).toFixed(0)} % · ${busy(f.busy.oneWorker)}`,
    );
    row(
      'caption jobs/s, 2 workers · their CPU (goal ≥ 1.6×) · machine',
      (f) =>
        `${f.twoWorkers.perSecond.toFixed(1)}/s · ${(f.twoWorkers.cpu * 100).toFixed(0)} % (${ratio(f.twoWorkers.perSecond, f.oneWorker.perSecond)}) · ${busy(f.busy.twoWorkers)}`,
    );
    out();
    out(
      `Everything here shares the machine's ${os.cpus().length} cores: the Temporal server, PostgreSQL, the API, the load generator and the workers. Where the machine column is near 100 %, the cores are the limit and a second worker process (or a faster API) cannot add throughput; a batch cannot finish faster than the jobs/s of one worker allows (its floor row: 50 jobs at the 1-worker rate). With the cores full, acceptance keeps up with the baseline's rate only as far as an accepted job costs no more CPU than a bare start: the CPU rows measure both, per process (the API, or for the baseline the bare start's Express, runs in the bench's process; the load generator is the child process that sent the requests; PostgreSQL counts its backends), and their ratio is about the share of the baseline acceptance can reach. A baseline that leaves the cores idle waits on Temporal rather than on CPU, and there the ratio does not hold acceptance back. The goals assume the load, the servers and the workers on separate machines.`,
    );
    out();
  },
};

async function measure(ctx: BenchContext, server: (typeof SERVERS)[number]): Promise<ServerFigures> {
  // Servers of its own: the bench's environment names its main stack's PostgreSQL and Temporal server, which
  // the stack would otherwise use (the dev server's figures were once measured on the main stack's).
  const stack = await startThrowawayStack({
    name: `bench-${server.kind}`,
    pgPort: server.pgPort,
    temporalPort: server.temporalPort,
    ownServers: true,
    temporalServer: server.kind,
  });
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const on = { DATABASE_URL: stack.dbUrl, TEMPORAL_ADDRESS: stack.temporal.address };
    // --- Acceptance and the burst: workflows start on a queue no worker polls.
    const idleQueue = `bench-idle-${randomUUID()}`;
    const api = await ctx.startTestApi({ ...on, TEMPORAL_TASK_QUEUE: idleQueue }, {}, 20);
    closers.push(() => api.close());
    api.deps.rateLimits = new RateLimits(api.deps.pool, () => 1_000_000_000);
    const apiUrl = await listen(api.app, closers);
    const bare = express();
    bare.post('/bare-start', async (_req, res) => {
      const id = randomUUID();
      await api.deps.temporal.workflow.start('jobWorkflow', { taskQueue: idleQueue, workflowId: `bare-${id}`, args: [{ jobId: id }] });
      res.status(202).json({ id });
    });
    const bareUrl = await listen(bare, closers);
    // The starter every worker runs beside its pollers: starts the API left to it (its queue full in the burst,
    // a start past its deadline) are made from the database, as in production; without it the burst's
    // figure below waited for starts nothing would make.
    const stopStarter = runWorkflowStarter(api.deps.db, { temporal: api.deps.temporal, taskQueue: idleQueue }, api.deps.logger);
    closers.push(stopStarter);
    const accepting = await workspaces(ctx, api, 4);
    const load = { connections: 16, durationSeconds: 3, method: 'POST', body: { mode: 'captions_only' }, uniqueJob: true };
    const cpu0 = processCpu(stack);
    const [baseline, baselineBusy] = await withBusy(() => runLoad({ ...load, url: `${bareUrl}/bare-start` }));
    const cpu1 = processCpu(stack);
    const [accept, acceptBusy] = await withBusy(() =>
      runLoad({ ...load, url: `${apiUrl}/v1/jobs`, authKeys: accepting.map((w) => w.apiKey) }),
    );
    // An accepted job costs its workflow's start too, made after the answer: its CPU counts until every start is made.
    const loadEnd = Date.now();
    // Accepted jobs whose workflow is not started yet (none of this stack's jobs ever run: no worker polls).
    const unstarted = () => api.deps.db.job.count({ where: { workflowStartedAt: null } });
    let acceptUnstarted = 0;
    await waitFor(async () => (acceptUnstarted = await unstarted()) === 0, 60_000);
    const acceptStartedMs = Date.now() - loadEnd;
    const cpu2 = processCpu(stack);
    const cost = {
      baseline: perEach(cpu0, cpu1, baseline.total),
      accept: perEach(cpu1, cpu2, accept.statuses['202'] ?? 0),
      acceptStartedMs,
      acceptUnstarted,
    };
    // A load that lasts, measured: what counts is the workflows started, as an answer whose start is held
    // costs its start later. The jobs-in-progress limit of a workspace is 2,000: eight take the load.
    const lastingBare = await runLoad({ ...load, durationSeconds: LASTING_S, url: `${bareUrl}/bare-start` });
    const lasting = await workspaces(ctx, api, 8);
    const lastingStart = new Date();
    const lastingAccept = await runLoad({
      ...load,
      durationSeconds: LASTING_S,
      url: `${apiUrl}/v1/jobs`,
      authKeys: lasting.map((w) => w.apiKey),
    });
    const lastingIds = lasting.map((w) => w.workspaceId);
    const due = new Date(lastingStart.getTime() + MAX_HOLD_MS);
    const loadEnded = new Date(lastingStart.getTime() + LASTING_S * 1000);
    const startedWhileLoaded = await api.deps.db.job.count({
      where: { workspaceId: { in: lastingIds }, workflowStartedAt: { gte: due, lt: loadEnded } },
    });
    // Its backlog drains before the burst, which would otherwise share the cores with it.
    await waitFor(async () => (await unstarted()) === 0, 120_000);
    // How late the starts of the jobs accepted while it lasted were: the median from commit to start.
    const [lateness] = await api.deps.db.$queryRaw<{ median_ms: number | null }[]>`
      SELECT (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM workflow_started_at - created_at)) * 1000)::float8 AS median_ms
      FROM jobs WHERE workspace_id = ANY(${lastingIds}::uuid[]) AND created_at < ${loadEnded}`;
    const lastingFigures = {
      bare: lastingBare,
      accept: lastingAccept,
      startedPerSecond: startedWhileLoaded / (LASTING_S - MAX_HOLD_MS / 1000),
      startLateMs: lateness?.median_ms ?? NaN,
    };
    const bursting = await workspaces(ctx, api, 4);
    const burstStart = Date.now();
    const [burst, burstBusy] = await withBusy(() =>
      runLoad({ ...load, connections: 32, amount: BURST, url: `${apiUrl}/v1/jobs`, authKeys: bursting.map((w) => w.apiKey) }),
    );
    const accepted = burst.statuses['202'] ?? 0;
    const listed = `WorkspaceId IN (${bursting.map((w) => `"${w.workspaceId}"`).join(', ')})`;
    let burstListed = 0;
    await waitFor(async () => (burstListed = (await api.deps.temporal.workflow.count(listed)).count) >= accepted, 120_000);
    const burstStartedMs = Date.now() - burstStart;

    // --- End to end, with worker processes, on a database of their own (their workflow starters would
    // otherwise pick up the thousands of jobs above, whose workflows no worker runs).
    const workDb = withDatabase(stack.dbUrl, `${new URL(stack.dbUrl).pathname.slice(1)}_work`);
    await createDatabase(workDb);
    await applyMigrations(workDb);
    const workQueue = `bench-work-${randomUUID()}`;
    const workApi = await ctx.startTestApi({ ...on, DATABASE_URL: workDb, TEMPORAL_TASK_QUEUE: workQueue }, {}, 20);
    closers.push(() => workApi.close());
    workApi.deps.rateLimits = new RateLimits(workApi.deps.pool, () => 1_000_000_000);
    const workUrl = await listen(workApi.app, closers);
    const procs = new ProcessSet({
      env: {
        ...(process.env as Record<string, string>),
        ...stack.env,
        DATABASE_URL: workDb,
        TEMPORAL_TASK_QUEUE: workQueue,
        APP_ENV: 'test',
        // Info: the start waits for the `worker running` line (the log goes to a file).
        LOG_LEVEL: 'info',
        PLATFORM_ORIGIN_OVERRIDE: ctx.originUrl,
      },
      logDir: path.join(ROOT, '.data', `bench-${server.kind}-logs`),
      temporalAddress: stack.temporal.address,
      dataDir: stack.dataDir,
      apiPort: async () => 0,
    });
    closers.push(() => procs.stopAll());
    const first = await procs.start('worker');
    const [w] = await workspaces(ctx, workApi, 1);
    const ws = w!;
    const post = async (route: string, body: object) => {
      const res = await fetch(`${workUrl}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body),
      });
      if (res.status !== 202) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string; items?: { job_id: string }[] };
    };
    const caption = () => ({ source: { url: `https://www.youtube.com/watch?v=${videoId()}` }, mode: 'captions_only' });
    const waitJob = (id: string) => fetch(`${workUrl}/v1/jobs/${id}?wait=25`, { headers: { authorization: `Bearer ${ws.apiKey}` } });
    const [singlesMs] = await timed(async () => {
      for (let i = 0; i < 50; i++) await waitJob((await post('/v1/jobs', caption())).id);
    });
    const [[batchMs], batchBusy] = await withBusy(() =>
      timed(async () => {
        const batch = await post('/v1/batches', { items: Array.from({ length: 50 }, caption) });
        for (const item of batch.items!) await waitJob(item.job_id);
      }),
    );
    const throughput = async (workers: number[]) => {
      const cpu0 = workers.map((pid) => cpuSeconds(pid) ?? 0);
      const t0 = Date.now();
      const ids: string[] = [];
      const queue = Array.from({ length: THROUGHPUT_JOBS }, caption);
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let body = queue.shift(); body; body = queue.shift()) ids.push((await post('/v1/jobs', body)).id);
        }),
      );
      const final = { status: { in: ['succeeded', 'failed', 'cancelled'] as ('succeeded' | 'failed' | 'cancelled')[] } };
      while ((await workApi.deps.db.job.count({ where: { id: { in: ids }, ...final } })) < ids.length) await sleep(100);
      const seconds = (Date.now() - t0) / 1000;
      const cpu = workers.reduce((sum, pid, i) => sum + (cpuSeconds(pid) ?? 0) - cpu0[i]!, 0);
      return { perSecond: ids.length / seconds, cpu: cpu / seconds / 2 };
    };
    const [oneWorker, oneWorkerBusy] = await withBusy(() => throughput([first.pid]));
    const second = await procs.start('worker');
    const [twoWorkers, twoWorkersBusy] = await withBusy(() => throughput([first.pid, second.pid]));
    const busy = {
      baseline: baselineBusy,
      accept: acceptBusy,
      burst: burstBusy,
      batch: batchBusy,
      oneWorker: oneWorkerBusy,
      twoWorkers: twoWorkersBusy,
    };
    return {
      label: server.label,
      baseline,
      accept,
      cost,
      lasting: lastingFigures,
      burst,
      burstStartedMs,
      burstListed,
      singlesMs,
      batchMs,
      oneWorker,
      twoWorkers,
      busy,
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await stack.stop();
  }
}

async function listen(app: express.Express, closers: (() => Promise<unknown>)[]): Promise<string> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Workspaces on the Scale plan with credits for any load. */
async function workspaces(ctx: BenchContext, api: TestApi, count: number): Promise<TestWorkspace[]> {
  const made: TestWorkspace[] = [];
  for (let i = 0; i < count; i++) {
    const w = await ctx.createWorkspace(api.deps, { plan: 'scale' });
    await api.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 1000000 WHERE workspace_id = ${w.workspaceId}::uuid`;
    made.push(w);
  }
  return made;
}

/** CPU seconds of the processes a request touches. */
interface CpuSplit {
  /** This process: the API (or, for the baseline, the bare start's Express) and the starter beside it. */
  api: number;
  /** The load generators this process ran and waited for. */
  load: number;
  temporal: number;
  /** PostgreSQL with its backends: the service's database, and on the production server Temporal's as well. */
  postgres: number;
}

function processCpu(stack: ThrowawayStack): CpuSplit {
  const self = cpuSecondsSplit(process.pid) ?? { own: NaN, reaped: NaN };
  return {
    api: self.own,
    load: self.reaped,
    temporal: treeCpuSeconds(stack.temporal.pid) ?? NaN,
    postgres: treeCpuSeconds(stack.pg.pid) ?? NaN,
  };
}

/** The CPU spent between two readings, per request. */
function perEach(a: CpuSplit, b: CpuSplit, requests: number): CpuSplit {
  const n = Math.max(1, requests);
  return {
    api: (b.api - a.api) / n,
    load: (b.load - a.load) / n,
    temporal: (b.temporal - a.temporal) / n,
    postgres: (b.postgres - a.postgres) / n,
  };
}

const cpuTotal = (c: CpuSplit) => c.api + c.load + c.temporal + c.postgres;

/** The machine's CPU counters (/proc/stat, all cores): busy and total jiffies. */
function cpuTimes(): { busy: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the time no process wanted a core.
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** Runs `fn` and answers its value with the share of all cores that were busy meanwhile (0–1). */
async function withBusy<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const a = cpuTimes();
  const value = await fn();
  const b = cpuTimes();
  return [value, (b.busy - a.busy) / Math.max(1, b.total - a.total)];
}
