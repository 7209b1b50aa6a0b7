import { inRanges, onlyRangesPattern, SIMPLE_LAYOUT_RANGES, WIDE_RANGES, ZERO_WIDTH_RANGES } from '../../core/unicode';

// Display width: how many columns text takes on screen, and the character
// clusters a line never breaks inside.

// Text whose every UTF-16 unit is one column wide and breaks only at spaces (core/unicode.ts).
const SIMPLE_LAYOUT = onlyRangesPattern(SIMPLE_LAYOUT_RANGES);
const MARK = /\p{M}/u;

/** Whether the text lays out by string length alone: one column per UTF-16 unit, breaks only at spaces. */
export function hasSimpleLayout(text: string): boolean {
  return SIMPLE_LAYOUT.test(text);
}

function isZeroWidth(cp: number): boolean {
  if (cp < 0x300) return false;
  return inRanges(cp, ZERO_WIDTH_RANGES) || MARK.test(String.fromCodePoint(cp));
}

const isWide = (cp: number): boolean => cp >= 0x1100 && inRanges(cp, WIDE_RANGES);

function cpWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

function isRegionalIndicator(cp: number): boolean {
  return cp >= 0x1f1e6 && cp <= 0x1f1ff;
}

/**
 * A reader of character clusters: a code point with the marks, variation
 * selectors and skin tones that follow it, emoji joined by ZWJ (one glyph, so
 * the joined parts add no width) and flag pairs. Lines never break inside a
 * cluster. An approximation of Unicode grapheme clusters that is cheap enough
 * for long transcripts.
 */
export class ClusterReader {
  /** Columns of the cluster last read. */
  width = 0;
  /** First code point of the cluster last read. */
  first = 0;
  /** Last code point of the cluster last read. */
  last = 0;

  /** Reads the cluster starting at i and returns its end (exclusive). */
  read(text: string, i: number): number {
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
    this.width = width;
    this.first = first;
    this.last = last;
    return j;
  }
}

/** Columns a string occupies on screen (approximation of East Asian Width; marks and joiners are 0). */
export function displayWidth(text: string): number {
  if (SIMPLE_LAYOUT.test(text)) return text.length;
  const cluster = new ClusterReader();
  let w = 0;
  for (let i = 0; i < text.length;) {
    i = cluster.read(text, i);
    w += cluster.width;
  }
  return w;
}
