import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { createHttpServer } from '../../api/http/server';
import { freePort, ROOT } from '../../stack/proc';
import { startRecognizer } from '../../stack/recognizer';
import { allEvalClips, score, type EvalClip } from '../../test/support/asr-eval';
import { type BenchContext, type BenchSection, pct, recognizerPython } from '../harness';

// Real-time recognition (issue 54, item 3): the recognizer's stream engine (recognizer/streaming.py) on every eval
// clip, streamed as a real-time client sends audio, beside the same clip recognised as a file (the baseline); then
// the whole path, GET /v1/listen, on every third of those clips: a WebSocket client on loopback streams each in real
// time through the API to a recognizer process's stream port, beside the engine's in-process figures on the same clips.

/** Every how many clips the WebSocket pass takes one (it runs in real time: about 7 minutes for a third). */
const ENDPOINT_EVERY = 3;
const LEAD_S = 1.0;
const TAIL_S = 1.5;
const CHUNK_S = 0.1;
const run = promisify(execFile);

interface ClipRow {
  clip: string;
  language: string;
  seconds: number;
  units: number;
  stream_errors: number;
  file_errors: number;
  partial_latencies: number[];
  final_latencies: number[];
  finals: number;
  busy_seconds: number;
  file_seconds: number;
}

/** bench/sets/streaming.py: every clip streamed, and recognised as a file. */
const streamEval = () =>
  recognizerPython<{ model: string; final_profile: string; threads: number; clips: ClipRow[] }>(['bench/sets/streaming.py'], {
    env: { LOG_LEVEL: 'warn' },
  });

const s = (n: number) => `${n.toFixed(2)} s`;
const rate = (errors: number, units: number) => `${((100 * errors) / Math.max(1, units)).toFixed(1)} %`;

