// Line breaking: where one line of text may break, and how it is cut into
// cues' worth of lines (at most maxLines lines of at most maxWidth columns).
//
// Performance: a two-hour transcript (~1,500 segments, ~120 KB of text) has
// to export in a few milliseconds, so the layout works on character offsets
// into the text with reusable typed arrays instead of one object per word.

import { ClusterReader, displayWidth, hasSimpleLayout } from './display-width';

/** Scripts written without spaces, where a line may break between any two characters. */
function breaksAnywhere(cp: number): boolean {
  return (
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

// Characters a line must not start with / end with (a small kinsoku set).
const NO_BREAK_BEFORE = new Set(
  Array.from('、。，．！？：；）」』】〕〉》〗〙〟ゝゞー・ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥!?,.:;)]}%').map((c) =>
    c.codePointAt(0)!,
  ),
);
const NO_BREAK_AFTER = new Set(Array.from('（「『【〔〈《〖〘〝([{').map((c) => c.codePointAt(0)!));

/** A cue's worth of units [from, to) with the unit index where each line starts. */
export interface Chunk {
  from: number;
  to: number;
  lineStarts: number[];
}

/**
 * Cuts one line of text into units, the pieces a line may break between, as
 * [start, end) offsets into the line, and fits them into lines and chunks.
 * Consecutive units are separated by one space or by nothing (inside CJK runs
 * and hard-broken long words). The unit buffers grow as needed and are reused
 * from one line to the next: keep one breaker for a whole transcript. Not
 * re-entrant (one line at a time).
 */
export class LineBreaker {
  private capacity = 0;
  private unitStart = new Int32Array(0);
  private unitEnd = new Int32Array(0);
  /** 1 when the unit starts a space-separated word (a space precedes it unless it is the first unit). */
  private unitSpace = new Uint8Array(0);
  /** unitPos[i]: columns from the start of the text to the end of unit i-1, separating spaces included. */
  private unitPos = new Float64Array(1);
  private count = 0;
  private line = '';
  private readonly cluster = new ClusterReader();

  /** Units of the current line. */
  get unitCount(): number {
    return this.count;
  }

  /** Offset into the current line at which unit i starts. */
  startOf(i: number): number {
    return this.unitStart[i];
  }

  /** Columns from the start of the line to the start of unit i (to its end for i = unitCount), separating spaces included. */
  columnsBefore(i: number): number {
    return this.unitPos[i];
  }

  /** Splits a single line (no "\n", single spaces, trimmed) into units, none wider than maxWidth. */
  setLine(line: string, maxWidth: number, simple = hasSimpleLayout(line)): void {
    this.line = line;
    this.count = 0;
    this.unitPos[0] = 0;
    // Worst case one unit per UTF-16 unit.
    this.reserve(line.length + 1);
    if (simple) {
      let wordStart = 0;
      while (wordStart <= line.length) {
        let i = line.indexOf(' ', wordStart);
        if (i === -1) i = line.length;
        if (i > wordStart) {
          const len = i - wordStart;
          if (len <= maxWidth) this.addUnit(wordStart, i, len, true);
          else
            for (let s = wordStart; s < i; s += maxWidth)
              this.addUnit(s, Math.min(s + maxWidth, i), Math.min(maxWidth, i - s), s === wordStart);
        }
        wordStart = i + 1;
      }
      return;
    }
    const cluster = this.cluster;
    let start = -1; // current unit
    let width = 0;
    let first = true; // first unit of the current space-separated word
    let prevLast = -1; // last code point of the previous cluster in this word
    for (let i = 0; i <= line.length;) {
      if (i === line.length || line.charCodeAt(i) === 32) {
        if (start !== -1) this.addUnit(start, i, width, first);
        start = -1;
        width = 0;
        first = true;
        prevLast = -1;
        i++;
        continue;
      }
      const end = cluster.read(line, i);
      if (start !== -1) {
        const soft =
          (breaksAnywhere(cluster.first) || breaksAnywhere(prevLast)) &&
          !NO_BREAK_BEFORE.has(cluster.first) &&
          !NO_BREAK_AFTER.has(prevLast);
        if (soft || width + cluster.width > maxWidth) {
          this.addUnit(start, i, width, first);
          first = false;
          start = -1;
          width = 0;
        }
      }
      if (start === -1) start = i;
      width += cluster.width;
      prevLast = cluster.last;
      i = end;
    }
  }

  /** The current line as chunks of at most maxLines lines (cues of roughly equal length). */
  chunks(maxWidth: number, maxLines: number): Chunk[] {
    const n = this.count;
    const single = this.fitLines(0, n, maxWidth, maxLines);
    if (single) return [{ from: 0, to: n, lineStarts: single }];
    const greedy = this.greedyLines(0, n, maxWidth);
    const count = Math.ceil(greedy.length / maxLines);
    // Cues of roughly equal length read better than full cues followed by a stub.
    for (let c = count; c <= count + 1; c++) {
      const even = this.evenChunks(c, maxWidth, maxLines);
      if (even) return even;
    }
    const chunks: Chunk[] = [];
    for (let i = 0; i < greedy.length; i += maxLines) {
      const from = greedy[i];
      const to = i + maxLines < greedy.length ? greedy[i + maxLines] : n;
      chunks.push({ from, to, lineStarts: this.fitLines(from, to, maxWidth, maxLines) ?? greedy.slice(i, i + maxLines) });
    }
    return chunks;
  }

  /** The text of a chunk of the current line, one string per line. */
  linesOf(chunk: Chunk): string[] {
    const out: string[] = [];
    const ls = chunk.lineStarts;
    for (let l = 0; l < ls.length; l++) {
      const to = l + 1 < ls.length ? ls[l + 1] : chunk.to;
      out.push(this.line.slice(this.unitStart[ls[l]], this.unitEnd[to - 1]));
    }
    return out;
  }

  private reserve(n: number): void {
    if (n <= this.capacity) return;
    const cap = Math.max(n, this.capacity * 2, 64);
    this.capacity = cap;
    this.unitStart = new Int32Array(cap);
    this.unitEnd = new Int32Array(cap);
    this.unitSpace = new Uint8Array(cap);
    this.unitPos = new Float64Array(cap + 1);
  }

  private addUnit(start: number, end: number, width: number, space: boolean): void {
    const i = this.count++;
    this.unitStart[i] = start;
    this.unitEnd[i] = end;
    this.unitSpace[i] = space ? 1 : 0;
    this.unitPos[i + 1] = this.unitPos[i] + width + (space && i > 0 ? 1 : 0);
  }

  private unitsWidth(from: number, to: number): number {
    if (to <= from) return 0;
    return this.unitPos[to] - this.unitPos[from] - (this.unitSpace[from] === 1 && from > 0 ? 1 : 0);
  }

  /** Greedy fill: unit indexes at which lines start. */
  private greedyLines(from: number, to: number, maxWidth: number): number[] {
    const starts = [from];
    let lineStart = from;
    for (let i = from + 1; i < to; i++) {
      if (this.unitsWidth(lineStart, i + 1) > maxWidth) {
        starts.push(i);
        lineStart = i;
      }
    }
    return starts;
  }

  /** The split of [from, to) into two lines that keeps the longer line shortest (ties: bottom-heavy). */
  private balancedTwo(from: number, to: number, maxWidth: number): number[] | null {
    let best = -1;
    let bestMax = Infinity;
    for (let k = from + 1; k < to; k++) {
      const w1 = this.unitsWidth(from, k);
      if (w1 > maxWidth) break;
      const w2 = this.unitsWidth(k, to);
      if (w2 > maxWidth) continue;
      const m = w1 > w2 ? w1 : w2;
      if (m < bestMax || (m === bestMax && w1 <= w2)) {
        bestMax = m;
        best = k;
      }
    }
    return best === -1 ? null : [from, best];
  }

  private fitLines(from: number, to: number, maxWidth: number, maxLines: number): number[] | null {
    if (this.unitsWidth(from, to) <= maxWidth) return [from];
    if (maxLines >= 2) {
      const two = this.balancedTwo(from, to, maxWidth);
      if (two) return two;
    }
    const g = this.greedyLines(from, to, maxWidth);
    return g.length <= maxLines ? g : null;
  }

  private evenChunks(count: number, maxWidth: number, maxLines: number): Chunk[] | null {
    const n = this.count;
    if (count > n) return null;
    const pos = this.unitPos;
    const total = pos[n];
    const bounds = [0];
    for (let k = 1; k < count; k++) {
      const target = (total * k) / count;
      const prev = bounds[k - 1];
      const last = n - (count - k); // leave at least one unit per remaining chunk
      let i = prev + 1;
      while (i < last && pos[i] < target) i++;
      if (i > prev + 1 && target - pos[i - 1] < pos[i] - target) i--;
      bounds.push(i);
    }
    bounds.push(n);
    const chunks: Chunk[] = [];
    for (let k = 0; k < count; k++) {
      const lineStarts = this.fitLines(bounds[k], bounds[k + 1], maxWidth, maxLines);
      if (!lineStarts) return null;
      chunks.push({ from: bounds[k], to: bounds[k + 1], lineStarts });
    }
    return chunks;
  }
}

/**
 * The text's own lines when it fits as it is: at most maxLines lines (author
 * line breaks kept) of at most maxLineWidth columns; else null. `simple`: the
 * text is one line of simple characters (see hasSimpleLayout).
 */
export function keptLines(text: string, maxLineWidth: number, maxLines: number, simple = hasSimpleLayout(text)): string[] | null {
  if (text.indexOf('\n') === -1) {
    if (simple) return text.length <= maxLineWidth ? [text] : null;
    return text.length <= 2 * maxLineWidth + 8 && displayWidth(text) <= maxLineWidth ? [text] : null;
  }
  const lines = text.split('\n');
  if (lines.length > maxLines) return null;
  for (const l of lines) if (displayWidth(l) > maxLineWidth) return null;
  return lines;
}
