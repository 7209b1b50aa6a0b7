// Cue building shared by the SRT and WebVTT exports: text normalisation,
// timing repair (ordering, overlaps, empty and zero-length segments), line
// wrapping and splitting of long segments into several caption-sized cues.
//
// Everything here works in integer milliseconds so that no floating-point
// rounding can reach the serialisers (a timestamp like 59.9996 s must never
// turn into "00:00:59.1000" or jump back a second).

export interface SegmentInput {
  start: number;
  end: number;
  text: string;
}

export interface WordInput {
  start: number;
  end: number;
  text: string;
}

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

/** How far (ms) a segment's first word may start before the segment itself. */
const WORD_TOLERANCE_MS = 500;

// ---------------------------------------------------------------------------
// Text normalisation

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const NEWLINES = /\r\n?|[\u0085\u2028\u2029]/g;
// C0/C1 controls (not \t \n \v \f), DEL, soft hyphen, Mongolian vowel separator,
// zero-width space, word joiner and invisible operators, BOM / zero-width
// no-break space, interlinear annotation marks.
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u180e\u200b\u2060-\u2064\ufeff\ufff9-\ufffb]/g;
// ZWJ / ZWNJ are kept inside words (emoji sequences, Persian, Indic scripts)
// but dropped where they join nothing: at a line's edge or next to a space.
const DANGLING_JOINERS = /(^|[\s])[\u200c\u200d]+|[\u200c\u200d]+(?=[\s]|$)/gm;
// Breaking white space (NBSP U+00A0 and U+202F stay: they must not break).
const SPACES = /[\t\v\f \u1680\u2000-\u200a\u205f\u3000]+/g;
const ASCII_SPACES = / {2,}/g;

/**
 * Normalises transcript text: newlines become "\n", control and zero-width
 * characters are removed, runs of spaces collapse to one, every line is
 * trimmed and blank lines are dropped. Returns "" when nothing visible is left.
 */
export function normaliseText(text: string): string {
  if (typeof text !== 'string') return '';
  if (PRINTABLE_ASCII.test(text)) {
    const t = text.indexOf('  ') === -1 ? text : text.replace(ASCII_SPACES, ' ');
    return t.length !== 0 && (t.charCodeAt(0) === 32 || t.charCodeAt(t.length - 1) === 32) ? t.trim() : t;
  }
  let t = text;
  if (typeof (t as { toWellFormed?: () => string }).toWellFormed === 'function') {
    t = (t as unknown as { toWellFormed: () => string }).toWellFormed(); // lone surrogates -> U+FFFD
  }
  t = t.normalize('NFC').replace(NEWLINES, '\n').replace(INVISIBLE, '').replace(SPACES, ' ');
  if (t.indexOf('\u200c') !== -1 || t.indexOf('\u200d') !== -1) t = t.replace(DANGLING_JOINERS, '$1');
  if (t.indexOf('\n') === -1) return t.trim();
  const lines = t.split('\n');
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    out = out === '' ? line : out + '\n' + line;
  }
  return out;
}

/** normaliseText, then joins all lines with single spaces: one line of text. */
export function normaliseLine(text: string): string {
  const t = normaliseText(text);
  return t.indexOf('\n') === -1 ? t : t.split('\n').join(' ');
}

const ARROW = /-{2,}>/g;

/** Cue text may never contain the "-->" timing separator (SRT and WebVTT alike). */
export function neutraliseArrows(text: string): string {
  return text.indexOf('->') === -1 ? text : text.replace(ARROW, '->');
}

// ---------------------------------------------------------------------------
// Display width and break opportunities

const MARK = /\p{M}/u;

function isZeroWidth(cp: number): boolean {
  if (cp < 0x300) return false;
  if (cp <= 0x36f) return true;
  if (cp === 0x200c || cp === 0x200d || (cp >= 0x200e && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e)) return true;
  if (cp >= 0x2066 && cp <= 0x2069) return true;
  if (cp >= 0xfe00 && cp <= 0xfe0f) return true; // variation selectors
  if (cp >= 0x1f3fb && cp <= 0x1f3ff) return true; // emoji skin tones
  if (cp >= 0xe0000 && cp <= 0xe01ef) return true; // tags, variation selectors supplement
  return MARK.test(String.fromCodePoint(cp));
}

