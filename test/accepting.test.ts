import { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import request from 'supertest';
import { createActivities } from '../activities';
import { RateLimits } from '../api/http/rate-limit';
import { createOutbound } from '../integrations/outbound/http';
import { connectTemporal, type TemporalConnection } from '../integrations/temporal-connection';
import { workflowIds } from '../workflows/definitions';
import { runWorkflowStarter } from '../worker/workflow-starter';
import { START_GRACE_MS, STARTER_PAGE_SIZE } from '../domain/workflow-starts';
import { type StartDispatcher } from '../domain/start-dispatcher';
import { jobsToStart, STARTER_CONCURRENCY, startPendingWorkflows } from '../domain/pending-starts';
import { Prisma } from '../prisma/generated/client';
import { audioDir, makeSpeech, PARAGRAPHS } from './support/speech';
import { reserveAndPut } from './support/uploads';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import { activityDepsFor, startedJobWorkflow, submit, videositeCaptionRoutes } from './support/job-stack';
import { startReplayOrigin, type ReplayOrigin } from './support/replay-origin';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
import { startTestWorker, type TestWorker } from './support/worker';

// Issue 11: acceptance commits first and starts the workflow after the commit,
// with no network call under a lock; a start that is lost (the API killed
// between the two, Temporal unreachable) is made up by the starter, exactly once.

const FINAL = ['succeeded', 'failed', 'cancelled'];
const video = (i: number) => `https://www.youtube.com/watch?v=acc${String(i).padStart(8, '0')}`;

/** Submits allowed without limit, so these tests reach the credit and jobs-in-progress rules. */
const unlimitedSubmits = (api: TestApi) => new RateLimits(api.deps.pool, () => 1_000_000);

async function waitAllFinal(api: TestApi, ids: string[], withinMs: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < withinMs) {
    const final = await api.deps.db.job.count({ where: { id: { in: ids }, status: { in: FINAL as never } } });
    if (final === ids.length) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not every job final within ${withinMs} ms`);
}

async function expectCreditsExact(api: TestApi, ws: TestWorkspace, jobIds: string[]) {
  const usage = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;
  const jobs = await api.deps.db.job.findMany({ where: { id: { in: jobIds } } });
  const charged = jobs.reduce((s, j) => s + j.creditsCharged, 0);
  expect(usage.credits_reserved).toBe(0);
  expect(usage.credits_total - usage.credits_remaining).toBe(charged);
  const account = await api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId: ws.workspaceId } });
  expect(account.activeJobs).toBe(0);
  for (const job of jobs) {
    // One workflow per job, and one settlement of its hold.
    expect(await api.deps.db.creditLedgerEntry.count({ where: { holdId: job.holdId!, kind: { in: ['charge'] } } })).toBe(
      job.status === 'succeeded' ? 1 : 0,
    );
  }
}

describe('the jobs-in-progress limit is exact under concurrent submits', () => {
  let api: TestApi;
  beforeAll(async () => {
    // A queue no worker serves: accepted jobs stay in progress.
    api = await startTestApi({ TEMPORAL_TASK_QUEUE: `accept-limit-${randomUUID()}` }, {}, 20);
    api.deps.rateLimits = unlimitedSubmits(api);
  });
  afterAll(() => api.close());

  it('30 parallel submits on a trial workspace (limit 10): exactly 10 accepted, 20 refused 429 naming the limit', async () => {
    const ws = await createWorkspace(api.deps);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(api.app)
          .post('/v1/jobs')
          .set(bearer(ws.apiKey))
          .set('Idempotency-Key', randomUUID())
          .send({ source: { url: video(i) }, mode: 'captions_only' }),
      ),
    );
    const accepted = results.filter((r) => r.status === 202);
    const refused = results.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { detail: 'jobs_in_progress=10' } });
    const account = await api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId: ws.workspaceId } });
    expect({ activeJobs: account.activeJobs, reserved: account.reserved }).toEqual({ activeJobs: 10, reserved: 10 });
    // Nothing half-written by the refused ones: no job, no hold.
    expect(await api.deps.db.job.count({ where: { workspaceId: ws.workspaceId } })).toBe(10);
    expect(await api.deps.db.creditHold.count({ where: { workspaceId: ws.workspaceId } })).toBe(10);
    expect(await api.deps.db.creditLedgerEntry.count({ where: { workspaceId: ws.workspaceId, kind: 'hold' } })).toBe(10);
    // The refused requests' keys are not taken (the claim is undone with the rest), so a retry can be accepted.
    expect(await api.deps.db.idempotencyRecord.count({ where: { workspaceId: ws.workspaceId } })).toBe(10);
  });

  it('credits are exact too: 40 parallel auto submits on 50 credits hold 2 each, 25 fit', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'starter' });
    await api.deps.db
      .$executeRaw`UPDATE credit_accounts SET period_credits = 50, period_total = 50 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(api.app)
          .post('/v1/jobs')
          .set(bearer(ws.apiKey))
          .set('Idempotency-Key', randomUUID())
          .send({ source: { url: video(100 + i) }, mode: 'auto' }),
      ),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(25);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.error.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    const account = await api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId: ws.workspaceId } });
    expect({ reserved: account.reserved, activeJobs: account.activeJobs }).toEqual({ reserved: 50, activeJobs: 25 });
  });

  it('a refused submit leaves nothing behind: the same key is accepted once there is room, and answered as a replay after', async () => {
    const ws = await createWorkspace(api.deps, { plan: 'starter' });
    await api.deps.db
      .$executeRaw`UPDATE credit_accounts SET period_credits = 1, period_total = 1 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const key = randomUUID();
    const send = () =>
      request(api.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', key)
        .send({ source: { url: video(200) }, mode: 'auto' });
    const refused = await send();
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { detail: 'credits_remaining' } });
    const none = { where: { workspaceId: ws.workspaceId } };
    expect(
      await Promise.all([
        api.deps.db.idempotencyRecord.count(none),
        api.deps.db.job.count(none),
        api.deps.db.creditHold.count(none),
        api.deps.db.creditLedgerEntry.count({ where: { workspaceId: ws.workspaceId, kind: 'hold' } }),
      ]),
    ).toEqual([0, 0, 0, 0]);

    await api.deps.db
      .$executeRaw`UPDATE credit_accounts SET period_credits = 2, period_total = 2 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    const accepted = await send();
    expect(accepted.status).toBe(202);
    const job = await api.deps.db.job.findUniqueOrThrow({ where: { id: accepted.body.id }, include: { hold: true } });
    expect(job).toMatchObject({ status: 'queued', creditsReserved: 2, hold: { amount: 2, status: 'held' } });
    // Times are the database's, as the row has them.
    expect(new Date(accepted.body.created_at).getTime()).toBe(job.createdAt.getTime());
    const replay = await send();
    expect({ status: replay.status, id: replay.body.id }).toEqual({ status: 200, id: accepted.body.id });
    const account = await api.deps.db.creditAccount.findUniqueOrThrow({ where: { workspaceId: ws.workspaceId } });
    expect({ reserved: account.reserved, activeJobs: account.activeJobs }).toEqual({ reserved: 2, activeJobs: 1 });
  });
});

