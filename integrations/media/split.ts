import { ServiceError } from '../../core/errors';
import { cleanWords, joinWords, roundSec, sumLanguageSeconds } from '../recognizers/result';
import type { RecognitionResult, Segment } from '../recognizers/types';
import { probeMedia } from './probe';
import { lastLine, runTool } from './run-tool';

// Long recordings are recognised as pieces in parallel (one Temporal
// activity per piece), then put back together. Cuts are placed in pauses so
// no word is split between two pieces: a word cut in half is lost or
// garbled by both recognizers.

export interface Piece {
  startMs: number;
  endMs: number;
}

export interface Silence {
  startMs: number;
  endMs: number;
}

export interface SplitOptions {
  /** No piece is longer than this. Default 90 s. */
  maxPieceMs?: number;
  /** A cut is looked for in the last (maxPieceMs − minPieceMs) of each piece. Default maxPieceMs / 2. */
  minPieceMs?: number;
  /** Quieter than this counts as silence. Default −35 dB (speech sits around −20 dB, room noise below −45 dB). */
  noiseDb?: number;
  /** Shortest pause worth cutting in. Default 300 ms (pauses between words are shorter; between sentences longer). */
  minSilenceMs?: number;
}

export const DEFAULT_MAX_PIECE_MS = 90_000;

/** Pauses in `audioPath` by ffmpeg's silencedetect filter (energy below `noiseDb` for at least `minSilenceMs`). */
export async function findSilences(
  audioPath: string,
  opts: Pick<SplitOptions, 'noiseDb' | 'minSilenceMs'> & { durationMs?: number; signal?: AbortSignal } = {},
): Promise<Silence[]> {
  const filter = `silencedetect=noise=${opts.noiseDb ?? -35}dB:d=${(opts.minSilenceMs ?? 300) / 1000}`;
  const run = await runTool('ffmpeg', ['-nostdin', '-hide_banner', '-i', audioPath, '-map', '0:a:0', '-af', filter, '-f', 'null', '-'], {
    signal: opts.signal,
    timeoutMs: 10 * 60_000,
    maxStderr: 8 * 1024 * 1024, // one line per pause: two hours of speech have a few thousand
  });
  if (run.code !== 0) throw new ServiceError('INVALID_MEDIA', `audio could not be decoded: ${lastLine(run.stderr)}`);
  return parseSilences(run.stderr, opts.durationMs);
}

export function parseSilences(stderr: string, durationMs?: number): Silence[] {
  const silences: Silence[] = [];
  let open: number | null = null;
  for (const m of stderr.matchAll(/silence_(start|end): (-?\d+(?:\.\d+)?)/g)) {
    const ms = Math.max(0, Math.round(Number(m[2]) * 1000));
    if (m[1] === 'start') open = ms;
    else if (open !== null) {
      silences.push({ startMs: open, endMs: ms });
      open = null;
    }
  }
  // A recording that ends in silence reports a start without an end.
  if (open !== null && durationMs !== undefined && durationMs > open) silences.push({ startMs: open, endMs: durationMs });
  return silences;
}

/**
 * Pieces covering 0..durationMs without gaps, each at most maxPieceMs. Each
 * cut goes in the middle of the longest pause found in the last part of the
 * piece (a long pause is a sentence end, a short one may be inside a
 * phrase); with no pause there, the piece is cut hard at maxPieceMs.
 */
export function planPieces(
  durationMs: number,
  silences: readonly Silence[],
  opts: Pick<SplitOptions, 'maxPieceMs' | 'minPieceMs'> = {},
): Piece[] {
  const maxPiece = opts.maxPieceMs ?? DEFAULT_MAX_PIECE_MS;
  const minPiece = Math.min(opts.minPieceMs ?? maxPiece / 2, maxPiece);
  if (!(maxPiece > 0)) throw new RangeError('maxPieceMs must be positive');
  const pieces: Piece[] = [];
  let start = 0;
  while (durationMs - start > maxPiece) {
    const cut = nextCut(start, silences, maxPiece, minPiece);
    pieces.push({ startMs: start, endMs: cut });
    start = cut;
  }
  pieces.push({ startMs: start, endMs: durationMs });
  return pieces;
}

