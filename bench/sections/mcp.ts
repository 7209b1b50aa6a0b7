import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimits } from '../../api/http/rate-limit';
import { type BenchContext, type BenchSection, ms, pct, ratio, runMcpCalls } from '../harness';

export const mcpSection: BenchSection = {
  name: 'mcp',
  async run(ctx: BenchContext) {
    const { api, base, out, makeWorkspaces, bearer } = ctx;
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
  },
};