function isWide(cp: number): boolean {
  if (cp < 0x1100) return false;
  return (
    cp <= 0x115f ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe10 && cp <= 0xfe19) ||
    (cp >= 0xfe30 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1b000 && cp <= 0x1b2ff) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f680 && cp <= 0x1f6ff) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x1fa70 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function cpWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Columns a string occupies on screen (approximation of East Asian Width; marks and joiners are 0). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let w = 0;
  for (const ch of text) w += cpWidth(ch.codePointAt(0)!);
  return w;
}

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
  Array.from('、。，．！？：；）」』】〕〉》〗〙〟ゝゞー・ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥!?,.:;)]}%'),
);
const NO_BREAK_AFTER = new Set(Array.from('（「『【〔〈《〖〘〝([{'));

function isExtender(cp: number): boolean {
  // Never break before these: they belong to the previous character.
  return cp >= 0x300 && isZeroWidth(cp);
}

function isRegionalIndicator(cp: number): boolean {
  return cp >= 0x1f1e6 && cp <= 0x1f1ff;
}

// ---------------------------------------------------------------------------
// Units: the pieces a line may break between

interface Unit {
  text: string;
  width: number;
  /** Separated from the previous unit by a space (false inside CJK runs and hard-broken words). */
  space: boolean;
}

function pushAsciiWord(word: string, maxWidth: number, out: Unit[]): void {
  if (word.length <= maxWidth) {
    out.push({ text: word, width: word.length, space: true });
    return;
  }
  for (let i = 0; i < word.length; i += maxWidth) {
    const piece = word.slice(i, i + maxWidth);
    out.push({ text: piece, width: piece.length, space: i === 0 });
  }
}

function pushWord(word: string, maxWidth: number, out: Unit[]): void {
  if (PRINTABLE_ASCII.test(word)) {
    pushAsciiWord(word, maxWidth, out);
    return;
  }
  let cur = '';
  let curWidth = 0;
  let first = true;
  let prevCp = -1;
  let riRun = 0; // regional indicators seen in a row (flags are pairs)
  for (const ch of word) {
    const cp = ch.codePointAt(0)!;
    const w = cpWidth(cp);
    if (cur !== '') {
      const glued = isExtender(cp) || prevCp === 0x200d || (isRegionalIndicator(cp) && riRun % 2 === 1);
      let brk = false;
      if (!glued) {
        const soft =
          (breaksAnywhere(cp) || breaksAnywhere(prevCp)) && !NO_BREAK_BEFORE.has(ch) && !NO_BREAK_AFTER.has(String.fromCodePoint(prevCp));
        brk = soft || curWidth + w > maxWidth;
      }
      if (brk) {
        out.push({ text: cur, width: curWidth, space: first });
        first = false;
        cur = '';
        curWidth = 0;
      }
    }
    cur += ch;
    curWidth += w;
    riRun = isRegionalIndicator(cp) ? riRun + 1 : 0;
    prevCp = cp;
  }
  if (cur !== '') out.push({ text: cur, width: curWidth, space: first });
}

function toUnits(text: string, maxWidth: number): Unit[] {
  const out: Unit[] = [];
  const words = text.split(/[ \n]/);
  for (const w of words) if (w !== '') pushWord(w, maxWidth, out);
  return out;
}

// ---------------------------------------------------------------------------
// Layout: units -> chunks (one per cue) of lines

/** A cue's worth of units [from, to) with the unit index where each line starts. */
interface Chunk {
  from: number;
  to: number;
  lineStarts: number[];
}

