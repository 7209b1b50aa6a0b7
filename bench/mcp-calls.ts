/**
 * The client side of the agent tool server bench (bench/run.ts, section mcp),
 * run as its own process like bench/load.js: an agent's MCP client runs
 * elsewhere, and here it would otherwise take the API's event loop. Input: one
 * JSON argument; output: one JSON line with the latencies (ms) of each case.
 *   { base, apiKey, n, warmup, cases: [{ name, restPath, args }] }
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

interface Case {
  name: string;
  restPath: string;
  args: Record<string, unknown>;
}

async function main() {
  const cfg = JSON.parse(process.argv[2]!) as { base: string; apiKey: string; n: number; warmup: number; cases: Case[] };
  const headers = { authorization: `Bearer ${cfg.apiKey}` };
  const clients = {
    legacy: new Client({ name: 'bench', version: '1.0.0' }),
    modern: new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
  };
  for (const c of Object.values(clients))
    await c.connect(new StreamableHTTPClientTransport(new URL(`${cfg.base}/mcp`), { requestInit: { headers } }));
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  // The REST side reads the body as JSON, as a client of it would.
  const rest = (c: Case) => () => fetch(`${cfg.base}${c.restPath}`, { headers }).then((r) => r.json());
  const tool = (client: Client, c: Case) => async () => {
    const r = await client.callTool({ name: c.name, arguments: c.args });
    if (r.isError) throw new Error(`${c.name} failed: ${JSON.stringify(r.content)}`);
  };
  const results: Record<string, { rest: number[]; legacy: number[]; modern: number[] }> = {};
  for (const c of cfg.cases) {
    const r = (results[c.name] = { rest: [] as number[], legacy: [] as number[], modern: [] as number[] });
    for (let i = 0; i < cfg.warmup + cfg.n; i++) {
      // Interleaved, so drifts of the shared machine hit all three alike.
      const [a, b, d] = [await timed(rest(c)), await timed(tool(clients.legacy, c)), await timed(tool(clients.modern, c))];
      if (i < cfg.warmup) continue;
      r.rest.push(a);
      r.legacy.push(b);
      r.modern.push(d);
    }
  }
  for (const c of Object.values(clients)) await c.close();
  console.log(JSON.stringify(results));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
