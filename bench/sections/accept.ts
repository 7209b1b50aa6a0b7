import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { RateLimits } from '../../api/http/rate-limit';
import { type BenchContext, type BenchSection, runLoad } from '../harness';

export const acceptSection: BenchSection = {
  name: 'accept',
  async run(ctx: BenchContext) {
    const { api, out, makeWorkspaces, startTestApi } = ctx;
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
      `An accepted job writes its idempotency record, credit reservation, hold and row in one statement (acceptHeldRow) and starts its workflow after it, without the answer waiting for the start. Goal: ≥ 400/s, ≥ 50 % of the baseline, p99 ≤ 100 ms.`,
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
  },
};