describe('a start lost after the commit is made up by the starter', () => {
  let origin: ReplayOrigin;
  let worker: TestWorker;
  let healthy: TestApi;
  let taskQueue: string;
  let proxy: TcpProxy;
  let cut: TestApi;
  let cutConnection: TemporalConnection;
  let privateUrl: string;

  beforeAll(async () => {
    origin = await startReplayOrigin(videositeCaptionRoutes());
    taskQueue = `accept-starter-${randomUUID()}`;
    // The starter looks at every job of its database: a database of its own keeps it to this file's jobs.
    const DATABASE_URL = await privateDatabase('accepting');
    privateUrl = DATABASE_URL;
    healthy = await startTestApi({ DATABASE_URL, TEMPORAL_TASK_QUEUE: taskQueue });
    healthy.deps.rateLimits = unlimitedSubmits(healthy);
    const outbound = createOutbound({ originOverride: origin.url, timeoutMs: 3000 });
    worker = await startTestWorker(createActivities(activityDepsFor(healthy, outbound, { originOverride: origin.url })), taskQueue);
    // An API whose Temporal connection runs through a relay the test can cut: its starts fail, as if it died after the commit.
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(process.env.TEMPORAL_ADDRESS!.split(':')[1]) });
    cutConnection = await connectTemporal(proxy.address);
    cut = await startTestApi(
      { DATABASE_URL, TEMPORAL_TASK_QUEUE: taskQueue },
      { temporal: new Client({ connection: cutConnection.connection }) },
    );
    cut.deps.rateLimits = unlimitedSubmits(cut);
  });
  afterAll(async () => {
    await worker.stop();
    await cut.close();
    await cutConnection.close();
    await proxy.close();
    await healthy.close();
    await origin.close();
  });

  it('jobs and a batch accepted while the start fails: 202 at once, started by the starter, final once, credits exact', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    await proxy.cut();
    const t0 = Date.now();
    const singles = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(cut.app)
          .post('/v1/jobs')
          .set(bearer(ws.apiKey))
          .set('Idempotency-Key', randomUUID())
          .send({ source: { url: video(200 + i) }, mode: 'captions_only' }),
      ),
    );
    const batch = await request(cut.app)
      .post('/v1/batches')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ items: [0, 1, 2].map((i) => ({ source: { url: video(300 + i) }, mode: 'captions_only' })) });
    // Accepted without waiting for Temporal (no network call on the accepting path that can hold it).
    expect(singles.map((r) => r.status)).toEqual(singles.map(() => 202));
    expect(batch.status).toBe(202);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const jobIds = [...singles.map((r) => r.body.id as string), ...(batch.body.items as { job_id: string }[]).map((i) => i.job_id)];
    expect(await healthy.deps.db.job.count({ where: { id: { in: jobIds }, workflowStartedAt: { not: null } } })).toBe(0);

    // The starter of a (healthy) worker process.
    const stopStarter = runWorkflowStarter(healthy.deps.db, { temporal: healthy.deps.temporal, taskQueue }, pino({ level: 'silent' }));
    try {
      const tookMs = await waitAllFinal(healthy, jobIds, 30_000);
      console.log(`[accepting] ${jobIds.length} jobs whose start was lost were final ${tookMs} ms after the starter began`);
    } finally {
      await stopStarter();
    }
    const jobs = await healthy.deps.db.job.findMany({ where: { id: { in: jobIds } } });
    expect(jobs.map((j) => j.status)).toEqual(jobs.map(() => 'succeeded'));
    // Exactly one workflow per job: a second start is refused.
    const handle = healthy.deps.temporal.workflow.getHandle(workflowIds.job(jobs[0]!.id));
    // The row is final one step before the workflow is (its last workflow task): wait for the workflow's end.
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    await expect(
      healthy.deps.temporal.workflow.start('jobWorkflow', {
        taskQueue,
        workflowId: workflowIds.job(jobs[0]!.id),
        args: [{ jobId: jobs[0]!.id }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    ).rejects.toThrow(/already/i);
    await expectCreditsExact(healthy, ws, jobIds);
    await proxy.restore();
  });

  it('a starter pass starts lost starts side by side, at most STARTER_CONCURRENCY at a time', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    await proxy.cut();
    const lost = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submit(cut, ws.apiKey, { source: { url: video(600 + i) }, mode: 'captions_only' })),
    );
    // The API's own starts after the commits have failed (each gives up after its deadline): these are lost.
    await cut.deps.starts.drain();
    await proxy.restore();
    const jobIds = lost.map((r) => r.body.id as string);
    // The healthy client, each start held 100 ms, counting how many are under way at once.
    const real = healthy.deps.temporal;
    let underWay = 0;
    let most = 0;
    const workflow = Object.create(real.workflow) as typeof real.workflow;
    workflow.start = (async (...args: Parameters<typeof real.workflow.start>) => {
      most = Math.max(most, ++underWay);
      try {
        await new Promise((r) => setTimeout(r, 100));
        return await real.workflow.start(...args);
      } finally {
        underWay--;
      }
    }) as typeof real.workflow.start;
    const counting = Object.create(real, { workflow: { value: workflow } }) as Client;
    const pass = await startPendingWorkflows(healthy.deps.db, { temporal: counting, taskQueue }, new Date(Date.now() + 10_000));
    expect(pass.jobs).toBeGreaterThanOrEqual(20);
    expect(pass.started).toBeGreaterThanOrEqual(20);
    // Less than a page: no backlog, so the loop waits its interval before the next pass.
    expect(pass.backlog).toBe(false);
    // Side by side (one after another would never pass 1), and bounded.
    expect(most).toBeGreaterThanOrEqual(4);
    expect(most).toBeLessThanOrEqual(STARTER_CONCURRENCY);
    await waitAllFinal(healthy, jobIds, 30_000);
    await expectCreditsExact(healthy, ws, jobIds);
  });

  it('a job whose workflow waits in its queue is recorded as started by the API, and the starter leaves it alone', async () => {
    // An API whose workflows go to a queue no worker polls: the start succeeds, the job stays queued.
    const idleQueue = `accepting-idle-${randomUUID()}`;
    const idle = await startTestApi({ DATABASE_URL: privateUrl, TEMPORAL_TASK_QUEUE: idleQueue });
    try {
      const ws = await createWorkspace(idle.deps, { plan: 'pro' });
      const res = await submit(idle, ws.apiKey, { source: { url: video(700) }, mode: 'captions_only' });
      expect(res.status).toBe(202);
      const handle = await startedJobWorkflow(idle, res.body.id);
      await idle.deps.starts.drain();
      const job = await idle.deps.db.job.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(job.status).toBe('queued');
      expect(job.workflowStartedAt).not.toBeNull();
      const later = new Date(Date.now() + 10_000);
      const starter = { temporal: healthy.deps.temporal, taskQueue };
      // Nothing to confirm: under a backlog the starter would otherwise ask Temporal about every queued job.
      expect(await startPendingWorkflows(healthy.deps.db, starter, later)).toMatchObject({ jobs: 0, started: 0 });
      // The record lost (the API ended between the start and its record): the pass confirms it, starts nothing.
      await idle.deps.db.job.update({ where: { id: job.id }, data: { workflowStartedAt: null } });
      const pass = await startPendingWorkflows(healthy.deps.db, starter, later);
      expect(pass.jobs).toBe(1);
      expect(pass.started).toBe(0);
      await handle.terminate('test over');
    } finally {
      await idle.close();
    }
  });

  it('the starter’s scan reads the jobs it may start, not every job without a workflow (reused ones, batch children)', async () => {
    // 20,000 jobs a retained transcript answered: succeeded, no workflow, workflow_started_at null for ever.
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    const res = await submit(cut, ws.apiKey, { source: { url: video(800) }, mode: 'captions_only' });
    const db = healthy.deps.db;
    const copies = 20_000;
    // Copies of a submitted job's row, each its own id and workflow id, as a reused job is written.
    await db.$executeRaw`
      INSERT INTO jobs
      SELECT (jsonb_populate_record(NULL::jobs, to_jsonb(j) || jsonb_build_object(
        'id', gen_random_uuid(), 'workflow_id', 'reused-' || g || '-' || j.id, 'hold_id', NULL,
        'status', 'succeeded', 'billing_kind', 'cached', 'workflow_started_at', NULL))).*
      FROM jobs j, generate_series(1, ${copies}) g WHERE j.id = ${res.body.id}::uuid`;
    try {
      await db.$executeRawUnsafe('ANALYZE jobs');
      const explained = await db.$queryRaw<Record<string, { Plan: Record<string, unknown> }[]>[]>(
        Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${jobsToStart(new Date(Date.now() + 10_000))}`,
      );
      const plan = Object.values(explained[0]!)[0]![0]!.Plan;
      // Pages the whole plan touched (the top node counts its children's): a handful, plus about one per job it
      // returns and per dead index entry it steps over (other tests' jobs share this database: 22 in one CI run,
      // 3 on a quiet one, against the bound of 20 this test had). A scan through the 20,000 reads most of the
      // table, so the bound is a tenth of the table's pages: far from both.
      const pages = Number(plan['Shared Hit Blocks']) + Number(plan['Shared Read Blocks']);
      const [{ relpages }] = await db.$queryRaw<{ relpages: number }[]>`SELECT relpages FROM pg_class WHERE oid = 'jobs'::regclass`;
      expect(relpages).toBeGreaterThan(400);
      expect(pages).toBeLessThan(relpages / 10);
      // And the index the starter keeps in use does not grow with jobs that never need a start: it held every
      // one of them (144 kB here for the 20,000, measured); now a page or two whatever their number.
      const [{ bytes }] = await db.$queryRaw<{ bytes: bigint }[]>`SELECT pg_relation_size('jobs_start_pending_idx') AS bytes`;
      expect(Number(bytes)).toBeLessThanOrEqual(3 * 8192);
    } finally {
      await db.$executeRaw`DELETE FROM jobs WHERE workspace_id = ${ws.workspaceId}::uuid AND billing_kind = 'cached'`;
    }
    // What is checked is pages and bytes, not time: the budget only has to outlast 20,000 inserts on a busy machine
    // (past 60 s once, with other suites beside it).
  }, 300_000);

  it('Temporal unreachable while submits go on: every accepted job becomes final once it is back', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    const stopStarter = runWorkflowStarter(healthy.deps.db, { temporal: healthy.deps.temporal, taskQueue }, pino({ level: 'silent' }));
    const accepted: string[] = [];
    try {
      let i = 0;
      const submitFor = async (ms: number) => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          const res = await request(cut.app)
            .post('/v1/jobs')
            .set(bearer(ws.apiKey))
            .set('Idempotency-Key', randomUUID())
            .send({ source: { url: video(400 + i++) }, mode: 'captions_only' });
          expect(res.status).toBe(202);
          accepted.push(res.body.id);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await submitFor(1000);
      await proxy.cut(); // the API's Temporal goes away
      await submitFor(3000);
      await proxy.restore();
      await submitFor(1000);
      await waitAllFinal(healthy, accepted, 30_000);
    } finally {
      await stopStarter();
    }
    const jobs = await healthy.deps.db.job.findMany({ where: { id: { in: accepted } } });
    expect(jobs.every((j) => j.status === 'succeeded')).toBe(true);
    await expectCreditsExact(healthy, ws, accepted);
  }, 90_000);

  it('an upload left `verifying` without its verification (a crash between the two) is verified by the starter', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    const audio = await audioDir();
    try {
      const speech = await makeSpeech(PARAGRAPHS[0]!, audio.dir, 'talk', { format: 'mp3' });
      const { slot } = await reserveAndPut(healthy, ws, speech.path, 'audio/mpeg');
      // What completion commits before it starts the verification, a minute ago, with the start lost.
      await healthy.deps.db.upload.update({
        where: { id: slot.id },
        data: { status: 'verifying', verificationRequestedAt: new Date(Date.now() - 60_000) },
      });
      const pass = await startPendingWorkflows(healthy.deps.db, { temporal: healthy.deps.temporal, taskQueue });
      expect(pass.uploads).toBeGreaterThanOrEqual(1);
      let status = 'verifying';
      for (let i = 0; i < 100 && status === 'verifying'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await request(healthy.app).get(`/v1/uploads/${slot.id}`).set(bearer(ws.apiKey))).body.status;
      }
      expect(status).toBe('ready');
    } finally {
      await audio.cleanup();
    }
  });

  it('a cancel of a job whose workflow never started starts it and cancels it', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'pro' });
    // Captions answered slowly, so the job is still cancellable when the cancel arrives.
    origin.setRoutes(videositeCaptionRoutes({ captionDelayMs: 3000 }));
    // A job committed, its start lost.
    await proxy.cut();
    const res = await request(cut.app)
      .post('/v1/jobs')
      .set(bearer(ws.apiKey))
      .set('Idempotency-Key', randomUUID())
      .send({ source: { url: video(900) }, mode: 'captions_only' });
    await proxy.restore();
    expect(res.status).toBe(202);
    const cancel = await request(healthy.app).post(`/v1/jobs/${res.body.id}/cancel`).set(bearer(ws.apiKey));
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    await expectCreditsExact(healthy, ws, [res.body.id]);
    origin.setRoutes(videositeCaptionRoutes());
  });

  // Last in this block: until the starter below has run, its jobs are lost starts every pass above would find.
  it('a backlog of more than a page of lost starts is drained by one starter without waiting out its interval', async () => {
    const ws = await createWorkspace(healthy.deps, { plan: 'scale' });
    await healthy.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 100000 WHERE workspace_id = ${ws.workspaceId}::uuid`;
    // An API that commits and never starts (as if every start after a commit had been lost in a burst or an outage).
    const neverStarts = {
      dispatch: () => undefined,
      caughtUp: async () => undefined,
      drain: async () => undefined,
    } as unknown as StartDispatcher;
    const silent = await startTestApi({ DATABASE_URL: privateUrl, TEMPORAL_TASK_QUEUE: taskQueue }, { starts: neverStarts });
    silent.deps.rateLimits = unlimitedSubmits(silent);
    const jobIds: string[] = [];
    try {
      for (let chunk = 0; jobIds.length < STARTER_PAGE_SIZE + 50; chunk++) {
        const answers = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            submit(silent, ws.apiKey, { source: { url: video(10_000 + chunk * 25 + i) }, mode: 'captions_only' }),
          ),
        );
        jobIds.push(...answers.map((r) => r.body.id as string));
      }
    } finally {
      await silent.close();
    }
    // Started on a queue no worker polls: the starts are what is measured, not the jobs.
    const idleQueue = `accept-backlog-${randomUUID()}`;
    const started = () => healthy.deps.db.job.count({ where: { id: { in: jobIds }, workflowStartedAt: { not: null } } });
    expect(await started()).toBe(0);
    // The starter leaves a commit younger than its grace to the API's own start.
    await new Promise((r) => setTimeout(r, START_GRACE_MS + 500));
    // Passes ten minutes apart: the page after the first is started only if a full page is followed at once.
    const tenMinutes = 10 * 60_000;
    const stopStarter = runWorkflowStarter(
      healthy.deps.db,
      { temporal: healthy.deps.temporal, taskQueue: idleQueue },
      pino({ level: 'silent' }),
      tenMinutes,
    );
    // What is shown is that the starter does not wait out its ten minutes between pages, so the deadline only
    // has to be well short of that: a loaded machine took the whole test past 60 s once, at 40 s for the drain.
    const drainStarted = Date.now();
    try {
      const deadline = drainStarted + 150_000;
      while ((await started()) < jobIds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      await stopStarter();
    }
    expect(await started()).toBe(jobIds.length);
    console.log(`[accepting] ${jobIds.length} lost starts drained by one starter in ${Date.now() - drainStarted} ms`);
    // Nothing is left for a next pass, which reads no full page: it would wait the interval.
    const after = await startPendingWorkflows(
      healthy.deps.db,
      { temporal: healthy.deps.temporal, taskQueue: idleQueue },
      new Date(Date.now() + 10_000),
    );
    expect(after).toMatchObject({ jobs: 0, backlog: false });

    // A full page of uploads still `verifying` is no backlog: they stay on the list while their verifications
    // run, so a pass following them at once would ask Temporal the same starts again and again.
    await healthy.deps.db.$executeRaw`
      INSERT INTO uploads (id, workspace_id, filename, content_type, bytes, object_key, status, expires_at, verification_requested_at)
      SELECT gen_random_uuid(), ${ws.workspaceId}::uuid, 'talk.mp3', 'audio/mpeg', 1, 'backlog-test/' || n, 'verifying', now() + interval '1 day', now() - interval '1 minute'
      FROM generate_series(1, ${STARTER_PAGE_SIZE}) AS n`;
    try {
      const verifying = await startPendingWorkflows(healthy.deps.db, { temporal: healthy.deps.temporal, taskQueue: idleQueue });
      expect(verifying).toMatchObject({ uploads: STARTER_PAGE_SIZE, backlog: false });
    } finally {
      await healthy.deps.db.upload.deleteMany({ where: { objectKey: { startsWith: 'backlog-test/' } } });
    }
  }, 600_000);
});