class Layout {
  /** pos[i]: columns from the start of the text to the end of unit i-1, spaces included. */
  readonly pos: Float64Array;
  constructor(readonly units: Unit[]) {
    const pos = new Float64Array(units.length + 1);
    for (let i = 0; i < units.length; i++) pos[i + 1] = pos[i] + units[i].width + (units[i].space && i > 0 ? 1 : 0);
    this.pos = pos;
  }
  width(from: number, to: number): number {
    if (to <= from) return 0;
    return this.pos[to] - this.pos[from] - (this.units[from].space && from > 0 ? 1 : 0);
  }
  /** Greedy fill: unit indexes at which lines start. */
  greedy(from: number, to: number, maxWidth: number): number[] {
    const starts = [from];
    let lineStart = from;
    for (let i = from + 1; i < to; i++) {
      if (this.width(lineStart, i + 1) > maxWidth) {
        starts.push(i);
        lineStart = i;
      }
    }
    return starts;
  }
  /** The split of [from, to) into two lines that keeps the longer line shortest (ties: bottom-heavy). */
  balancedTwo(from: number, to: number, maxWidth: number): number[] | null {
    let best = -1;
    let bestMax = Infinity;
    for (let k = from + 1; k < to; k++) {
      const w1 = this.width(from, k);
      const w2 = this.width(k, to);
      if (w1 > maxWidth || w2 > maxWidth) continue;
      const m = Math.max(w1, w2);
      if (m < bestMax || (m === bestMax && w1 <= w2)) {
        bestMax = m;
        best = k;
      }
    }
    return best === -1 ? null : [from, best];
  }
  lines(from: number, to: number, maxWidth: number, maxLines: number): number[] | null {
    if (this.width(from, to) <= maxWidth) return [from];
    if (maxLines >= 2) {
      const two = this.balancedTwo(from, to, maxWidth);
      if (two) return two;
    }
    const g = this.greedy(from, to, maxWidth);
    return g.length <= maxLines ? g : null;
  }
  text(from: number, to: number): string {
    let s = this.units[from].text;
    for (let i = from + 1; i < to; i++) s += this.units[i].space ? ' ' + this.units[i].text : this.units[i].text;
    return s;
  }
}

function evenChunks(layout: Layout, count: number, maxWidth: number, maxLines: number): Chunk[] | null {
  const n = layout.units.length;
  if (count > n) return null;
  const total = layout.pos[n];
  const bounds = [0];
  for (let k = 1; k < count; k++) {
    const target = (total * k) / count;
    const prev = bounds[k - 1];
    const last = n - (count - k); // leave at least one unit per remaining chunk
    let i = prev + 1;
    while (i < last && layout.pos[i] < target) i++;
    if (i > prev + 1 && target - layout.pos[i - 1] < layout.pos[i] - target) i--;
    bounds.push(i);
  }
  bounds.push(n);
  const chunks: Chunk[] = [];
  for (let k = 0; k < count; k++) {
    const lineStarts = layout.lines(bounds[k], bounds[k + 1], maxWidth, maxLines);
    if (!lineStarts) return null;
    chunks.push({ from: bounds[k], to: bounds[k + 1], lineStarts });
  }
  return chunks;
}

function chunkUnits(layout: Layout, maxWidth: number, maxLines: number): Chunk[] {
  const n = layout.units.length;
  const single = layout.lines(0, n, maxWidth, maxLines);
  if (single) return [{ from: 0, to: n, lineStarts: single }];
  const greedy = layout.greedy(0, n, maxWidth);
  const count = Math.ceil(greedy.length / maxLines);
  // Cues of roughly equal length read better than full cues followed by a stub.
  for (const c of [count, count + 1]) {
    const even = evenChunks(layout, c, maxWidth, maxLines);
    if (even) return even;
  }
  const chunks: Chunk[] = [];
  for (let i = 0; i < greedy.length; i += maxLines) {
    const from = greedy[i];
    const to = i + maxLines < greedy.length ? greedy[i + maxLines] : n;
    chunks.push({ from, to, lineStarts: layout.lines(from, to, maxWidth, maxLines) ?? greedy.slice(i, i + maxLines) });
  }
  return chunks;
}

