// The Unicode range tables of the service, in one place: which characters
// need no clean-up, which lay out one column wide without breaking, which take
// no column or two. core/text.ts and domain/transcripts/display-width.ts test
// characters against them.

/** Inclusive code point ranges, ascending. */
export type Ranges = readonly (readonly [number, number])[];

/** Characters that need no Unicode clean-up above U+02FF (no controls, invisible characters, special spaces, line separators or combining marks). */
export const CLEAN_RANGES: Ranges = [
  [0x370, 0x482],
  [0x48a, 0x52f],
  [0x1e00, 0x1fff],
  [0x2010, 0x2027],
  [0x2030, 0x205e],
  [0x20a0, 0x20cf],
  [0x2100, 0x2bff],
  [0x3001, 0x3098],
  [0x309b, 0xd7ff],
  [0xf900, 0xfdff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfefe],
  [0xff00, 0xfff8],
];

/** Characters one column wide at which a line never breaks (so a text of them and single spaces lays out by length): Latin, Greek, Cyrillic. */
export const SIMPLE_LAYOUT_RANGES: Ranges = [
  [0x20, 0x7e],
  [0xa0, 0x2ff],
  [0x370, 0x482],
  [0x48a, 0x52f],
  [0x1e00, 0x1fff],
];

/** Code points that take no column besides the marks (\p{M}): joiners, bidi controls, variation selectors, skin tones, tags. */
export const ZERO_WIDTH_RANGES: Ranges = [
  [0x300, 0x36f],
  [0x200c, 0x200f],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
  [0xfe00, 0xfe0f],
  [0x1f3fb, 0x1f3ff],
  [0xe0000, 0xe01ef],
];

/** Code points two columns wide: Hangul, CJK, fullwidth forms, emoji. */
export const WIDE_RANGES: Ranges = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1b000, 0x1b2ff],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

export function inRanges(cp: number, ranges: Ranges): boolean {
  for (const [from, to] of ranges) {
    if (cp < from) return false; // ascending: nothing later matches
    if (cp <= to) return true;
  }
  return false;
}

/** A regular expression matching text made only of these ranges (BMP ranges only). */
export function onlyRangesPattern(ranges: Ranges): RegExp {
  const hex = (cp: number) => `\\u${cp.toString(16).padStart(4, '0')}`;
  return new RegExp(`^[${ranges.map(([a, b]) => `${hex(a)}-${hex(b)}`).join('')}]*$`);
}
