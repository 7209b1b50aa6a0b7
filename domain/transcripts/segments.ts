// Cue building shared by the SRT and WebVTT exports: text normalisation,
// timing repair (ordering, overlaps, empty and zero-length segments), line
// wrapping and splitting of long segments into several caption-sized cues.
//
// Everything here works in integer milliseconds so that no floating-point
// rounding can reach the serialisers (a timestamp like 59.9996 s must never
// turn into "00:00:59.1000" or jump back a second).
//
// Performance: a two-hour transcript (~1,500 segments, ~120 KB of text) has
// to export in a few milliseconds, so the layout works on character offsets
// into the segment text with reusable typed arrays instead of one object per
// word, and word timings are matched to the text in one streaming pass.

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

// Characters that need no Unicode clean-up (no controls, invisible
// characters, special spaces, line separators or combining marks).
function isCleanChar(c: number): boolean {
  if (c < 0x300) return c >= 0xa0 ? c !== 0xad : c >= 0x20 && c <= 0x7e;
  return (
    (c >= 0x370 && c <= 0x482) ||
    (c >= 0x48a && c <= 0x52f) ||
    (c >= 0x1e00 && c <= 0x1fff) ||
    (c >= 0x2010 && c <= 0x2027) ||
    (c >= 0x2030 && c <= 0x205e) ||
    (c >= 0x20a0 && c <= 0x20cf) ||
    (c >= 0x2100 && c <= 0x2bff) ||
    (c >= 0x3001 && c <= 0x3098) ||
    (c >= 0x309b && c <= 0xd7ff) ||
    (c >= 0xf900 && c <= 0xfdff) ||
    (c >= 0xfe10 && c <= 0xfe19) ||
    (c >= 0xfe30 && c <= 0xfefe) ||
    (c >= 0xff00 && c <= 0xfff8)
  );
}

// Characters one column wide at which a line never breaks (so a text made of
// them and single spaces lays out by string length alone): Latin, Greek, Cyrillic.
function isSimpleChar(c: number): boolean {
  return (
    (c >= 0x20 && c <= 0x7e) ||
    (c >= 0xa0 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x482) ||
    (c >= 0x48a && c <= 0x52f) ||
    (c >= 0x1e00 && c <= 0x1fff)
  );
}

const DIRTY = 1; // needs Unicode clean-up
const COMPLEX = 2; // not simple layout
const SPACING = 4; // leading, trailing or double spaces

/** One pass over the text instead of three regular expressions (this runs for every segment). */
function classify(t: string): number {
  let flags = 0;
  let prevSpace = true;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) {
      prevSpace = false;
    } else if (c === 0x20) {
      if (prevSpace) flags |= SPACING;
      prevSpace = true;
    } else {
      prevSpace = false;
      if (!isCleanChar(c)) flags |= DIRTY;
      if (!isSimpleChar(c)) flags |= COMPLEX;
    }
  }
  if (prevSpace && t.length > 0) flags |= SPACING;
  return flags;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATE_G = new RegExp(LONE_SURROGATE.source, 'g');
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
const DOUBLE_SPACES = / {2,}/g;

/** classify() flags of the text normaliseText last returned (for the layout that follows). */
let lastFlags = 0;

/**
 * Normalises transcript text: newlines become "\n", control and zero-width
 * characters are removed, runs of spaces collapse to one, every line is
 * trimmed and blank lines are dropped; decomposed text is composed (NFC).
 * Returns "" when nothing visible is left.
 */
