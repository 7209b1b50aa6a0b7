import { ServiceError } from '../../core/errors';
import type { LanguageSeconds, RecognitionResult, Segment, SpeakerSummary, Word } from './types';

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
    out.push({ start, end, text, confidence: clampConfidence(w.confidence), ...labels(w) });
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

/** The speaker and language a word carries, when it carries them (copied to what is made from it). */
function labels(w: Segment): Pick<Segment, 'speaker' | 'language'> {
  return { ...(w.speaker != null ? { speaker: w.speaker } : {}), ...(w.language != null ? { language: w.language } : {}) };
}

/**
 * Caption-sized segments from timed words: cut at pauses, else at the word or length limit, and always
 * where the speaker or the language changes (a segment never straddles either; it carries both).
 */
export function segmentsFromWords(words: readonly Word[], rules: SegmentRules = {}): Segment[] {
  const pause = rules.pauseSec ?? 0.6;
  const maxWords = rules.maxWords ?? 12;
  const maxSec = rules.maxSec ?? 7;
  const segments: Segment[] = [];
  let current: Word[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const first = current[0]!;
    segments.push({
      start: first.start,
      end: current[current.length - 1]!.end,
      text: joinWords(current.map((w) => w.text)),
      ...labels(first),
    });
    current = [];
  };
  for (const w of words) {
    const prev = current[current.length - 1];
    const changed = prev && ((prev.speaker ?? null) !== (w.speaker ?? null) || (prev.language ?? null) !== (w.language ?? null));
    if (prev && (changed || w.start - prev.end >= pause || current.length >= maxWords || w.end - current[0]!.start > maxSec)) flush();
    current.push(w);
  }
  flush();
  return segments;
}

/**
 * Each speaker's words and seconds (the segments', which never straddle a change of speaker), in order of
 * first appearance. Empty when no word carries a speaker.
 */
export function speakerSummary(words: readonly Word[], segments: readonly Segment[]): SpeakerSummary[] {
  const byId = new Map<string, SpeakerSummary>();
  const entry = (id: string) => byId.get(id) ?? byId.set(id, { id, words: 0, seconds: 0 }).get(id)!;
  for (const w of words) if (w.speaker) entry(w.speaker).words += 1;
  for (const s of segments) if (s.speaker) entry(s.speaker).seconds += s.end - s.start;
  return [...byId.values()].map((s) => ({ ...s, seconds: roundSec(s.seconds) }));
}

/** Seconds covered by segments. */
export function spokenSeconds(segments: readonly Segment[]): number {
  return roundSec(segments.reduce((sum, s) => sum + (s.end - s.start), 0));
}

/** Seconds per language summed over parts (pieces of one recording), longest first. */
export function sumLanguageSeconds(parts: readonly (readonly LanguageSeconds[])[]): LanguageSeconds[] {
  const seconds = new Map<string, number>();
  for (const part of parts) for (const l of part) seconds.set(l.language, (seconds.get(l.language) ?? 0) + l.seconds);
  return [...seconds]
    .map(([language, s]) => ({ language, seconds: roundSec(s) }))
    .sort((a, b) => b.seconds - a.seconds || a.language.localeCompare(b.language));
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
