// Display width: how many columns text takes on screen, and the character
// clusters a line never breaks inside.

// Text whose every UTF-16 unit is one column wide and breaks only at spaces (see isSimpleChar in text.ts).
const SIMPLE_LAYOUT = /^[\x20-\x7e\u00a0-\u02ff\u0370-\u0482\u048a-\u052f\u1e00-\u1fff]*$/;
const MARK = /\p{M}/u;

/** Whether the text lays out by string length alone: one column per UTF-16 unit, breaks only at spaces. */
export function hasSimpleLayout(text: string): boolean {
  return SIMPLE_LAYOUT.test(text);
}

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
