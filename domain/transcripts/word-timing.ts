import type { Word } from '../../core/timing';
// Word timeline: matches a segment's letters and digits with the words spoken
// in it, in one streaming pass over the words of the whole transcript.

/** A word's timing and text (its confidence plays no part in alignment). */
export type WordInput = Pick<Word, 'start' | 'end' | 'text'>;

/** How far (ms) a segment's first word may start before the segment itself. */
const WORD_TOLERANCE_MS = 500;

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

/**
 * Start and end times (ms) of a transcript's words, for one WordTimeline after
 * another: a two-hour transcript has ~23,500 words, and allocating their
 * ~400 KB per export made word-timed cue building ~10 % slower (allocation
 * and garbage collection). Keep one and pass it to each timeline; a timeline
 * is used up before the next one is made (cue building is synchronous).
 */
export class WordTimeBuffers {
  start = new Float64Array(0);
  end = new Float64Array(0);

  /** Makes room for count words (the contents are not kept). */
  reserve(count: number): void {
    if (this.start.length >= count) return;
    this.start = new Float64Array(Math.max(count, this.start.length * 2));
    this.end = new Float64Array(this.start.length);
  }
}

/**
 * The words of a transcript in time order (integer ms), consumed segment by
 * segment as their letters and digits are matched with the segments' text.
 */
export class WordTimeline {
  private readonly length: number;
  private readonly start: Float64Array;
  private readonly end: Float64Array;
  /** The caller's words when valid and in time order (the usual case: nothing is copied)... */
  private readonly words: readonly WordInput[] | null = null;
  /** ...else their texts in time order. Also used once texts are composed to NFC (lazily, when a word that is not NFC fails to match). */
  private texts: string[] | null = null;
  /** First word not yet matched or skipped. */
  private pos = 0;
  private composed = false;

  /** `buffers`: where the times are kept when the words are valid and in order (the usual case). */
  constructor(words: readonly WordInput[], buffers = new WordTimeBuffers()) {
    const count = words.length;
    buffers.reserve(count);
    const start = buffers.start;
    const end = buffers.end;
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
