/**
 * `npm run traces`: reads traces back from the local Jaeger that `npm run dev -- --traces` runs.
 *   npm run traces                  the latest traces of the API (id, root span, duration, spans)
 *   npm run traces -- <trace id>    one trace as a waterfall, and where its time goes by kind
 *   npm run traces -- --job <id>    the trace of a job: its id from the job workflow's memo in Temporal
 * JAEGER_QUERY_URL (default http://127.0.0.1:16686) and TEMPORAL_ADDRESS (default 127.0.0.1:7233) point elsewhere.
 */
import { Client, Connection } from '@temporalio/client';
import { fromJaegerTrace, timeByKind, TIME_KINDS, waterfall } from '../integrations/telemetry/span-report';
import { workflowIds } from '../workflows/definitions';

const QUERY = process.env.JAEGER_QUERY_URL ?? 'http://127.0.0.1:16686';

async function jaeger(pathAndQuery: string) {
  const res = await fetch(`${QUERY}${pathAndQuery}`).catch((err: Error) => {
    throw new Error(`Jaeger is not answering at ${QUERY} (${err.message}): start it with \`npm run dev -- --traces\``);
  });
  if (!res.ok) throw new Error(`Jaeger answered ${res.status} to ${pathAndQuery}`);
  return (await res.json()) as { data: Parameters<typeof fromJaegerTrace>[0][] };
}

async function traceIdOfJob(jobId: string): Promise<string> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    const described = await client.workflow.getHandle(workflowIds.job(jobId)).describe();
    const traceId = described.memo?.trace_id;
    if (typeof traceId !== 'string') throw new Error(`job ${jobId}'s workflow has no trace id (was it started with tracing on?)`);
    return traceId;
  } finally {
    await connection.close();
  }
}

async function showTrace(traceId: string) {
  const { data } = await jaeger(`/api/traces/${encodeURIComponent(traceId)}`);
  const spans = data[0] ? fromJaegerTrace(data[0]) : [];
  if (spans.length === 0) throw new Error(`no trace ${traceId} in Jaeger (it keeps traces in memory while it runs)`);
  console.log(`trace ${traceId}: ${spans.length} spans\n`);
  console.log(`    start      duration  service                process / span`);
  for (const line of waterfall(spans)) console.log(line);
  const from = Math.min(...spans.map((s) => s.start));
  const to = Math.max(...spans.map((s) => s.end));
  const byKind = timeByKind(spans, from, to);
  console.log(`\nwhere its ${(to - from).toFixed(1)} ms go:`);
  for (const kind of TIME_KINDS) if (byKind[kind] > 0) console.log(`  ${kind.padEnd(16)} ${byKind[kind].toFixed(1).padStart(9)} ms`);
}

async function listTraces() {
  const { data } = await jaeger('/api/traces?service=transcript-api&limit=20&lookback=1h');
  for (const t of data) {
    const spans = fromJaegerTrace(t);
    const root = spans.find((s) => !s.parentId) ?? spans[0]!;
    const from = Math.min(...spans.map((s) => s.start));
    const to = Math.max(...spans.map((s) => s.end));
    console.log(
      `${t.traceID}  ${new Date(from).toISOString()}  ${(to - from).toFixed(1).padStart(9)} ms  ${String(spans.length).padStart(4)} spans  ${root.name}`,
    );
  }
}

async function main() {
  const [first, second] = process.argv.slice(2);
  if (first === '--job') {
    if (!second) throw new Error('--job needs a job id');
    return showTrace(await traceIdOfJob(second));
  }
  if (first) return showTrace(first);
  return listTraces();
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
