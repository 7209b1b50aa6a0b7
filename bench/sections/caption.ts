import { randomUUID } from 'node:crypto';
import { type BenchContext, type BenchSection, ms, pct, ratio, timed, videoId } from '../harness';

export const captionSection: BenchSection = {
  name: 'caption',
  async run(ctx: BenchContext) {
    const { api, base, submitters, taskQueue, out, bearer } = ctx;
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
    out(`| | p50 | p99 | vs empty workflow p50 (goal ≤ 1.5×; its floor: the traces block) |`);
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
  },
};