export function normaliseText(text: string): string {
  if (typeof text !== 'string') return '';
  const flags = classify(text);
  if ((flags & DIRTY) === 0) {
    lastFlags = flags & COMPLEX;
    if ((flags & SPACING) === 0) return text;
    return text.replace(DOUBLE_SPACES, ' ').trim();
  }
  let t = text;
  if (LONE_SURROGATE.test(t)) t = t.replace(LONE_SURROGATE_G, '\ufffd');
  t = t.normalize('NFC').replace(NEWLINES, '\n').replace(INVISIBLE, '').replace(SPACES, ' ');
  if (t.indexOf('\u200c') !== -1 || t.indexOf('\u200d') !== -1) t = t.replace(DANGLING_JOINERS, '$1');
  if (t.indexOf('\n') === -1) t = t.trim();
  else {
    let out = '';
    for (const raw of t.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      out = out === '' ? line : out + '\n' + line;
    }
    t = out;
  }
  lastFlags = classify(t) & COMPLEX;
  return t;
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

// Text whose every UTF-16 unit is one column wide and breaks only at spaces (see isSimpleChar).
const SIMPLE_LAYOUT = /^[\x20-\x7e\u00a0-\u02ff\u0370-\u0482\u048a-\u052f\u1e00-\u1fff]*$/;
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
  if (SIMPLE_LAYOUT.test(text)) return text.length;
  let w = 0;
  for (let i = 0; i < text.length;) {
    i = clusterEnd(text, i);
    w += clusterWidth;
  }
  return w;
}

// Set by clusterEnd: the width of the cluster and its first and last code points.
let clusterWidth = 0;
let clusterFirst = 0;
let clusterLast = 0;

/**
 * End (exclusive) of the character cluster starting at i: a code point with
 * the marks, variation selectors and skin tones that follow it, emoji joined
 * by ZWJ (one glyph, so the joined parts add no width) and flag pairs. Lines
 * never break inside a cluster. An approximation of Unicode grapheme clusters
 * that is cheap enough for long transcripts.
 */
function clusterEnd(text: string, i: number): number {
  const first = text.codePointAt(i)!;
  let j = i + (first > 0xffff ? 2 : 1);
  let width = cpWidth(first);
  let last = first;
  let flags = isRegionalIndicator(first) ? 1 : 0;
  while (j < text.length) {
    const cp = text.codePointAt(j)!;
    if (last === 0x200d && cp !== 32) {
      // joined to the previous emoji: same glyph
    } else if (cp >= 0x300 && isZeroWidth(cp)) {
      // mark, joiner, selector, skin tone
    } else if (flags === 1 && isRegionalIndicator(cp)) {
      flags = 2;
      width += cpWidth(cp);
    } else break;
    last = cp;
    j += cp > 0xffff ? 2 : 1;
  }
  clusterWidth = width;
  clusterFirst = first;
  clusterLast = last;
  return j;
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
  Array.from('、。，．！？：；）」』】〕〉》〗〙〟ゝゞー・ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥!?,.:;)]}%').map((c) =>
    c.codePointAt(0)!,
  ),
);
const NO_BREAK_AFTER = new Set(Array.from('（「『【〔〈《〖〘〝([{').map((c) => c.codePointAt(0)!));

function isRegionalIndicator(cp: number): boolean {
  return cp >= 0x1f1e6 && cp <= 0x1f1ff;
}

// ---------------------------------------------------------------------------
// Units: the pieces a line may break between, as [start, end) offsets into
// one line of text. Consecutive units are separated by one space or by
// nothing (inside CJK runs and hard-broken long words). Scratch arrays are
// reused: layout is synchronous and not re-entrant.

let cap = 0;
let uStart = new Int32Array(0);
let uEnd = new Int32Array(0);
let uSpace = new Uint8Array(0);
/** uPos[i]: columns from the start of the text to the end of unit i-1, separating spaces included. */
let uPos = new Float64Array(1);
let uCount = 0;

function reserve(n: number): void {
  if (n <= cap) return;
  cap = Math.max(n, cap * 2, 64);
  uStart = new Int32Array(cap);
  uEnd = new Int32Array(cap);
  uSpace = new Uint8Array(cap);
  uPos = new Float64Array(cap + 1);
}

function addUnit(start: number, end: number, width: number, space: boolean): void {
  const i = uCount++;
  uStart[i] = start;
  uEnd[i] = end;
  uSpace[i] = space ? 1 : 0;
  uPos[i + 1] = uPos[i] + width + (space && i > 0 ? 1 : 0);
}