function chunkLines(layout: Layout, chunk: Chunk): string[] {
  const lines: string[] = [];
  for (let l = 0; l < chunk.lineStarts.length; l++) {
    const to = l + 1 < chunk.lineStarts.length ? chunk.lineStarts[l + 1] : chunk.to;
    lines.push(layout.text(chunk.lineStarts[l], to));
  }
  return lines;
}

/**
 * Lays one (normalised) text out as cues' worth of lines: at most maxLines
 * lines of at most maxLineWidth columns each. Author line breaks are kept
 * when they already fit; otherwise the text is reflowed.
 */
export function layoutText(text: string, maxLineWidth = DEFAULT_CUE_OPTIONS.maxLineWidth, maxLines = DEFAULT_CUE_OPTIONS.maxLines): string[][] {
  const keep = keptLines(text, maxLineWidth, maxLines);
  if (keep) return [keep];
  const layout = new Layout(toUnits(text, maxLineWidth));
  if (layout.units.length === 0) return [];
  return chunkUnits(layout, maxLineWidth, maxLines).map((c) => chunkLines(layout, c));
}

function keptLines(text: string, maxLineWidth: number, maxLines: number): string[] | null {
  if (text.indexOf('\n') === -1) return displayWidth(text) <= maxLineWidth ? [text] : null;
  const lines = text.split('\n');
  if (lines.length > maxLines) return null;
  for (const l of lines) if (displayWidth(l) > maxLineWidth) return null;
  return lines;
}

// ---------------------------------------------------------------------------
// Word timeline: aligns a segment's text with the words spoken in it

const NON_ALNUM = /[^\p{L}\p{N}]+/gu;
const ASCII_ALNUM = /^[A-Za-z0-9]*$/;

function alnumKey(text: string): string {
  if (ASCII_ALNUM.test(text)) return text.toLowerCase();
  return text.toLowerCase().replace(NON_ALNUM, '');
}

class WordTimeline {
  readonly start: number[] = [];
  readonly end: number[] = [];
  readonly text: string[] = [];
  private readonly keys: (string | undefined)[] = [];
  pos = 0;

  constructor(words: readonly WordInput[]) {
    const items: { s: number; e: number; t: string; i: number }[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (!w || typeof w.text !== 'string') continue;
      const s = toMs(w.start);
      if (s === null) continue;
      let e = toMs(w.end);
      if (e === null || e < s) e = s;
      items.push({ s, e, t: w.text, i });
    }
    let sorted = true;
    for (let i = 1; i < items.length && sorted; i++) if (items[i].s < items[i - 1].s) sorted = false;
    if (!sorted) items.sort((a, b) => a.s - b.s || a.i - b.i);
    for (const it of items) {
      this.start.push(it.s);
      this.end.push(it.e);
      this.text.push(it.t);
    }
  }

  get length(): number {
    return this.start.length;
  }

  key(i: number): string {
    let k = this.keys[i];
    if (k === undefined) k = this.keys[i] = alnumKey(this.text[i]);
    return k;
  }

  /** Words [from, to) whose letters and digits spell exactly segKey, consumed; null when they don't. */
  align(segKey: string, segStart: number, segEnd: number): [number, number] | null {
    let p = this.pos;
    while (p < this.length && this.start[p] < segStart - WORD_TOLERANCE_MS) p++;
    this.pos = p;
    let q = p;
    let acc = '';
    while (q < this.length && acc.length < segKey.length && this.start[q] <= segEnd + WORD_TOLERANCE_MS) {
      acc += this.key(q);
      q++;
    }
    if (q === p || acc !== segKey) return null;
    this.pos = q;
    return [p, q];
  }

  /** Time (ms) at which the letter/digit number `offset` of the aligned words [from, to) is spoken. */
  timeAt(from: number, to: number, offset: number): number {
    let before = 0;
    for (let j = from; j < to; j++) {
      const len = this.key(j).length;
      if (len === 0) continue;
      if (offset < before + len) {
        if (offset === before) return this.start[j];
        return Math.round(this.start[j] + ((this.end[j] - this.start[j]) * (offset - before)) / len);
      }
      before += len;
    }
    return this.end[to - 1];
  }
}

