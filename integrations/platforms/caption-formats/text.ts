import { normaliseText } from '../../../core/text';

// Caption text arrives escaped (XML, HTML inside XML, WebVTT) and decorated
// (styling tags, karaoke timestamps, zero-width spacers). Segments keep only
// what a reader sees.

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f' };
const ENTITY = /&(#x[0-9a-f]+|#\d+|[a-z]+);/gi;
// Only real markup: a tag name right after "<" (or "</"), or a WebVTT cue timestamp. "1 < 2 > 0" survives.
const TAG = /<\/?[a-z][^<>]*>|<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{1,3}>/gi;

export function decodeEntities(text: string): string {
  if (text.indexOf('&') === -1) return text;
  return text.replace(ENTITY, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

export function stripTags(text: string): string {
  return text.indexOf('<') === -1 ? text : text.replace(TAG, '');
}

/**
 * Visible text of one cue, lines kept ("\n"), blank lines dropped; "" when
 * nothing visible is left. `markup`: the text may hold tags and entities
 * (WebVTT, srv1 which is HTML escaped inside XML); false for already-plain text.
 */
export function cueText(raw: string, markup: boolean): string {
  const plain = markup ? decodeEntities(stripTags(raw)) : raw;
  // Bidi marks are invisible too; the shared normaliser removes the zero-width ones.
  return normaliseText(plain.replace(/[\u200e\u200f]/g, ''));
}
