// Speed of speech recognition: real-time factor (processing time / audio
// length; below 1 is faster than real time) of pocketsphinx, and what cutting
// a long recording into pieces recognised in parallel buys.
// Run: npx tsx bench/asr.bench.ts [--minutes 6]
//
// Rows, all on flite (voice slt) English speech:
//  - baseline: pocketsphinx_continuous run directly on ~60 s of speech;
//  - the same through PocketsphinxRecognizer (our parsing and clean-up);
//  - a long recording (default 6 min) in one piece;
//  - the same recording split at pauses (media/split.ts, pieces ≤ 90 s),
//    pieces cut to wav and recognised with as many in flight as there are
//    cores, then stitched: the path the Temporal activities take.
// It takes about 3 minutes on 2 idle cores. The load average is printed:
// the figures are only comparable between runs on an idle machine.

import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { toRecognizerWav } from '../integrations/media/convert';
import { splitAtSilences, stitch, type RecognizedPiece } from '../integrations/media/split';
import { runTool } from '../integrations/media/run-tool';
import { readWavInfo } from '../integrations/media/wav';
import { DEFAULT_POCKETSPHINX_MODEL_DIR, PocketsphinxRecognizer } from '../integrations/recognizers/pocketsphinx';
import { recognizeOrEmpty } from '../integrations/recognizers/types';
import { PARAGRAPHS, audioDir, concatWithPauses, makeSpeech, wordErrorRate } from '../test/support/speech';

const argIdx = process.argv.indexOf('--minutes');
const LONG_MINUTES = argIdx > 0 ? Number(process.argv[argIdx + 1]) : 6;
const CORES = availableParallelism();

interface Row {
  run: string;
  audioSec: number;
  wallSec: number;
  wer: number | null;
  notes: string;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; sec: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, sec: (performance.now() - t0) / 1000 };
}

/** Runs `fn` over `items` with at most `limit` in flight (the worker's activity slots). */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

async function main() {
  const load0 = loadavg()[0];
  const { dir, cleanup } = await audioDir('asr-bench-');
  try {
    // ~60 s of speech: five paragraphs with one-second pauses.
    const base = PARAGRAPHS.slice(0, 5);
    const parts = await Promise.all(base.map((p, i) => makeSpeech(p, dir, `p${i}`)));
    const minuteWav = await toRecognizerWav(
      await concatWithPauses(
        parts.map((p) => p.path),
        join(dir, 'minute.raw.wav'),
        1,
      ),
      join(dir, 'minute.wav'),
    );
    const minuteSec = (await readWavInfo(minuteWav)).durationSec;
    const minuteText = base.join(' ');

    // The long recording: the minute repeated to LONG_MINUTES minutes.
    const repeats = Math.max(1, Math.round((LONG_MINUTES * 60) / minuteSec));
    const longWav = await toRecognizerWav(
      await concatWithPauses(Array(repeats).fill(minuteWav), join(dir, 'long.raw.wav'), 1),
      join(dir, 'long.wav'),
    );
    const longSec = (await readWavInfo(longWav)).durationSec;
    const longText = Array(repeats).fill(minuteText).join(' ');

    const rows: Row[] = [];
    const recognizer = new PocketsphinxRecognizer();
    const m = DEFAULT_POCKETSPHINX_MODEL_DIR;

    const direct = await timed(() =>
      runTool('pocketsphinx_continuous', [
        '-infile',
        minuteWav,
        '-hmm',
        `${m}/en-us`,
        '-lm',
        `${m}/en-us.lm.bin`,
        '-dict',
        `${m}/cmudict-en-us.dict`,
        '-time',
        'yes',
      ]),
    );
    const directText = direct.value.stdout
      .split('\n')
      .filter((l) => l.trim() !== '' && !/ \d+\.\d+ \d+\.\d+ /.test(l))
      .join(' ');
    rows.push({
      run: 'pocketsphinx_continuous, direct (baseline)',
      audioSec: minuteSec,
      wallSec: direct.sec,
      wer: wordErrorRate(minuteText, directText),
      notes: 'one process, one core, includes ~0.7 s model load',
    });

    const wrapped = await timed(() => recognizer.recognize(minuteWav));
    rows.push({
      run: 'PocketsphinxRecognizer.recognize',
      audioSec: minuteSec,
      wallSec: wrapped.sec,
      wer: wordErrorRate(minuteText, wrapped.value.text),
      notes: 'baseline + parsing, segments',
    });

    const whole = await timed(() => recognizer.recognize(longWav));
    rows.push({
      run: `long recording, 1 piece`,
      audioSec: longSec,
      wallSec: whole.sec,
      wer: wordErrorRate(longText, whole.value.text),
      notes: 'one core busy',
    });

    const split = await timed(async () => {
      const pieces = await splitAtSilences(longWav);
      const recognized = await pool(pieces, CORES, async (p, i): Promise<RecognizedPiece> => {
        const wav = await toRecognizerWav(longWav, join(dir, `piece${i}.wav`), { startMs: p.startMs, durationMs: p.endMs - p.startMs });
        return { startMs: p.startMs, result: await recognizeOrEmpty(recognizer, wav) };
      });
      return { pieces, result: stitch(recognized) };
    });
    const n = split.value.pieces.length;
    rows.push({
      run: `long recording, ${n} pieces, ${CORES} in parallel`,
      audioSec: longSec,
      wallSec: split.sec,
      wer: wordErrorRate(longText, split.value.result.text),
      notes: `split at pauses (≤ 90 s), cut, recognise, stitch; ${(whole.sec / split.sec).toFixed(2)}× faster than 1 piece`,
    });

    console.log(
      `\n## ASR speed (pocketsphinx en-us, flite slt speech, ${CORES} cores, load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)})\n`,
    );
    console.log('| Run | Audio (s) | Wall (s) | Real-time factor | WER | Notes |');
    console.log('|---|---:|---:|---:|---:|---|');
    for (const r of rows) {
      console.log(
        `| ${r.run} | ${r.audioSec.toFixed(1)} | ${r.wallSec.toFixed(2)} | ${(r.wallSec / r.audioSec).toFixed(3)} | ${r.wer === null ? '' : (r.wer * 100).toFixed(1) + ' %'} | ${r.notes} |`,
      );
    }
    console.log('');
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