/** Splits a single line (no "\n", single spaces, trimmed) into units. */
function buildUnits(line: string, maxWidth: number, simple = SIMPLE_LAYOUT.test(line)): void {
  uCount = 0;
  uPos[0] = 0;
  // Worst case one unit per UTF-16 unit.
  reserve(line.length + 1);
  if (simple) {
    let wordStart = 0;
    while (wordStart <= line.length) {
      let i = line.indexOf(' ', wordStart);
      if (i === -1) i = line.length;
      if (i > wordStart) {
        const len = i - wordStart;
        if (len <= maxWidth) addUnit(wordStart, i, len, true);
        else
          for (let s = wordStart; s < i; s += maxWidth) addUnit(s, Math.min(s + maxWidth, i), Math.min(maxWidth, i - s), s === wordStart);
      }
      wordStart = i + 1;
    }
    return;
  }
  let start = -1; // current unit
  let width = 0;
  let first = true; // first unit of the current space-separated word
  let prevLast = -1; // last code point of the previous cluster in this word
  for (let i = 0; i <= line.length;) {
    if (i === line.length || line.charCodeAt(i) === 32) {
      if (start !== -1) addUnit(start, i, width, first);
      start = -1;
      width = 0;
      first = true;
      prevLast = -1;
      i++;
      continue;
    }
    const end = clusterEnd(line, i);
    if (start !== -1) {
      const soft =
        (breaksAnywhere(clusterFirst) || breaksAnywhere(prevLast)) && !NO_BREAK_BEFORE.has(clusterFirst) && !NO_BREAK_AFTER.has(prevLast);
      if (soft || width + clusterWidth > maxWidth) {
        addUnit(start, i, width, first);
        first = false;
        start = -1;
        width = 0;
      }
    }
    if (start === -1) start = i;
    width += clusterWidth;
    prevLast = clusterLast;
    i = end;
  }
}

function unitsWidth(from: number, to: number): number {
  if (to <= from) return 0;
  return uPos[to] - uPos[from] - (uSpace[from] === 1 && from > 0 ? 1 : 0);
}

/** Greedy fill: unit indexes at which lines start. */
function greedyLines(from: number, to: number, maxWidth: number): number[] {
  const starts = [from];
  let lineStart = from;
  for (let i = from + 1; i < to; i++) {
    if (unitsWidth(lineStart, i + 1) > maxWidth) {
      starts.push(i);
      lineStart = i;
    }
  }
  return starts;
}

/** The split of [from, to) into two lines that keeps the longer line shortest (ties: bottom-heavy). */
function balancedTwo(from: number, to: number, maxWidth: number): number[] | null {
  let best = -1;
  let bestMax = Infinity;
  for (let k = from + 1; k < to; k++) {
    const w1 = unitsWidth(from, k);
    if (w1 > maxWidth) break;
    const w2 = unitsWidth(k, to);
    if (w2 > maxWidth) continue;
    const m = w1 > w2 ? w1 : w2;
    if (m < bestMax || (m === bestMax && w1 <= w2)) {
      bestMax = m;
      best = k;
    }
  }
  return best === -1 ? null : [from, best];
}

function fitLines(from: number, to: number, maxWidth: number, maxLines: number): number[] | null {
  if (unitsWidth(from, to) <= maxWidth) return [from];
  if (maxLines >= 2) {
    const two = balancedTwo(from, to, maxWidth);
    if (two) return two;
  }
  const g = greedyLines(from, to, maxWidth);
  return g.length <= maxLines ? g : null;
}

/** A cue's worth of units [from, to) with the unit index where each line starts. */
interface Chunk {
  from: number;
  to: number;
  lineStarts: number[];
}

function evenChunks(count: number, maxWidth: number, maxLines: number): Chunk[] | null {
  const n = uCount;
  if (count > n) return null;
  const total = uPos[n];
  const bounds = [0];
  for (let k = 1; k < count; k++) {
    const target = (total * k) / count;
    const prev = bounds[k - 1];
    const last = n - (count - k); // leave at least one unit per remaining chunk
    let i = prev + 1;
    while (i < last && uPos[i] < target) i++;
    if (i > prev + 1 && target - uPos[i - 1] < uPos[i] - target) i--;
    bounds.push(i);
  }
  bounds.push(n);
  const chunks: Chunk[] = [];
  for (let k = 0; k < count; k++) {
    const lineStarts = fitLines(bounds[k], bounds[k + 1], maxWidth, maxLines);
    if (!lineStarts) return null;
    chunks.push({ from: bounds[k], to: bounds[k + 1], lineStarts });
  }
  return chunks;
}

