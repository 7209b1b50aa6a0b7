import { type BenchContext, type BenchSection, ratio, runLoad } from '../harness';

export const usageSection: BenchSection = {
  name: 'usage',
  async run(ctx: BenchContext) {
    const { base, bareUrl, readers, out, loadCfg } = ctx;
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
  },
};