/**
 * Where the piece that starts at `start` ends, when the media goes on past `start + maxPiece`: the middle of the
 * longest pause within [start + minPiece, start + maxPiece], or that upper end. It looks at nothing of the media
 * after the upper end, so the first cut can be found from the media's first maxPiece alone (cutLeadingPiece).
 */
export function nextCut(start: number, silences: readonly Silence[], maxPiece: number, minPiece: number): number {
  const lo = start + minPiece;
  const hi = start + maxPiece;
  let cut = hi;
  let best = 0;
  for (const s of silences) {
    const a = Math.max(s.startMs, lo);
    const b = Math.min(s.endMs, hi);
    if (b - a >= best && b > a) {
      best = b - a;
      cut = Math.round((a + b) / 2);
    }
  }
  return cut <= start ? hi : cut; // cut <= start cannot happen with minPiece > 0; guards against a zero-length piece
}

/** Plans the pieces of `audioPath` (any format ffmpeg reads); one piece when it is short enough. */
export async function splitAtSilences(
  audioPath: string,
  opts: SplitOptions & { durationMs?: number; signal?: AbortSignal } = {},
): Promise<Piece[]> {
  const durationMs = opts.durationMs ?? (await probeMedia(audioPath, { signal: opts.signal })).durationMs;
  if (durationMs <= (opts.maxPieceMs ?? DEFAULT_MAX_PIECE_MS)) return [{ startMs: 0, endMs: durationMs }];
  const silences = await findSilences(audioPath, { ...opts, durationMs });
  return planPieces(durationMs, silences, opts);
}

export interface RecognizedPiece {
  /** Where the piece starts in the whole recording. */
  startMs: number;
  /** Times relative to the piece (what a recognizer returns for the piece's wav). */
  result: RecognitionResult;
}

/**
 * One result for the whole recording: every time moved by its piece's start,
 * pieces in order, words and segments kept monotonic across the joins.
 * NO_SPEECH when no piece heard anything.
 */
export function stitch(pieces: readonly RecognizedPiece[]): RecognitionResult {
  const ordered = [...pieces].sort((a, b) => a.startMs - b.startMs);
  const words = ordered.flatMap((p) =>
    p.result.words.map((w) => ({ ...w, start: w.start + p.startMs / 1000, end: w.end + p.startMs / 1000 })),
  );
  const segments: Segment[] = [];
  let floor = 0;
  for (const p of ordered) {
    for (const s of p.result.segments) {
      const start = roundSec(Math.max(s.start + p.startMs / 1000, floor));
      const end = roundSec(Math.max(s.end + p.startMs / 1000, start));
      segments.push({ ...s, start, end });
      floor = end;
    }
  }
  const text = joinWords(ordered.map((p) => p.result.text.trim()).filter((t) => t !== ''));
  if (text === '' && words.length === 0) throw new ServiceError('NO_SPEECH', `no speech in any of ${ordered.length} piece(s)`);
  const languages = sumLanguageSeconds(ordered.map((p) => p.result.languages ?? []));
  // The language spoken longest, where the recognizer measured it; else the one most words were in.
  const language = languages[0]?.language ?? majorityLanguage(ordered);
  return { language, text, segments, words: cleanWords(words), ...(languages.length > 0 ? { languages } : {}) };
}

/** The language most of the speech was in (pieces weighted by their word count). */
function majorityLanguage(pieces: readonly RecognizedPiece[]): string | null {
  const weight = new Map<string, number>();
  for (const p of pieces) {
    if (p.result.language) weight.set(p.result.language, (weight.get(p.result.language) ?? 0) + p.result.words.length + 1);
  }
  let best: string | null = null;
  for (const [lang, w] of weight) if (best === null || w > weight.get(best)!) best = lang;
  return best;
}