function chunkUnits(maxWidth: number, maxLines: number): Chunk[] {
  const n = uCount;
  const single = fitLines(0, n, maxWidth, maxLines);
  if (single) return [{ from: 0, to: n, lineStarts: single }];
  const greedy = greedyLines(0, n, maxWidth);
  const count = Math.ceil(greedy.length / maxLines);
  // Cues of roughly equal length read better than full cues followed by a stub.
  for (let c = count; c <= count + 1; c++) {
    const even = evenChunks(c, maxWidth, maxLines);
    if (even) return even;
  }
  const chunks: Chunk[] = [];
  for (let i = 0; i < greedy.length; i += maxLines) {
    const from = greedy[i];
    const to = i + maxLines < greedy.length ? greedy[i + maxLines] : n;
    chunks.push({ from, to, lineStarts: fitLines(from, to, maxWidth, maxLines) ?? greedy.slice(i, i + maxLines) });
  }
  return chunks;
}

function chunkLines(line: string, chunk: Chunk): string[] {
  const out: string[] = [];
  const ls = chunk.lineStarts;
  for (let l = 0; l < ls.length; l++) {
    const to = l + 1 < ls.length ? ls[l + 1] : chunk.to;
    out.push(line.slice(uStart[ls[l]], uEnd[to - 1]));
  }
  return out;
}

function keptLines(text: string, maxLineWidth: number, maxLines: number, simple = SIMPLE_LAYOUT.test(text)): string[] | null {
  if (text.indexOf('\n') === -1) {
    if (simple) return text.length <= maxLineWidth ? [text] : null;
    return text.length <= 2 * maxLineWidth + 8 && displayWidth(text) <= maxLineWidth ? [text] : null;
  }
  const lines = text.split('\n');
  if (lines.length > maxLines) return null;
  for (const l of lines) if (displayWidth(l) > maxLineWidth) return null;
  return lines;
}

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
  buildUnits(line, maxLineWidth);
  if (uCount === 0) return [];
  return chunkUnits(maxLineWidth, maxLines).map((c) => chunkLines(line, c));
}

// ---------------------------------------------------------------------------
// Word timeline: matches a segment's letters and digits with the words spoken in it

const ASCII_ALNUM = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_ALNUM[c] = 1;
for (let c = 65; c <= 90; c++) ASCII_ALNUM[c] = 1;
for (let c = 97; c <= 122; c++) ASCII_ALNUM[c] = 1;

/**
 * Whether a UTF-16 unit counts when matching text with words. Letters and
 * digits of any script count; punctuation, spaces, symbols and combining
 * marks don't. Exact only for ASCII, but applied the same way to both sides.
 */
function countsForMatch(c: number): boolean {
  if (c < 128) return ASCII_ALNUM[c] === 1;
  if (c <= 0xbf) return c === 0xaa || c === 0xb5 || c === 0xba;
  if (c === 0xd7 || c === 0xf7) return false;
  if (c >= 0x300 && c <= 0x36f) return false;
  if (c >= 0x2000 && c <= 0x2bff) return false;
  if (c >= 0x3000 && c <= 0x303f) return false;
  if (c >= 0xfe10 && c <= 0xfe6f) return false;
  if (c >= 0xff00 && c <= 0xff0f) return false;
  if (c >= 0xff1a && c <= 0xff20) return false;
  if (c >= 0xff3b && c <= 0xff40) return false;
  if (c >= 0xff5b && c <= 0xff65) return false;
  return true;
}

function sameLetter(a: number, b: number): boolean {
  if (a === b) return true;
  if (a < 128 && b < 128) return (a | 0x20) === (b | 0x20) && ASCII_ALNUM[a] === 1 && a > 64 && b > 64;
  return String.fromCharCode(a).toLowerCase() === String.fromCharCode(b).toLowerCase();
}

const NON_ASCII_MISMATCH = Symbol('non-ASCII mismatch');

let wordStartScratch = new Float64Array(0);
let wordEndScratch = new Float64Array(0);

