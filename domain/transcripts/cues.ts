// Cue building shared by the SRT and WebVTT exports: timing repair (ordering,
// overlaps, empty and zero-length segments) and splitting of long segments
// into several caption-sized cues, timed by the words spoken when known.
// Text normalisation is in text.ts, widths in display-width.ts, line wrapping
// in line-breaking.ts and the matching of words with text in word-timing.ts.
//
// Everything here works in integer milliseconds so that no floating-point
// rounding can reach the serialisers (a timestamp like 59.9996 s must never
// turn into "00:00:59.1000" or jump back a second).

import { Chunk, keptLines, LineBreaker } from './line-breaking';
import { neutraliseArrows, normaliseTextClassified } from '../../core/text';
import type { Segment } from '../../core/timing';
import { WordInput, WordTimeBuffers, WordTimeline } from './word-timing';

export type { WordInput } from './word-timing';

/** A segment as it comes in (timing not yet repaired). */
export type SegmentInput = Segment;

/** One caption cue: integer milliseconds, 1..maxLines non-empty lines of plain (unescaped) text. */
export interface Cue {
  start: number;
  end: number;
  lines: string[];
}

export interface CueOptions {
  /** Display columns per line (East Asian wide characters count 2). */
  maxLineWidth: number;
  /** Lines per cue. */
  maxLines: number;
  /** Duration given to a segment whose end is not after its start (never overlapping the next cue). */
  minDurationMs: number;
  /** Last representable instant; later cues are dropped, longer ones clipped. 99:59:59.999 by default. */
  maxTimestampMs: number;
}

export const MAX_TIMESTAMP_MS = 99 * 3_600_000 + 59 * 60_000 + 59_999; // 99:59:59.999

export const DEFAULT_CUE_OPTIONS: Readonly<CueOptions> = Object.freeze({
  maxLineWidth: 42,
  maxLines: 2,
  minDurationMs: 1000,
  maxTimestampMs: MAX_TIMESTAMP_MS,
});

/**
 * Lays one normalised text out as cues' worth of lines: at most maxLines
 * lines of at most maxLineWidth columns each. Author line breaks are kept
 * when they already fit; otherwise the text is reflowed.
 */
export function layoutText(
  text: string,
  maxLineWidth = DEFAULT_CUE_OPTIONS.maxLineWidth,
  maxLines = DEFAULT_CUE_OPTIONS.maxLines,
): string[][] {
  const keep = keptLines(text, maxLineWidth, maxLines);
  if (keep) return [keep];
  const line = text.indexOf('\n') === -1 ? text : text.split('\n').join(' ');
  const breaker = new LineBreaker();
  breaker.setLine(line, maxLineWidth);
  if (breaker.unitCount === 0) return [];
  return breaker.chunks(maxLineWidth, maxLines).map((c) => breaker.linesOf(c));
}

function toMs(seconds: unknown): number | null {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return null;
  return Math.round(seconds * 1000);
}

interface Timed {
  start: number;
  end: number;
  text: string;
  order: number;
  /** Simple layout (see hasSimpleLayout); false for multi-line text. */
  simple: boolean;
}

/** Segments -> ordered, non-overlapping, non-empty timed texts (ms). */
function repairTiming(segments: readonly SegmentInput[], opts: CueOptions): Timed[] {
  const list: Timed[] = [];
  let sorted = true;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (!seg) continue;
    let start = toMs(seg.start);
    if (start === null) continue;
    if (start < 0) start = 0;
    if (start >= opts.maxTimestampMs) continue;
    let end = toMs(seg.end);
    if (end === null) end = start;
    if (end > opts.maxTimestampMs) end = opts.maxTimestampMs;
    const normalised = normaliseTextClassified(seg.text);
    const text = neutraliseArrows(normalised.text);
    if (text === '') continue;
    const simple = normalised.simpleChars && text.indexOf('\n') === -1;
    if (list.length > 0 && start < list[list.length - 1].start) sorted = false;
    list.push({ start, end, text, order: i, simple });
  }
  if (!sorted) list.sort((a, b) => a.start - b.start || a.order - b.order);

  const out: Timed[] = [];
  for (let i = 0; i < list.length; i++) {
    const cur = list[i];
    const next = i + 1 < list.length ? list[i + 1] : undefined;
    if (cur.end <= cur.start) cur.end = Math.min(cur.start + opts.minDurationMs, opts.maxTimestampMs);
    if (next && cur.end > next.start) {
      if (next.start <= cur.start) {
        // Same start: nothing of `cur` could be shown on its own. Show both texts together.
        next.text = cur.text + '\n' + next.text;
        next.simple = false;
        if (next.end < cur.end) next.end = cur.end;
        continue;
      }
      cur.end = next.start;
    }
    out.push(cur);
  }
  return out;
}

