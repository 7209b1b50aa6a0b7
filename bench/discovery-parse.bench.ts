// Parsing one recorded listing page against JSON.parse of the same body.
// Run: npx tsx bench/discovery-parse.bench.ts [--iterations N]
// (or import discoveryParseBenchMarkdown).
//
// A discovery page is read from the platform's JSON answer (~0.35–0.5 MB, of
// which the listing is a small part). The floor is JSON.parse of the body
// alone; our parse is JSON.parse plus the listing walk (parseListing), so the
// ratio says what the walk adds. Goal (issue 13): parse <= 1.5x JSON.parse,
// judged at the median. Both operations run interleaved in blocks, a
// different one first each pass, so load from other processes falls on both.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseListing } from '../integrations/platforms/videosite-listing';
import { FIXTURES_DIR } from '../test/support/replay-origin';

const GOAL_RATIO = 1.5;
const WARMUP = 50;
const BLOCK = 10;

const PAGES = [
  { name: 'channel videos page 1', file: 'videosite/channel-videos/browse-videos-tab-page1.body.json' },
  { name: 'search page 1', file: 'videosite/search/search-test-videos-page1.body.json' },
];

interface Op {
  name: string;
  fn: () => number;
  times: number[];
}

function measure(ops: Op[], iterations: number): void {
  let sink = 0;
  const passes = Math.ceil((WARMUP + iterations) / BLOCK);
  for (let pass = 0; pass < passes; pass++) {
    for (let k = 0; k < ops.length; k++) {
      const op = ops[(pass + k) % ops.length];
      for (let n = 0; n < BLOCK; n++) {
        const t0 = performance.now();
        sink ^= op.fn();
        const dt = performance.now() - t0;
        if (pass * BLOCK + n >= WARMUP) op.times.push(dt);
      }
    }
  }
  if (sink === -1) console.log(''); // keeps the results observable
  for (const op of ops) op.times.sort((a, b) => a - b);
}

const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)];

/** Runs the bench and returns it as markdown. */
export function discoveryParseBenchMarkdown(iterations = 300): string {
  const rows: string[] = [];
  let worst = 0;
  for (const page of PAGES) {
    const body = readFileSync(path.join(FIXTURES_DIR, page.file), 'utf8');
    const videos = parseListing(JSON.parse(body)).videos.length;
    const baseline: Op = { name: 'JSON.parse', fn: () => Object.keys(JSON.parse(body) as object).length, times: [] };
    const ours: Op = { name: 'parseListing(JSON.parse)', fn: () => parseListing(JSON.parse(body)).videos.length, times: [] };
    measure([baseline, ours], iterations);
    const ratio = median(ours.times) / median(baseline.times);
    worst = Math.max(worst, ratio);
    const kib = (Buffer.byteLength(body) / 1024).toFixed(0);
    rows.push(
      `| ${page.name} (${kib} KiB, ${videos} videos) | ${median(baseline.times).toFixed(3)} | ${median(ours.times).toFixed(3)} | ${ratio.toFixed(2)}x | ${ratio <= GOAL_RATIO ? 'yes' : 'NO'} |`,
    );
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return [
    `Discovery parse bench: ${iterations} rounds per operation after ${WARMUP} warm-up, interleaved; Node ${process.version}, ${cpus().length} CPUs, load average ${load}; goal median parse <= ${GOAL_RATIO}x JSON.parse`,
    '',
    '| recorded page | JSON.parse median ms | parse median ms | ratio | within goal |',
    '|---|---:|---:|---:|:---:|',
    ...rows,
    '',
    `worst ratio: ${worst.toFixed(2)}x (${worst <= GOAL_RATIO ? 'within' : 'OVER'} the ${GOAL_RATIO}x goal)`,
  ].join('\n');
}

if (require.main === module) {
  const arg = process.argv.indexOf('--iterations');
  const iterations = arg === -1 ? 300 : Number(process.argv[arg + 1]);
  console.log(discoveryParseBenchMarkdown(iterations));
}