class WordTimeline {
  readonly length: number;
  readonly start: Float64Array;
  readonly end: Float64Array;
  /** The caller's words when valid and in time order (the usual case: nothing is copied)... */
  private readonly words: readonly WordInput[] | null = null;
  /** ...else their texts in time order. Also used once texts are composed to NFC (lazily, when a word that is not NFC fails to match). */
  private texts: string[] | null = null;
  /** First word not yet matched or skipped. */
  pos = 0;
  private composed = false;

  constructor(words: readonly WordInput[]) {
    const count = words.length;
    // Scratch buffers reused across calls (buildCues is synchronous): no 400 KB allocation per export.
    if (wordStartScratch.length < count) {
      wordStartScratch = new Float64Array(Math.max(count, wordStartScratch.length * 2));
      wordEndScratch = new Float64Array(wordStartScratch.length);
    }
    const start = wordStartScratch;
    const end = wordEndScratch;
    let valid = true;
    let sorted = true;
    for (let i = 0; i < count; i++) {
      const w = words[i];
      if (!w || typeof w.text !== 'string' || typeof w.start !== 'number' || !Number.isFinite(w.start)) {
        valid = false;
        start[i] = NaN;
        continue;
      }
      const s = Math.round(w.start * 1000);
      const e = typeof w.end === 'number' && Number.isFinite(w.end) ? Math.round(w.end * 1000) : s;
      if (i > 0 && s < start[i - 1]) sorted = false;
      start[i] = s;
      end[i] = e < s ? s : e;
    }
    if (valid && sorted) {
      // The usual case: use the caller's words as they are, no copies of the texts.
      this.length = count;
      this.start = start;
      this.end = end;
      this.words = words;
      return;
    }
    const idx: number[] = [];
    for (let i = 0; i < count; i++) if (!Number.isNaN(start[i])) idx.push(i);
    idx.sort((x, y) => start[x] - start[y] || x - y);
    this.length = idx.length;
    this.start = new Float64Array(idx.length);
    this.end = new Float64Array(idx.length);
    const text: string[] = [];
    idx.forEach((from, to) => {
      this.start[to] = start[from];
      this.end[to] = end[from];
      text.push(words[from].text);
    });
    this.texts = text;
  }

  private wordText(j: number): string {
    return this.texts !== null ? this.texts[j] : this.words![j].text;
  }

  /**
   * Matches the letters and digits of `line` with the next words and returns
   * the time (ms) at which each offset in `offsets` (ascending char offsets
   * into line) is spoken, or null when the words don't spell the line. Matched
   * words are consumed.
   */
  timesAt(line: string, offsets: number[], segStart: number, segEnd: number): number[] | null {
    const n = this.length;
    // Words before the segment (their middle is before its start) belong to earlier segments.
    let p = this.pos;
    while (p < n && (this.start[p] + this.end[p]) / 2 < segStart) p++;
    this.pos = p;
    // The first word may also start a little early (or the previous one run late).
    for (const first of p > 0 && segStart - this.start[p - 1] <= WORD_TOLERANCE_MS ? [p, p - 1] : [p]) {
      let times = this.match(first, line, offsets, segEnd);
      if (times === NON_ASCII_MISMATCH && !this.composed) {
        this.composed = true;
        const texts: string[] = [];
        for (let i = 0; i < n; i++) texts.push(this.wordText(i).normalize('NFC'));
        this.texts = texts;
        times = this.match(first, line, offsets, segEnd);
      }
      if (times !== null && times !== NON_ASCII_MISMATCH) return times;
    }
    return null;
  }