/**
 * Builds caption cues from transcript segments (seconds) and, when present,
 * word timings (used to time the pieces of a segment that is split).
 *
 * Guarantees: cues are sorted, never overlap (end <= next start), every cue
 * has end > start, 1..maxLines non-empty lines of at most maxLineWidth columns
 * (a degenerate segment with more pieces than milliseconds keeps all its lines
 * in one cue), no "-->" in the text, times are integer ms in
 * [0, maxTimestampMs]. No text is dropped except empty segments and segments
 * that start at or after maxTimestampMs.
 *
 * Its line and word-time buffers grow to the largest transcript and are
 * reused by the next build: keep one for repeated exports. Not re-entrant
 * (build is synchronous).
 */
export class CueBuilder {
  private readonly breaker = new LineBreaker();
  private readonly wordTimes = new WordTimeBuffers();

  build(segments: readonly SegmentInput[], words?: readonly WordInput[] | null, options: Partial<CueOptions> = {}): Cue[] {
    const opts: CueOptions = { ...DEFAULT_CUE_OPTIONS, ...options };
    const timed = repairTiming(segments, opts);
    const timeline = words && words.length > 0 ? new WordTimeline(words, this.wordTimes) : null;
    const breaker = this.breaker;
    const cues: Cue[] = [];

    for (const seg of timed) {
      const simple = seg.simple;
      const keep = keptLines(seg.text, opts.maxLineWidth, opts.maxLines, simple);
      if (keep) {
        cues.push({ start: seg.start, end: seg.end, lines: keep });
        continue;
      }
      const line = seg.text.indexOf('\n') === -1 ? seg.text : seg.text.split('\n').join(' ');
      breaker.setLine(line, opts.maxLineWidth, simple);
      let chunks = breaker.chunks(opts.maxLineWidth, opts.maxLines);
      if (chunks.length > seg.end - seg.start) {
        // Degenerate (more pieces than milliseconds): one cue with every line.
        const lineStarts: number[] = [];
        for (const c of chunks) lineStarts.push(...c.lineStarts);
        chunks = [{ from: 0, to: breaker.unitCount, lineStarts }];
      }
      if (chunks.length === 1) {
        cues.push({ start: seg.start, end: seg.end, lines: breaker.linesOf(chunks[0]) });
        continue;
      }
      const starts = chunkStarts(breaker, line, chunks, seg, timeline);
      for (let k = 0; k < chunks.length; k++) {
        const end = k + 1 < chunks.length ? starts[k + 1] : seg.end;
        cues.push({ start: starts[k], end, lines: breaker.linesOf(chunks[k]) });
      }
    }
    return cues;
  }
}

/** CueBuilder.build with buffers of its own (for one-off calls; repeated exports keep a CueBuilder). */
export function buildCues(
  segments: readonly SegmentInput[],
  words?: readonly WordInput[] | null,
  options: Partial<CueOptions> = {},
): Cue[] {
  return new CueBuilder().build(segments, words, options);
}

/**
 * Start time (ms) of each chunk of a split segment: from word timings when they spell the text, else by length.
 * `breaker` holds the units of `line`, which `chunks` cut.
 */
function chunkStarts(breaker: LineBreaker, line: string, chunks: Chunk[], seg: Timed, timeline: WordTimeline | null): number[] {
  const count = chunks.length;
  let starts: number[] | null = null;
  if (timeline) {
    const offsets: number[] = [];
    for (let k = 1; k < count; k++) offsets.push(breaker.startOf(chunks[k].from));
    const times = timeline.timesAt(line, offsets, seg.start, seg.end);
    if (times) starts = [seg.start, ...times];
  }
  if (!starts) {
    starts = [seg.start];
    const duration = seg.end - seg.start;
    const total = breaker.columnsBefore(breaker.unitCount) + 1;
    for (let k = 1; k < count; k++) starts.push(seg.start + Math.round((duration * breaker.columnsBefore(chunks[k].from)) / total));
  }
  // Strictly increasing and inside the segment, so that no piece is empty.
  for (let k = 1; k < count; k++) {
    const lo = starts[k - 1] + 1;
    const hi = seg.end - (count - k);
    starts[k] = Math.min(Math.max(starts[k], lo), hi);
  }
  return starts;
}
