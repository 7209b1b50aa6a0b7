import { ServiceError } from '../../core/errors';
import type { RecognitionResult, Segment, Word } from './types';

// Shared finishing of a recognizer's raw output, so every engine's result
// obeys the same rules: confidences in 0..1, word times monotonic and inside
// the audio, segments of caption size, NO_SPEECH when nothing was heard.

/** Rounds seconds to milliseconds: recognizers report 10 ms frames, more digits are noise. */
export const roundSec = (s: number) => Math.round(s * 1000) / 1000;

export function clampConfidence(c: number): number {
  if (!Number.isFinite(c)) return 0;
  return Math.min(1, Math.max(0, c));
}

/**
 * Drops empty words, clamps confidences and makes times monotonic: a word
 * never starts before the previous one ended (engines overlap by a frame at
 * times) and never ends before it starts; with `durationSec`, nothing ends
 * after the audio does.
 */
export function cleanWords(words: readonly Word[], durationSec?: number): Word[] {
  const out: Word[] = [];
  let floor = 0;
  const cap = durationSec ?? Infinity;
  for (const w of words) {
    const text = w.text.trim();
    if (text === '' || !Number.isFinite(w.start) || !Number.isFinite(w.end)) continue;
    const start = roundSec(Math.min(Math.max(w.start, floor), cap));
    const end = roundSec(Math.min(Math.max(w.end, start), cap));
    out.push({ start, end, text, confidence: clampConfidence(w.confidence) });
    floor = end;
  }
  return out;
}

export interface SegmentRules {
  /** A silence at least this long starts a new segment. Default 0.6 s. */
  pauseSec?: number;
  /** At most this many words per segment (about two caption lines). Default 12. */
  maxWords?: number;
  /** At most this long per segment. Default 7 s. */
  maxSec?: number;
}

/** Caption-sized segments from timed words: cut at pauses, else at the word or length limit. */
export function segmentsFromWords(words: readonly Word[], rules: SegmentRules = {}): Segment[] {
  const pause = rules.pauseSec ?? 0.6;
  const maxWords = rules.maxWords ?? 12;
  const maxSec = rules.maxSec ?? 7;
  const segments: Segment[] = [];
  let current: Word[] = [];
  const flush = () => {
    if (current.length === 0) return;
    segments.push({ start: current[0].start, end: current[current.length - 1].end, text: joinWords(current.map((w) => w.text)) });
    current = [];
  };
  for (const w of words) {
    const prev = current[current.length - 1];
    if (prev && (w.start - prev.end >= pause || current.length >= maxWords || w.end - current[0].start > maxSec)) flush();
    current.push(w);
  }
  flush();
  return segments;
}

/** Words joined by spaces, except around CJK characters, which are written without them. */
export function joinWords(texts: readonly string[]): string {
  let out = '';
  for (const t of texts) {
    if (out !== '' && !(isCjk(out[out.length - 1]) && isCjk(t[0]))) out += ' ';
    out += t;
  }
  return out;
}

// Kana, CJK ideographs, CJK punctuation (、。「」) and full-width forms (！？): written without spaces between them.
export function isCjk(ch: string | undefined): boolean {
  return ch !== undefined && /[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff01-\uff9f]/.test(ch);
}

/** A result from timed words (segments built here); NO_SPEECH when there are none. */
export function resultFromWords(
  language: string | null,
  words: readonly Word[],
  opts: { durationSec?: number; engine: string },
): RecognitionResult {
  const clean = cleanWords(words, opts.durationSec);
  if (clean.length === 0) throw new ServiceError('NO_SPEECH', `${opts.engine} recognised no words`);
  return { language, text: joinWords(clean.map((w) => w.text)), segments: segmentsFromWords(clean), words: clean };
}