// ---------------------------------------------------------------------------
// Cue building

function toMs(seconds: unknown): number | null {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return null;
  return Math.round(seconds * 1000);
}

interface Timed {
  start: number;
  end: number;
  text: string;
  order: number;
}

/** Segments -> ordered, non-overlapping, non-empty timed texts (ms). */
function repairTiming(segments: readonly SegmentInput[], opts: CueOptions): Timed[] {
  const list: Timed[] = [];
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
    const text = neutraliseArrows(normaliseText(seg.text));
    if (text === '') continue;
    list.push({ start, end, text, order: i });
  }
  let sorted = true;
  for (let i = 1; i < list.length && sorted; i++) if (list[i].start < list[i - 1].start) sorted = false;
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
 * has end > start, 1..maxLines non-empty lines, no "-->" in the text, times are
 * integer ms in [0, maxTimestampMs]. No text is dropped except empty segments
 * and segments that start at or after maxTimestampMs.
 */
export function buildCues(
  segments: readonly SegmentInput[],
  words?: readonly WordInput[] | null,
  options: Partial<CueOptions> = {},
): Cue[] {
  const opts: CueOptions = { ...DEFAULT_CUE_OPTIONS, ...options };
  const timed = repairTiming(segments, opts);
  const timeline = words && words.length > 0 ? new WordTimeline(words) : null;
  const cues: Cue[] = [];

  for (const seg of timed) {
    const keep = keptLines(seg.text, opts.maxLineWidth, opts.maxLines);
    if (keep) {
      cues.push({ start: seg.start, end: seg.end, lines: keep });
      continue;
    }
    const layout = new Layout(toUnits(seg.text, opts.maxLineWidth));
    let chunks = chunkUnits(layout, opts.maxLineWidth, opts.maxLines);
    const duration = seg.end - seg.start;
    if (chunks.length > duration) {
      // Degenerate (more pieces than milliseconds): one cue with every line.
      const lineStarts: number[] = [];
      for (const c of chunks) lineStarts.push(...c.lineStarts);
      chunks = [{ from: 0, to: layout.units.length, lineStarts }];
    }
    if (chunks.length === 1) {
      cues.push({ start: seg.start, end: seg.end, lines: chunkLines(layout, chunks[0]) });
      continue;
    }

    const starts = chunkStarts(layout, chunks, seg, timeline);
    for (let k = 0; k < chunks.length; k++) {
      const end = k + 1 < chunks.length ? starts[k + 1] : seg.end;
      cues.push({ start: starts[k], end, lines: chunkLines(layout, chunks[k]) });
    }
  }
  return cues;
}

/** Start time (ms) of each chunk of a split segment: from word timings when they match the text, else by length. */
function chunkStarts(layout: Layout, chunks: Chunk[], seg: Timed, timeline: WordTimeline | null): number[] {
  const count = chunks.length;
  const starts = new Array<number>(count);
  starts[0] = seg.start;
  let fromWords = false;
  if (timeline) {
    const keys = chunks.map((c) => alnumKey(layout.text(c.from, c.to)));
    const aligned = timeline.align(keys.join(''), seg.start, seg.end);
    if (aligned) {
      fromWords = true;
      let offset = 0;
      for (let k = 1; k < count; k++) {
        offset += keys[k - 1].length;
        starts[k] = timeline.timeAt(aligned[0], aligned[1], offset);
      }
    }
  }
  if (!fromWords) {
    const duration = seg.end - seg.start;
    const weights = chunks.map((c) => layout.width(c.from, c.to) + 1);
    const total = weights.reduce((a, b) => a + b, 0);
    let acc = 0;
    for (let k = 1; k < count; k++) {
      acc += weights[k - 1];
      starts[k] = seg.start + Math.round((duration * acc) / total);
    }
  }
  // Strictly increasing and inside the segment, so that no piece is empty.
  for (let k = 1; k < count; k++) {
    const lo = starts[k - 1] + 1;
    const hi = seg.end - (count - k);
    starts[k] = Math.min(Math.max(starts[k], lo), hi);
  }
  return starts;
}
