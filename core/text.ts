// Text normalisation shared by the caption parsers (integrations/platforms)
// and the cue builder. In the kernel (core/): it imports nothing of the service.

import { CLEAN_RANGES, inRanges, SIMPLE_LAYOUT_RANGES } from './unicode';

// Characters that need no Unicode clean-up (no controls, invisible
// characters, special spaces, line separators or combining marks).
function isCleanChar(c: number): boolean {
  if (c < 0x300) return c >= 0xa0 ? c !== 0xad : c >= 0x20 && c <= 0x7e;
  return inRanges(c, CLEAN_RANGES);
}

// Characters one column wide at which a line never breaks (core/unicode.ts).
const isSimpleChar = (c: number): boolean => inRanges(c, SIMPLE_LAYOUT_RANGES);

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

/** A normalised text and what the classification pass learnt about it on the way. */
export interface NormalisedText {
  text: string;
  /**
   * Every character is one column wide and no line breaks between two of them
   * (see isSimpleChar), so single lines lay out by string length alone. Says
   * nothing about "\n".
   */
  simpleChars: boolean;
}

/**
 * normaliseText, also telling whether the result is made of simple characters
 * (the cue layout that follows needs that, and the classification pass already
 * found it out).
 */
export function normaliseTextClassified(text: string): NormalisedText {
  if (typeof text !== 'string') return { text: '', simpleChars: true };
  const flags = classify(text);
  if ((flags & DIRTY) === 0) {
    const simpleChars = (flags & COMPLEX) === 0;
    if ((flags & SPACING) === 0) return { text, simpleChars };
    return { text: text.replace(DOUBLE_SPACES, ' ').trim(), simpleChars };
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
  return { text: t, simpleChars: (classify(t) & COMPLEX) === 0 };
}

/**
 * Normalises transcript text: newlines become "\n", control and zero-width
 * characters are removed, runs of spaces collapse to one, every line is
 * trimmed and blank lines are dropped; decomposed text is composed (NFC).
 * Returns "" when nothing visible is left.
 */
export function normaliseText(text: string): string {
  return normaliseTextClassified(text).text;
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

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML: the five characters HTML gives meaning to, escaped (the dashboard's templates, search's marks). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}
