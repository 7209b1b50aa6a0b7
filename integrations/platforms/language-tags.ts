// Language tags as the platforms write them, compared the way a caller means
// them: `en` asks for any English, `en-US` prefers US English but takes `en`
// (and then any other English) before nothing.

// Deprecated codes the videosite still uses for some tracks (iw = Hebrew, ...).
const ALIASES: Record<string, string> = { iw: 'he', in: 'id', ji: 'yi', jw: 'jv', mo: 'ro' };

// ISO 639-2/3 codes in the shortvideo platform's LanguageCodeName (`eng-US`,
// `cmn-Hans-CN`) to the two-letter BCP 47 primary subtag. Codes not listed are
// kept: a three-letter primary subtag is valid BCP 47 too.
const THREE_TO_TWO: Record<string, string> = {
  ara: 'ar',
  ben: 'bn',
  bul: 'bg',
  ces: 'cs',
  cmn: 'zh',
  dan: 'da',
  deu: 'de',
  ell: 'el',
  eng: 'en',
  est: 'et',
  fas: 'fa',
  fin: 'fi',
  fra: 'fr',
  heb: 'he',
  hin: 'hi',
  hrv: 'hr',
  hun: 'hu',
  ind: 'id',
  ita: 'it',
  jpn: 'ja',
  kor: 'ko',
  lav: 'lv',
  lit: 'lt',
  msa: 'ms',
  nld: 'nl',
  nob: 'nb',
  nor: 'no',
  pol: 'pl',
  por: 'pt',
  ron: 'ro',
  rus: 'ru',
  slk: 'sk',
  slv: 'sl',
  spa: 'es',
  srp: 'sr',
  swe: 'sv',
  tam: 'ta',
  tel: 'te',
  tha: 'th',
  tur: 'tr',
  ukr: 'uk',
  urd: 'ur',
  vie: 'vi',
  yue: 'zh',
  zho: 'zh',
};

/** `eng-US` → `en-US`, `cmn-Hans-CN` → `zh-Hans-CN`, `pt_BR` → `pt-BR`; BCP 47 casing (region upper, script title case). */
export function normaliseLanguageTag(tag: string): string {
  const parts = tag
    .trim()
    .replace(/_/g, '-')
    .split('-')
    .filter((p) => p !== '');
  if (parts.length === 0) return '';
  const primary = parts[0].toLowerCase();
  const rest = parts
    .slice(1)
    .map((p) => (p.length === 2 ? p.toUpperCase() : p.length === 4 ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p.toLowerCase()));
  return [THREE_TO_TWO[primary] ?? primary, ...rest].join('-');
}

function comparable(tag: string): string[] {
  const parts = normaliseLanguageTag(tag).toLowerCase().split('-');
  parts[0] = ALIASES[parts[0]] ?? parts[0];
  return parts;
}

/**
 * How well a track's language answers a requested tag: 3 exact, 2 one is a
 * more specific form of the other (`en` / `en-US`), 1 same language other
 * variant (`en-US` / `en-GB`), 0 no match.
 */
export function languageMatch(requested: string, track: string): 0 | 1 | 2 | 3 {
  const a = comparable(requested);
  const b = comparable(track);
  if (a[0] !== b[0] || a[0] === '') return 0;
  if (a.join('-') === b.join('-')) return 3;
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  return shorter.every((part, i) => longer[i] === part) ? 2 : 1;
}
