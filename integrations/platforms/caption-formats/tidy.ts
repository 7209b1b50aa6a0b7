import type { Segment } from '../types';

// Turns the cues a parser read into segments a transcript can hold: sorted,
// non-empty, one line each, and without the repeats that styled and automatic
// tracks produce (outline/shadow copies of one line, animation frames of one
// line, automatic captions that grow word by word).

export interface RawCue {
  /** Seconds. */
  start: number;
  /** Seconds; NaN when the format gave no duration (filled from the next cue). */
  end: number;
  /** Visible text, possibly several lines. */
  text: string;
}

export interface TidyOptions {
  /**
   * Automatic tracks keep a line on screen while the next one is spoken
   * ("rolling" display), so their cues overlap by design: cut each cue at the
   * next one's start so the timing says when the words were said.
   */
  rolling: boolean;
}

const EPSILON = 0.001;
// How many recent segments may still be on screen with a repeat (styled tracks draw a line in several layers).
const LOOKBACK = 8;

export function tidyCues(cues: readonly RawCue[], options: TidyOptions): Segment[] {
  const usable = cues
    .map((c, order) => ({ start: c.start, end: c.end, text: c.text.split('\n').join(' ').trim(), order }))
    .filter((c) => c.text !== '' && Number.isFinite(c.start) && c.start >= 0)
    .sort((a, b) => a.start - b.start || a.order - b.order);

  const out: Segment[] = [];
  usable.forEach((cue, i) => {
    let end = Number.isFinite(cue.end) ? cue.end : NaN;
    if (!(end > cue.start)) {
      const next = usable.slice(i + 1).find((n) => n.start > cue.start);
      end = Number.isFinite(end) && end >= cue.start ? end : next ? next.start : cue.start;
    }
    // The same line again while it is still on screen (a styling layer, the next animation frame): one segment.
    const twin = out.slice(-LOOKBACK).find((s) => s.text === cue.text && cue.start <= s.end + EPSILON);
    if (twin) {
      twin.end = Math.max(twin.end, end);
      return;
    }
    const prev = out[out.length - 1];
    if (prev && cue.start <= prev.end + EPSILON && cue.text.startsWith(prev.text + ' ')) {
      // The line growing word by word: keep the full line, timed from its first word.
      prev.text = cue.text;
      prev.end = Math.max(prev.end, end);
      return;
    }
    if (prev && options.rolling && prev.end > cue.start && cue.start > prev.start) prev.end = cue.start;
    out.push({ start: cue.start, end, text: cue.text });
  });
  return out.map((s) => ({ start: ms(s.start), end: ms(Math.max(s.end, s.start)), text: s.text }));
}

function ms(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
