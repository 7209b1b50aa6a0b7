import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from './seeded-random';

// Real human speech in the eight AI-transcription languages with reference
// transcripts: ../shared/asr-eval (read in place, never copied into the repo).
// Its README says how to score: WER for en, es, fr, de, pt, it; CER (spaces
// removed) for ja and ko; both sides normalised the same way first (Unicode
// NFKC, lower case, punctuation and symbols to spaces, whitespace collapsed).

export const ASR_EVAL_DIR = path.resolve(process.env.ASR_EVAL_DIR ?? path.join(__dirname, '../../../shared/asr-eval'));

/**
 * The whole evaluation set of `npm run eval:asr` (issue 50): ../shared/asr-eval, ../shared/asr-eval-large (both read
 * in place) and bench/sets/speech (committed with its manifest). Each has a MANIFEST.tsv with the same columns.
 */
export const EVAL_SET_DIRS = [
  ASR_EVAL_DIR,
  path.resolve(path.dirname(ASR_EVAL_DIR), 'asr-eval-large'),
  path.resolve(__dirname, '../../bench/sets/speech'),
];

export interface EvalClip {
  /** The folder of its set (`asr-eval`, `asr-eval-large`, `speech`). */
  set: string;
  lang: string;
  /** Path relative to ASR_EVAL_DIR, e.g. `en/jfk_inaugural.flac`. */
  file: string;
  /** Absolute path of the audio. */
  audio: string;
  reference: string;
  durationSec: number;
  licence: string;
}

/** Languages scored by characters (written without spaces between words). */
export const CER_LANGUAGES = new Set(['ja', 'ko']);

export function metricFor(lang: string): 'wer' | 'cer' {
  return CER_LANGUAGES.has(lang) ? 'cer' : 'wer';
}

/** Every clip of MANIFEST.tsv, in its order, with its reference text. */
export function evalClips(dir = ASR_EVAL_DIR): EvalClip[] {
  const lines = fs.readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const header = lines[0]!.split('\t');
  const col = (name: string) => header.indexOf(name);
  return lines.slice(1).map((line) => {
    const f = line.split('\t');
    const file = f[col('file')]!;
    const audio = path.join(dir, file);
    return {
      set: path.basename(dir),
      lang: f[col('lang')]!,
      file,
      audio,
      reference: fs.readFileSync(audio.replace(/\.[^./]+$/, '.txt'), 'utf8').trim(),
      durationSec: Number(f[col('duration_s')]),
      licence: f[col('licence')]!,
    };
  });
}

/** Every clip of every set of EVAL_SET_DIRS, set by set in manifest order. */
export function allEvalClips(): EvalClip[] {
  return EVAL_SET_DIRS.flatMap((dir) => evalClips(dir));
}

/** The README's normalisation: NFKC, lower case, punctuation and symbols to spaces, whitespace collapsed. */
export function normaliseForScoring(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Scoring units: words, or characters without spaces for CER languages. */
export function unitsFor(lang: string, text: string): string[] {
  const norm = normaliseForScoring(text);
  if (CER_LANGUAGES.has(lang)) return [...norm.replace(/ /g, '')];
  return norm === '' ? [] : norm.split(' ');
}

/** Levenshtein distance (substitutions + deletions + insertions) between two unit sequences. */
export function editDistance(ref: readonly string[], hyp: readonly string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[hyp.length]!;
}

export interface Score {
  /** Edit distance in units. */
  edits: number;
  /** Reference length in units. */
  units: number;
  /** edits / units. */
  rate: number;
}

/** WER (or CER for ja/ko) of one hypothesis against its reference, after the README's normalisation. */
export function score(lang: string, reference: string, hypothesis: string): Score {
  const ref = unitsFor(lang, reference);
  const hyp = unitsFor(lang, hypothesis);
  const edits = editDistance(ref, hyp);
  return { edits, units: ref.length, rate: ref.length === 0 ? (hyp.length === 0 ? 0 : 1) : edits / ref.length };
}

/** Clips pooled: total edits over total reference units. */
export function pooled(scores: readonly Score[]): Score {
  const edits = scores.reduce((n, s) => n + s.edits, 0);
  const units = scores.reduce((n, s) => n + s.units, 0);
  return { edits, units, rate: units === 0 ? 0 : edits / units };
}

/**
 * The 95 % interval of a pooled rate by the bootstrap over clips: the clips drawn with replacement `rounds` times
 * (seeded), each draw's pooled rate, and the 2.5th and 97.5th percentiles of those.
 */
export function bootstrapInterval(scores: readonly Score[], rounds = 2000, seed = 20261129): { low: number; high: number } {
  if (scores.length === 0) return { low: 0, high: 0 };
  const next = seededRandom(seed);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let edits = 0;
    let units = 0;
    for (let i = 0; i < scores.length; i++) {
      const s = scores[Math.floor(next() * scores.length)]!;
      edits += s.edits;
      units += s.units;
    }
    rates.push(units === 0 ? 0 : edits / units);
  }
  rates.sort((a, b) => a - b);
  const at = (q: number) => rates[Math.min(rates.length - 1, Math.floor(q * rates.length))]!;
  return { low: at(0.025), high: at(0.975) };
}
