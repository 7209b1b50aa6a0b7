/**
 * `npm run bench`: every figure beside a baseline measured in the same run, on
 * a private stack (own PostgreSQL database, own Temporal dev server, a real
 * worker, the platform replay origin on loopback). Prints markdown and writes
 * bench/RESULTS.md. One file per section in bench/sections/, in the order
 * below; `npm run bench -- --only=accept,usage` runs just those (printed,
 * RESULTS.md untouched, but for a section that owns its block there, which is
 * written either way).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import express from 'express';
import { createActivities } from '../activities';
import { createOutbound } from '../integrations/outbound/http';
import { startThrowawayStack } from '../stack/throwaway-stack';
import type { BenchContext, BenchSection } from './harness';
import { RESULTS_FILE, withKeptSections, writeBlock } from './results-file';
import { acceptSection } from './sections/accept';
import { asrSection } from './sections/asr';
import { growingSection } from './sections/growing';
import { liveSection } from './sections/live';
import { streamingSection } from './sections/streaming';
import { cachedSection } from './sections/cached';
import { captionSection } from './sections/caption';
import { discoverySection } from './sections/discovery';
import { discoveryParseSection } from './sections/discovery-parse';
import { exportsSection } from './sections/exports';
import { mcpSection } from './sections/mcp';
import { searchSection } from './sections/search';
import { searchRelevanceSection } from './sections/search-relevance';
import { chaptersSection } from './sections/chapters';
import { translationSection } from './sections/translation';
import { summariesSection } from './sections/summaries';
import { redactionSection } from './sections/redaction';
import { serversSection } from './sections/servers';
import { tracesSection } from './sections/traces';
import { usageSection } from './sections/usage';
import { webhooksSection } from './sections/webhooks';

const SECTIONS: BenchSection[] = [
  usageSection,
  captionSection,
  discoverySection,
  discoveryParseSection,
  acceptSection,
  cachedSection,
  webhooksSection,
  asrSection,
  growingSection,
  liveSection,
  streamingSection,
  exportsSection,
  mcpSection,
  searchSection,
  searchRelevanceSection,
  chaptersSection,
  translationSection,
  summariesSection,
  redactionSection,
  tracesSection,
  serversSection,
];

async function main() {
  const lines: string[] = [];
  const out = (s = '') => {
    lines.push(s);
    console.log(s);
  };
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const unknown = (only ?? []).filter((name) => !SECTIONS.some((s) => s.name === name));
  if (unknown.length) throw new Error(`no bench section ${unknown.join(', ')}: the sections are ${SECTIONS.map((s) => s.name).join(', ')}`);

  // --- the stack
  const stack = await startThrowawayStack({ name: 'bench', pgPort: 54359, temporalPort: 7293 });
  stopStackOnFailure = () => stack.stop();
  Object.assign(process.env, { ...stack.env, LOG_LEVEL: 'silent' });

  // Imported after the environment is set: they read it.
  const { startTestApi, createWorkspace, bearer } = await import('../test/support/harness');
  const { startTestWorker } = await import('../test/support/worker');
  const { startReplayOrigin } = await import('../test/support/replay-origin');
  const { videositeCaptionRoutes, activityDepsFor } = await import('../test/support/job-stack');

  const origin = await startReplayOrigin([
    ...videositeCaptionRoutes(),
    // The recorded search pages, for the discovery section.
    {
      method: 'POST',
      path: '/youtubei/v1/search',
      when: (r) => !r.body.includes('"continuation"'),
      recording: 'videosite/search/search-test-videos-page1.newpipe-mock.json',
    },
  ]);
  const taskQueue = `bench-${randomUUID()}`;
  const api = await startTestApi({ TEMPORAL_TASK_QUEUE: taskQueue }, {}, 20);
  const outbound = createOutbound({ originOverride: origin.url, timeoutMs: 5000 });
  const worker = await startTestWorker(createActivities(activityDepsFor(api, outbound)), taskQueue);
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const bare = express();
  bare.use(express.json());
  bare.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  bare.post('/bare', (req, res) => {
    res.status(202).json({ ok: true, echo: req.body?.mode ?? null });
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/bare`;

  // Workspaces: reads are limited to 120 per minute per workspace, so the load rotates over many.
  const makeWorkspaces = async (count: number) => {
    const made = [];
    for (let i = 0; i < count; i += 4)
      made.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, () => createWorkspace(api.deps, { plan: 'scale' })))));
    return made;
  };
  const readers = await makeWorkspaces(160);
  const submitters = await makeWorkspaces(40);
  for (const w of submitters)
    await api.deps.db.$executeRaw`UPDATE credit_accounts SET prepaid_credits = 1000000 WHERE workspace_id = ${w.workspaceId}::uuid`;

  const ctx: BenchContext = {
    api,
    base,
    bareUrl,
    taskQueue,
    readers,
    submitters,
    makeWorkspaces,
    startTestApi,
    createWorkspace,
    bearer,
    loadCfg: { connections: 16, durationSeconds: 6 },
    originUrl: origin.url,
    out,
  };

  out(`# Benchmark results`);
  out();
  out(
    `Command: \`npm run bench\` · ${new Date().toISOString()} · ${os.cpus().length} cores, Node ${process.version}. Each figure stands beside a baseline measured in the same run; the ratio is what counts on these shared machines.`,
  );
  out();
  const blocks: { name: string; lines: string[] }[] = [];
  for (const section of SECTIONS) {
    if (only && !only.includes(section.name)) continue;
    if (!section.ownBlock) {
      await section.run(ctx);
      continue;
    }
    const block = { name: section.name, lines: [] as string[] };
    await section.run({
      ...ctx,
      out: (s = '') => {
        block.lines.push(s);
        console.log(s);
      },
    });
    blocks.push(block);
  }

  // The blocks of asr.bench.ts, eval:asr, caption-ab and the scale test and the History stay as they are (bench/results-file.ts).
  if (!only) fs.writeFileSync(RESULTS_FILE, withKeptSections(lines.join('\n')));
  for (const {
    name,
    lines: [heading, ...rest],
  } of blocks) {
    const command = `Command: \`npm run bench\` (or \`npm run bench -- --only=${name}\`) · ${new Date().toISOString()} · ${os.cpus().length} cores.`;
    writeBlock(name, [heading, '', command, ...rest].join('\n'));
  }
  server.close();
  bareServer.close();
  await worker.stop();
  await outbound.close();
  await api.close();
  await origin.close();
  await stack.stop();
}

/**
 * The stack's servers run in process groups of their own (a Ctrl-C reaches only us), so a section that throws
 * must stop them before the exit: otherwise its Temporal server outlives the run and holds the bench's port.
 */
let stopStackOnFailure: (() => Promise<void>) | undefined;

main().then(
  () => process.exit(0),
  async (e) => {
    console.error(e);
    await stopStackOnFailure?.().catch((err) => console.error('[bench] stopping the stack failed', err));
    process.exit(1);
  },
);