  private match(p: number, line: string, offsets: number[], segEnd: number): number[] | null | typeof NON_ASCII_MISMATCH {
    const n = this.length;
    const last = segEnd + WORD_TOLERANCE_MS;
    if (p >= n || this.start[p] > last) return null;
    const times = new Array<number>(offsets.length);
    let next = 0; // next offset to time
    let j = p;
    let word = this.wordText(j);
    let c = 0;
    let seenInWord = false;
    let matched = 0;
    for (let i = 0; i < line.length; i++) {
      const a = line.charCodeAt(i);
      if (!countsForMatch(a)) continue;
      for (;;) {
        if (c >= word.length) {
          j++;
          if (j >= n || this.start[j] > last) return null;
          word = this.wordText(j);
          c = 0;
          seenInWord = false;
          continue;
        }
        if (countsForMatch(word.charCodeAt(c))) break;
        c++;
      }
      if (c === 0 && word.length > 1 && line.startsWith(word, i)) {
        // Fast path: the word is spelled exactly here (the usual case), compare it in one go.
        while (next < offsets.length && offsets[next] <= i) times[next++] = this.start[j];
        if (next >= offsets.length || offsets[next] >= i + word.length) {
          seenInWord = true;
          matched++;
          c = word.length;
          i += word.length - 1;
          continue;
        }
      }
      const b = word.charCodeAt(c);
      if (!sameLetter(a, b)) {
        // A decomposed word ("e" + U+0301) never matches the composed segment text: compose and retry once.
        return a >= 128 || b >= 128 ? (word.normalize('NFC') !== word ? NON_ASCII_MISMATCH : null) : null;
      }
      while (next < offsets.length && offsets[next] <= i) {
        times[next++] = seenInWord ? Math.round(this.start[j] + ((this.end[j] - this.start[j]) * c) / word.length) : this.start[j];
      }
      seenInWord = true;
      matched++;
      c++;
    }
    if (matched === 0) return null;
    for (; c < word.length; c++) if (countsForMatch(word.charCodeAt(c))) return null; // line ended mid-word
    for (; next < offsets.length; next++) times[next] = this.end[j]; // offsets after the last letter
    this.pos = j + 1;
    return times;
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
  /** Simple layout (see isSimpleChar); false for multi-line text. */
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
    const text = neutraliseArrows(normaliseText(seg.text));
    if (text === '') continue;
    const simple = lastFlags === 0 && text.indexOf('\n') === -1;
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
    const simple = seg.simple;
    const keep = keptLines(seg.text, opts.maxLineWidth, opts.maxLines, simple);
    if (keep) {
      cues.push({ start: seg.start, end: seg.end, lines: keep });
      continue;
    }
    const line = seg.text.indexOf('\n') === -1 ? seg.text : seg.text.split('\n').join(' ');
    buildUnits(line, opts.maxLineWidth, simple);
    let chunks = chunkUnits(opts.maxLineWidth, opts.maxLines);
    if (chunks.length > seg.end - seg.start) {
      // Degenerate (more pieces than milliseconds): one cue with every line.
      const lineStarts: number[] = [];
      for (const c of chunks) lineStarts.push(...c.lineStarts);
      chunks = [{ from: 0, to: uCount, lineStarts }];
    }
    if (chunks.length === 1) {
      cues.push({ start: seg.start, end: seg.end, lines: chunkLines(line, chunks[0]) });
      continue;
    }
    const starts = chunkStarts(line, chunks, seg, timeline);
    for (let k = 0; k < chunks.length; k++) {
      const end = k + 1 < chunks.length ? starts[k + 1] : seg.end;
      cues.push({ start: starts[k], end, lines: chunkLines(line, chunks[k]) });
    }
  }
  return cues;
}

/** Start time (ms) of each chunk of a split segment: from word timings when they spell the text, else by length. */
function chunkStarts(line: string, chunks: Chunk[], seg: Timed, timeline: WordTimeline | null): number[] {
  const count = chunks.length;
  let starts: number[] | null = null;
  if (timeline) {
    const offsets: number[] = [];
    for (let k = 1; k < count; k++) offsets.push(uStart[chunks[k].from]);
    const times = timeline.timesAt(line, offsets, seg.start, seg.end);
    if (times) starts = [seg.start, ...times];
  }
  if (!starts) {
    starts = [seg.start];
    const duration = seg.end - seg.start;
    const total = uPos[uCount] + 1;
    for (let k = 1; k < count; k++) starts.push(seg.start + Math.round((duration * uPos[chunks[k].from]) / total));
  }
  // Strictly increasing and inside the segment, so that no piece is empty.
  for (let k = 1; k < count; k++) {
    const lo = starts[k - 1] + 1;
    const hi = seg.end - (count - k);
    starts[k] = Math.min(Math.max(starts[k], lo), hi);
  }
  return starts;
}