export const streamingSection: BenchSection = {
  name: 'streaming',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const t0 = performance.now();
    const result = await streamEval();
    const clips = result.clips;
    const partials = clips.flatMap((c) => c.partial_latencies);
    const finals = clips.flatMap((c) => c.final_latencies);
    const file = clips.map((c) => c.file_seconds);
    const audio = clips.reduce((a, c) => a + c.seconds, 0);
    const busy = clips.reduce((a, c) => a + c.busy_seconds, 0);
    out(`## Real-time recognition (issue 54)`);
    out();
    out(
      `The stream engine (recognizer/streaming.py: Silero VAD cuts utterances at 0.5 s pauses; a partial every 0.5 s of new speech, none in a pause, greedy; the final with the \`${result.final_profile}\` profile; the encoder given the utterance and a margin, not 30 s) on ${clips.length} clips of the eval sets (${audio.toFixed(0)} s of speech, ${new Set(clips.map((c) => c.language)).size} languages, clips under 25 s), ${result.model}, ${result.threads} threads, one stream at a time. Each clip is streamed with 1 s of silence before and 1.5 s after, in 100 ms chunks, as a real-time client sends it, in process: the stream's clock moves with the audio sent and with every decode (the audio a client would have sent meanwhile), so the figures are those of a client that waits for nothing but the engine, without the network and the WebSocket path (measured below, through GET /v1/listen). Latency: when a segment was ready, minus the end of the last word in it. Baseline: the same clip recognised as a file by the job pipeline's engine (same profile), whose words exist only once the file is whole: its latency is the recognition time after the clip ends.`,
    );
    out();
    out(`| latency after the words are spoken | p50 | p90 | segments | goal |`);
    out(`|---|---|---|---|---|`);
    out(
      `| partial segments (stream) | ${s(pct(partials, 50))} | ${s(pct(partials, 90))} | ${partials.length} | p50 ≤ 0.8 s: ${pct(partials, 50) <= 0.8 ? 'met' : 'not met'} |`,
    );
    out(
      `| final segments (stream) | ${s(pct(finals, 50))} | ${s(pct(finals, 90))} | ${finals.length} | p50 ≤ 1.5 s: ${pct(finals, 50) <= 1.5 ? 'met' : 'not met'} |`,
    );
    out(`| the clip recognised as a file, after its end (baseline) | ${s(pct(file, 50))} | ${s(pct(file, 90))} | ${file.length} | |`);
    out();
    out(
      `The stream's decoding took ${busy.toFixed(0)} s for ${audio.toFixed(0)} s of speech (${(busy / audio).toFixed(2)} of real time, with the silence around the clips sent too): one stream keeps up on two cores, with room for about ${Math.max(1, Math.floor(audio / busy))} at once before they fall behind.`,
    );
    out();
    out(`Accuracy of the final segments against the file's text (word error rate; character error rate for ja, ko), pooled per language:`);
    out();
    out(`| language | clips | stream | file (baseline) |`);
    out(`|---|---|---|---|`);
    const languages = [...new Set(clips.map((c) => c.language))];
    const totals = { units: 0, stream: 0, file: 0 };
    for (const lang of languages) {
      const of = clips.filter((c) => c.language === lang);
      const units = of.reduce((a, c) => a + c.units, 0);
      const stream = of.reduce((a, c) => a + c.stream_errors, 0);
      const fileErrors = of.reduce((a, c) => a + c.file_errors, 0);
      totals.units += units;
      totals.stream += stream;
      totals.file += fileErrors;
      out(`| ${lang} | ${of.length} | ${rate(stream, units)} | ${rate(fileErrors, units)} |`);
    }
    out(`| all (pooled) | ${clips.length} | ${rate(totals.stream, totals.units)} | ${rate(totals.file, totals.units)} |`);
    out();
    await endpointPass(ctx, clips);
    out(`Ran in ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
    out();
  },
};

interface EndpointRow {
  clip: EvalClip;
  partials: number[];
  finals: number[];
  text: string;
}

/** GET /v1/listen end to end: a recognizer process with a stream port, the API's relay, a real-time client. */
async function endpointPass(ctx: BenchContext, engineRows: ClipRow[]): Promise<void> {
  const { out } = ctx;
  const byName = new Map(allEvalClips().map((c) => [`${c.set}/${c.file}`, c]));
  const chosen = engineRows.filter((_, i) => i % ENDPOINT_EVERY === 0);
  const port = await freePort();
  const dataDir = path.join(ROOT, '.data', `bench-listen-${process.pid}`);
  const recognizer = await startRecognizer({
    temporalAddress: process.env.TEMPORAL_ADDRESS!,
    dataDir,
    taskQueue: `bench-listen-${process.pid}`,
    env: { LOG_LEVEL: 'warn', RECOGNIZER_STREAM_PORT: String(port) },
  });
  const api = await ctx.startTestApi({ RECOGNIZER_STREAM_URL: `tcp://127.0.0.1:${port}` });
  const server = createHttpServer(api.app, api.deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/listen`;
  const ws = await ctx.createWorkspace(api.deps, { plan: 'scale' });
  const rows: EndpointRow[] = [];
  try {
    for (const row of chosen) {
      const clip = byName.get(row.clip);
      if (!clip) throw new Error(`no clip ${row.clip} in the eval sets`);
      rows.push(await streamClip(url, ctx.bearer(ws.apiKey), clip));
    }
  } finally {
    server.closeAllConnections();
    server.close();
    await api.close();
    await recognizer.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const partials = rows.flatMap((r) => r.partials);
  const finals = rows.flatMap((r) => r.finals);
  const engPartials = chosen.flatMap((c) => c.partial_latencies);
  const engFinals = chosen.flatMap((c) => c.final_latencies);
  const scores = rows.map((r) => score(r.clip.lang, r.clip.reference, r.text));
  const edits = scores.reduce((a, x) => a + x.edits, 0);
  const units = scores.reduce((a, x) => a + x.units, 0);
  const engineEdits = chosen.reduce((a, c) => a + c.stream_errors, 0);
  const engineUnits = chosen.reduce((a, c) => a + c.units, 0);
  const fileEdits = chosen.reduce((a, c) => a + c.file_errors, 0);
  out(`### The whole path: GET /v1/listen`);
  out();
  out(
    `${rows.length} of those clips (every ${ENDPOINT_EVERY}rd, ${new Set(rows.map((r) => r.clip.lang)).size} languages), each streamed by a WebSocket client on loopback in ${CHUNK_S * 1000} ms messages on the wall clock (real time), with ${LEAD_S} s of silence before and ${TAIL_S} s after, with its language given, through the API's relay (authentication, the credit hold, the limit) to a recognizer process's stream port (one stream slot, ${'`'}fast${'`'} finals). Each message is sent once its 100 ms are recorded, as from a microphone. Latency: when the segment reached the client, minus when its last word was spoken. Beside it, the engine in process on the same clips (above).`,
  );
  out();
  out(`| latency after the words are spoken | endpoint p50 | endpoint p90 | engine in process p50 (same clips) | goal |`);
  out(`|---|---|---|---|---|`);
  out(
    `| partial segments | ${s(pct(partials, 50))} | ${s(pct(partials, 90))} | ${s(pct(engPartials, 50))} | p50 ≤ 0.8 s: ${pct(partials, 50) <= 0.8 ? 'met' : 'not met'} |`,
  );
  out(
    `| final segments | ${s(pct(finals, 50))} | ${s(pct(finals, 90))} | ${s(pct(engFinals, 50))} | p50 ≤ 1.5 s: ${pct(finals, 50) <= 1.5 ? 'met' : 'not met'} |`,
  );
  out();
  out(
    `Finals' error rate over these clips: endpoint ${rate(edits, units)}, engine in process ${rate(engineEdits, engineUnits)}, the clips as files ${rate(fileEdits, engineUnits)}.`,
  );
  out();
}

/** One clip through the socket in real time; latencies in seconds. */
async function streamClip(url: string, headers: Record<string, string>, clip: EvalClip): Promise<EndpointRow> {
  const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', clip.audio, '-f', 's16le', '-ac', '1', '-ar', '16000', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const pcm = Buffer.concat([Buffer.alloc(LEAD_S * 32000), stdout as unknown as Buffer, Buffer.alloc(TAIL_S * 32000)]);
  // The clip's language is given, as to the engine's figures above (detection is tested in recognizer/tests).
  const ws = new WebSocket(`${url}?language=${clip.lang}`, { headers });
  const partials: number[] = [];
  const finals: number[] = [];
  const texts: string[] = [];
  let t0 = 0;
  // When stream second `at` was spoken: the client sends each chunk once it is recorded, as a microphone would.
  const spokenAt = (at: number) => t0 + at * 1000;
  const closed = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; end?: number; text?: string; error?: unknown };
      const now = performance.now();
      if (m.type === 'partial') partials.push(Math.max(0, now - spokenAt(m.end!)) / 1000);
      if (m.type === 'final') {
        finals.push(Math.max(0, now - spokenAt(m.end!)) / 1000);
        texts.push(m.text!);
      }
      if (m.type === 'error') reject(new Error(`listen error: ${JSON.stringify(m.error)}`));
    });
    ws.on('close', () => resolve());
    ws.on('unexpected-response', (_req, res) => reject(new Error(`listen refused: ${res.statusCode}`)));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const chunk = CHUNK_S * 32000;
  t0 = performance.now();
  for (let i = 0; i * chunk < pcm.length; i++) {
    const due = t0 + (i + 1) * CHUNK_S * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    ws.send(pcm.subarray(i * chunk, (i + 1) * chunk));
  }
  ws.send(JSON.stringify({ type: 'stop' }));
  await closed;
  return { clip, partials, finals, text: texts.join(' ') };
}
