// Export latency for a two-hour transcript (1,500 segments), per format.
// Run: npx tsx bench/export.bench.ts [--iterations N]
//
// Baselines, measured in the same run on the same segments:
//  - JSON.stringify(segments): the cheapest possible serialisation of the data;
//  - naive SRT join: numbered cues built by plain string concatenation with
//    no normalisation, wrapping or timing repair (this is all the npm subtitle
//    writers do; none of them is a dependency of the service).
// Goal: p50 and p99 <= 5 ms per format.

import { performance } from 'node:perf_hooks';
import { exportTranscript, ExportFormat, ExportableTranscript } from '../domain/transcripts/export';
import { longTranscript } from '../test/exports/fixtures';

const GOAL_MS = 5;
const argIdx = process.argv.indexOf('--iterations');
const ITERATIONS = argIdx > 0 ? Number(process.argv[argIdx + 1]) : 400;
const WARMUP = 100;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function measure(fn: () => unknown): { p50: number; p99: number } {
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink ^= (fn() as string).length;
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    const out = fn() as string;
    times.push(performance.now() - t0);
    sink ^= out.length;
  }
  if (sink === -1) console.log(''); // keep results observable
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

function pad(n: number): string {
  return n < 10 ? '0' + n : '' + n;
}

function naiveTs(sec: number): string {
  const ms = Math.round(sec * 1000);
  return `${pad(Math.floor(ms / 3600000))}:${pad(Math.floor(ms / 60000) % 60)}:${pad(Math.floor(ms / 1000) % 60)},${String(ms % 1000).padStart(3, '0')}`;
}

function naiveSrt(t: ExportableTranscript): string {
  let out = '';
  t.segments.forEach((s, i) => {
    out += `${i + 1}\n${naiveTs(s.start)} --> ${naiveTs(s.end)}\n${s.text}\n\n`;
  });
  return out;
}

const fixtures: { name: string; transcript: ExportableTranscript }[] = [
  { name: 'captions (segment timing, overlaps)', transcript: longTranscript({ overlap: true }) },
  { name: 'ASR (word timing)', transcript: longTranscript({ words: true }) },
];

const rows: string[] = [];
let worst = 0;
for (const { name, transcript } of fixtures) {
  const stringify = measure(() => JSON.stringify(transcript.segments));
  const naive = measure(() => naiveSrt(transcript));
  const words = transcript.words?.length ?? 0;
  rows.push(
    `| ${name} | baseline: JSON.stringify(segments) | ${stringify.p50.toFixed(3)} | ${stringify.p99.toFixed(3)} | | |`,
    `| ${name} | baseline: naive SRT join | ${naive.p50.toFixed(3)} | ${naive.p99.toFixed(3)} | | |`,
  );
  for (const format of ['txt', 'srt', 'vtt', 'json'] as ExportFormat[]) {
    const r = measure(() => exportTranscript(transcript, format).body);
    const bytes = Buffer.byteLength(exportTranscript(transcript, format).body);
    worst = Math.max(worst, r.p99);
    rows.push(
      `| ${name} | exportTranscript ${format} (${(bytes / 1024).toFixed(0)} KiB) | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${(r.p50 / stringify.p50).toFixed(1)}x | ${r.p99 <= GOAL_MS ? 'yes' : 'NO'} |`,
    );
  }
  console.error(`${name}: ${transcript.segments.length} segments, ${words} words`);
}

console.log(`Export bench: ${ITERATIONS} iterations after ${WARMUP} warm-up, Node ${process.version}, goal p99 <= ${GOAL_MS} ms\n`);
console.log('| transcript | operation | p50 ms | p99 ms | p50 vs JSON.stringify | p99 within goal |');
console.log('|---|---|---:|---:|---:|:---:|');
for (const r of rows) console.log(r);
console.log(`\nworst p99: ${worst.toFixed(3)} ms (${worst <= GOAL_MS ? 'within' : 'OVER'} the ${GOAL_MS} ms goal)`);
