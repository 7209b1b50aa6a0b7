import { randomUUID } from 'node:crypto';
import { type BenchContext, type BenchSection, ms, pct, ratio, timed } from '../harness';

export const discoverySection: BenchSection = {
  name: 'discovery',
  async run(ctx: BenchContext) {
    const { api, base, submitters, taskQueue, out, bearer } = ctx;
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
  },
};
