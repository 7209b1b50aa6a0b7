// Speed of AI transcription with the embedded recognizer (Whisper base through
// faster-whisper in the Python recognition worker), every figure beside a
// baseline measured in the same run, on a private stack (bench/asr-stack.ts).
// Run: npx tsx bench/asr.bench.ts [--minutes 20]   (npm run bench runs it too)
//
//  1. Real-time factor of a job through the whole pipeline (upload, POST
//     /v1/jobs → succeeded: workflow, ffprobe, conversion, storage, the
//     recognition activity on its own task queue, stitching) against
//     faster-whisper called directly on the same 16 kHz audio with the same
//     settings (bench/whisper-direct.py; model loaded before timing), runs
//     alternating. Goal: overhead ≤ 10 %. Median of 3.
//  2. A long recording (default 20 min) as one piece against pieces of at
//     most 90 s, on one recognition worker, then on two worker processes of
//     one thread each (the way recognition scales: more workers on the queue).
//  3. Resident memory of a recognition worker process (idle after start, and
//     its peak).
//  4. Time from starting a recognition worker to its first recognised piece
//     (a job waiting at the recognition queue when the worker starts).
// The speech: flite's slt voice reading six paragraphs with 1 s pauses (about
// 65 s), repeated for the long recording. Not the real voices of
// ../shared/asr-eval (npm run eval:asr measures quality on those): glued
// together, recordings of different speakers and rooms make Whisper base fall
// back to sampling at higher temperatures now and then, which makes the
// decoding work, and so the timings, differ from run to run. The load average
// is printed: figures are comparable only between runs on an idle machine.
// About 15 minutes on 2 cores.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { probeMedia } from '../integrations/media/probe';
import { toRecognizerWav } from '../integrations/media/convert';
import { ROOT } from '../stack/proc';
import { readyFields, RECOGNIZER_PYTHON, residentMemoryMiB, type RecognizerHandle } from '../stack/recognizer';
import { evalClips, score } from '../test/support/asr-eval';
import { audioDir, concatWithPauses, makeSpeech, PARAGRAPHS } from '../test/support/speech';
import { startAsrStack, type AsrStack, type JobRun } from './asr-stack';
import { SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { fromReadableSpan, timeByKind, TIME_KINDS, type SpanRecord } from '../integrations/telemetry/span-report';
import { installTracing } from '../integrations/telemetry/tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../test/support/otlp-receiver';
import { writeBlock } from './results-file';

const argIdx = process.argv.indexOf('--minutes');
const LONG_MINUTES = argIdx > 0 ? Number(process.argv[argIdx + 1]) : 20;
const CORES = availableParallelism();
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Peak resident memory (VmHWM) of a process, MiB. */
function peakMemoryMiB(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Tracing for one chosen job: installed before the stack (the API's client and the worker take Temporal's
 * interceptors at construction), but recording only while `on` (the timed runs make unsampled, non-recording
 * spans: microseconds against seconds of recognition). The recognizer follows the sampled flag it receives.
 */
function switchedSampler(state: { on: boolean }): Sampler {
  const on = new AlwaysOnSampler();
  const off = new AlwaysOffSampler();
  return new ParentBasedSampler({
    root: {
      shouldSample: () => (state.on ? on : off).shouldSample(),
      toString: () => 'switched',
    },
  });
}

/** The recognizer's spans, as its OTLP exporter sent them, in the service's span shape. */
function recognizerSpans(collector: OtlpReceiver, traceId: string): SpanRecord[] {
  return collector.spans
    .filter((s) => s.traceId === traceId)
    .map((s) => ({
      traceId: s.traceId,
      spanId: s.spanId,
      parentId: s.parentSpanId || undefined,
      name: s.name,
      service: s.service,
      kind: SpanKind.INTERNAL,
      start: Number(s.startNanos) / 1e6,
      end: Number(s.endNanos) / 1e6,
      attributes: s.attributes,
    }));
}

function ensureSucceeded(run: JobRun, what: string): NonNullable<JobRun['transcript']> {
  if (run.status !== 'succeeded' || !run.transcript) throw new Error(`${what}: job ${run.status} ${JSON.stringify(run.error)}`);
  return run.transcript;
}

async function main() {
  const load0 = loadavg()[0];
  const { dir, cleanup } = await audioDir('asr-bench-');
  let stack: AsrStack | undefined;
  let collector: OtlpReceiver | undefined;
  const md: string[] = [];
  try {
    // ~65 s of flite speech (one piece: under 90 s), and the same repeated to LONG_MINUTES.
    const parts = await Promise.all(PARAGRAPHS.map((p, i) => makeSpeech(p, dir, `p${i}`)));
    const speech = await toRecognizerWav(
      await concatWithPauses(
        parts.map((p) => p.path),
        path.join(dir, 'speech.raw.wav'),
        1,
      ),
      path.join(dir, 'speech.wav'),
    );
    const speechText = PARAGRAPHS.join(' ');
    const speechSec = (await probeMedia(speech)).durationMs / 1000;
    const repeats = Math.max(1, Math.round((LONG_MINUTES * 60) / (speechSec + 1)));
    const long = await concatWithPauses(Array(repeats).fill(speech), path.join(dir, 'long.wav'), 1);
    const longText = Array(repeats).fill(speechText).join(' ');
    const longSec = (await probeMedia(long)).durationMs / 1000;
    // The cold-start job: a real voice (the JFK clip of ../shared/asr-eval).
    const jfkClip = evalClips().find((c) => c.file.includes('jfk'))!;

    const exporter = new InMemorySpanExporter();
    const recording = { on: false };
    const tracing = installTracing('transcript-bench', {
      processor: new SimpleSpanProcessor(exporter),
      sampler: switchedSampler(recording),
    })!;
    collector = await startOtlpReceiver();
    stack = await startAsrStack({
      name: 'asrbench',
      pgPort: 54369,
      temporalPort: 7303,
      recognizerEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '200' },
    });
    const first = stack.recognizer;
    const fields = readyFields(first.readyLine);
    const idleRss = residentMemoryMiB(first.pid);

    // 1. Pipeline against faster-whisper called directly, one run of each in turn (the machine's other
    // load, which drifts on these shared cores, falls on both alike).
    const directRun = () =>
      JSON.parse(
        execFileSync(RECOGNIZER_PYTHON, [path.join(__dirname, 'whisper-direct.py'), speech, 'en', '2'], {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
        }),
      ) as { load_s: number; runs_s: number[]; text: string; threads: number };
    const directs: ReturnType<typeof directRun>[] = [];
    const pipeline: JobRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      directs.push(directRun());
      pipeline.push(await stack.transcribe(speech, { language: 'en' }));
    }
    const direct = { ...directs[0]!, load_s: median(directs.map((d) => d.load_s)) };
    // The second run of each process: warm, as the recognition worker is (it warms up at start).
    const directMs = median(directs.map((d) => d.runs_s[1]!)) * 1000;
    const pipelineMs = median(pipeline.map((r) => r.ms));
    const pipelineText = ensureSucceeded(pipeline[0]!, 'pipeline').text;
    const overhead = (pipelineMs - directMs) / directMs;

    // Where the pipeline's time over faster-whisper goes: one more job, traced end to end.
    recording.on = true;
    const tracedRun = await stack.transcribe(speech, { language: 'en' });
    recording.on = false;
    ensureSucceeded(tracedRun, 'traced pipeline');
    await new Promise((r) => setTimeout(r, 1500)); // the recognizer's last batch of spans
    const tsSpans = exporter.getFinishedSpans().map(fromReadableSpan);
    const post = tsSpans.find((s) => s.name === 'POST /v1/jobs')!;
    const traceSpans = [...tsSpans.filter((s) => s.traceId === post.traceId), ...recognizerSpans(collector, post.traceId)];
    const byKind = timeByKind(traceSpans, post.start, post.start + tracedRun.ms);
    const stageMs = (name: string) => traceSpans.filter((s) => s.name === name).reduce((a, s) => a + s.end - s.start, 0);
    const activityMs = (name: string) => stageMs(`RunActivity:${name}`);
    await tracing.shutdown();

    // 4. Start to first recognised piece: a job waits at the recognition queue, then a new worker starts.
    await stack.stopRecognizer();
    const waiting = await stack.submit(jfkClip.audio, { language: 'en' });
    for (let i = 0; i < 600 && (await stack.jobStage(waiting.id)).stage !== 'wait_asr'; i++) await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    const cold: RecognizerHandle = await stack.startRecognizer();
    const coldRun = await stack.waitJob(waiting.id, waiting.postedAt);
    ensureSucceeded(coldRun, 'cold start');
    const firstPieceMs = performance.now() - t0;

    // 2. The long recording: one piece, then pieces on one worker, then on two one-thread workers.
    await stack.setMaxPieceMs(3 * 3600_000);
    const onePiece = await stack.transcribe(long, { language: 'en' });
    const onePieceRss = peakMemoryMiB(cold.pid);
    await stack.setMaxPieceMs(undefined);
    const pieces = await stack.transcribe(long, { language: 'en' });
    const piecesRss = peakMemoryMiB(cold.pid);
    await stack.restartRecognizer({ WHISPER_THREADS: '1' });
    const second = await stack.addRecognizer({ WHISPER_THREADS: '1' });
    const twoWorkers = await stack.transcribe(long, { language: 'en' });
    const twoRss = [peakMemoryMiB(stack.recognizer.pid), peakMemoryMiB(second.pid)];
    const nPieces = Math.ceil(longSec / 90); // at least; the cut points are at pauses
    const longRow = (name: string, run: JobRun, base: JobRun | null, notes: string) => {
      const t = ensureSucceeded(run, name);
      const wer = score('en', longText, t.text).rate;
      return `| ${name} | ${sec(run.ms)} | ${(run.ms / 1000 / longSec).toFixed(3)} | ${base ? `${(base.ms / run.ms).toFixed(2)}× faster` : '1.00×'} | ${pct(wer)} | ${notes} |`;
    };
    const directWer = score('en', speechText, direct.text).rate;
    const pipelineWer = score('en', speechText, pipelineText).rate;

    md.push(
      `## AI transcription speed (Whisper base, faster-whisper ${fields.compute_type} on ${fields.device}, beam ${fields.beam_size}; ${CORES} cores, load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}; ${new Date().toISOString().slice(0, 10)})`,
    );
    md.push('');
    md.push(
      `Command: \`npx tsx bench/asr.bench.ts --minutes ${LONG_MINUTES}\`. Speech: flite's slt voice reading six paragraphs with 1 s pauses (quality on real voices: the \`asr-eval\` block). Each figure stands beside its baseline from the same run.`,
    );
    md.push('');
    md.push(`### Pipeline against faster-whisper called directly (${speechSec.toFixed(1)} s of speech, one piece, median of ${RUNS})`);
    md.push('');
    md.push('| | median time | real-time factor | WER |');
    md.push('|---|---:|---:|---:|');
    md.push(
      `| faster-whisper called directly on the 16 kHz wav, same settings (${direct.threads} threads, VAD, word timestamps; model loaded and warmed by one run before timing, as the recognition worker is; runs alternate with the pipeline's) (baseline) | ${sec(directMs)} | ${(directMs / 1000 / speechSec).toFixed(3)} | ${pct(directWer)} |`,
    );
    md.push(
      `| job through the pipeline (POST /v1/jobs → succeeded: workflow, ffprobe, conversion, storage, recognition activity on its own queue, stitch) | ${sec(pipelineMs)} | ${(pipelineMs / 1000 / speechSec).toFixed(3)} (overhead ${pct(overhead)}; goal ≤ 5 %) | ${pct(pipelineWer)} |`,
    );
    md.push('');
    md.push(
      `Where the pipeline's time goes, from one more job traced end to end (${sec(tracedRun.ms)}; the recognizer's spans over OTLP): by kind of work, and the steps that differ from the direct call.`,
    );
    md.push('');
    md.push('| kind | ms |');
    md.push('|---|---:|');
    for (const k of TIME_KINDS) if (byKind[k] >= 0.05) md.push(`| ${k} | ${byKind[k].toFixed(1)} |`);
    md.push('');
    md.push('| step | ms | note |');
    md.push('|---|---:|---|');
    md.push(
      `| faster-whisper called directly, median (baseline) | ${directMs.toFixed(0)} | decode + VAD + word timestamps, in one process |`,
    );
    md.push(`| recognizer: recognition stage | ${stageMs('recognition').toFixed(0)} | the same decoding, inside the activity |`);
    md.push(
      `| recognizer: load piece, decode audio, voice activity detection, store result | ${['load piece', 'decode audio', 'voice activity detection', 'store result'].map((n) => stageMs(n).toFixed(0)).join(' + ')} | the service's own VAD and level evening run before decoding |`,
    );
    md.push(
      `| worker: acquireAudio, cutAudio, storeRecognition | ${['acquireAudio', 'cutAudio', 'storeRecognition'].map((n) => activityMs(n).toFixed(0)).join(' + ')} | ffprobe, conversion to 16 kHz, storage, stitching |`,
    );
    md.push(`| task-queue waits (all activities) | ${byKind['task-queue wait'].toFixed(0)} | schedule to pickup, on two task queues |`);
    md.push('');
    md.push(`### A ${(longSec / 60).toFixed(1)}-minute recording: pieces against one piece`);
    md.push('');
    md.push('| | job time | real-time factor | vs one piece | WER | notes |');
    md.push('|---|---:|---:|---:|---:|---|');
    md.push(longRow('one piece, one recognition worker (2 threads) (baseline)', onePiece, null, 'maxPieceMs above the length'));
    md.push(
      longRow(
        `pieces ≤ 90 s (≥ ${nPieces}), one recognition worker (2 threads)`,
        pieces,
        onePiece,
        'pieces recognised one after the other by the one worker',
      ),
    );
    md.push(
      longRow(
        `pieces ≤ 90 s, two recognition worker processes (1 thread each)`,
        twoWorkers,
        onePiece,
        'pieces spread over both workers by the task queue',
      ),
    );
    md.push('');
    md.push('### Recognition worker process');
    md.push('');
    md.push('| | figure |');
    md.push('|---|---:|');
    md.push(`| resident memory after start (model loaded, warmed up) | ${idleRss.toFixed(0)} MiB |`);
    md.push(
      `| peak resident memory, 2 threads, after the one-piece and the pieces runs | ${Math.max(onePieceRss, piecesRss).toFixed(0)} MiB |`,
    );
    md.push(
      `| peak resident memory of each 1-thread worker after the two-worker run | ${twoRss.map((x) => x.toFixed(0)).join(' / ')} MiB |`,
    );
    md.push(
      `| start to ready (spawn, model checksum ${fields.verify_s} s, load ${fields.load_s} s, warm-up ${fields.warm_s} s, connect) | ${sec(first.startMs)} |`,
    );
    md.push(
      `| start to first recognised piece (a job already waiting at the queue; the ${jfkClip.durationSec} s JFK clip) | ${sec(firstPieceMs)} |`,
    );
    md.push(`| faster-whisper model load in the direct baseline (for comparison) | ${direct.load_s.toFixed(2)} s |`);

    writeBlock('asr-bench', md.join('\n'));
    console.log(md.join('\n'));
  } finally {
    await stack?.close();
    await collector?.close();
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
