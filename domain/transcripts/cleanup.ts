import naughtyWords from 'naughty-words';

// Clean-up of a transcript's words before it is stored (`filter_profanity`, `disfluencies: false`): applied alike to
// the text, each segment and each word, so every export carries it; a word keeps its times, a dropped one takes them
// with it. The unfiltered text is never stored.
//
// Profanity: the word lists of "naughty-words" (Shutterstock's List of Dirty, Naughty, Obscene and Otherwise Bad
// Words, CC-BY-4.0), per language: a listed word keeps its first letter and the rest become asterisks ("f***").
// Lists of spaced languages match whole words (and their phrases, word by word); ja, ko and zh lists match inside
// the text, as those languages do not space their words.
//
// Disfluencies: the hesitation fillers of each language and a word said twice in a row ("I I think") are dropped.

/** The languages with a profanity list (capabilities list them). */
export const PROFANITY_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'ja', 'ko', 'zh'] as const;

/** Hesitation fillers per language: sounds, never words with a meaning of their own ("like", "este", "あの" stay). */
const FILLERS: Record<string, readonly string[]> = {
  en: ['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'hmm', 'mm', 'mmm', 'ah'],
  es: ['eh', 'em', 'ehm', 'mmm', 'mm', 'ah'],
  fr: ['euh', 'heu', 'euhm', 'hum', 'mmm', 'mm'],
  de: ['äh', 'ähm', 'öh', 'öhm', 'hm', 'hmm', 'mhm', 'mm'],
  pt: ['eh', 'ehm', 'hum', 'ahn', 'hã', 'mmm', 'mm'],
  it: ['ehm', 'eh', 'ehmm', 'uhm', 'mmm', 'mm'],
  nl: ['eh', 'ehm', 'uh', 'uhm', 'hm', 'mm'],
  // Japanese is written without spaces: its fillers are removed where they occur in the text.
  ja: ['えーと', 'えっと', 'えー', 'あー', 'うーん', 'んー'],
  ko: ['음', '어', '에'],
};
/** The languages whose fillers `disfluencies: false` drops (repetitions are dropped in every language). */
export const DISFLUENCY_LANGUAGES = Object.keys(FILLERS);
/** Written without spaces between words: fillers are removed inside the text. */
const UNSPACED = new Set(['ja', 'zh']);
/** Listed words are matched inside the text: no spaces, or (Korean) particles written onto the word. */
const MATCHED_INSIDE = new Set(['ja', 'ko', 'zh']);

export interface CleanupOptions {
  filterProfanity: boolean;
  /** false: fillers and immediate repetitions are dropped. */
  disfluencies: boolean;
}

export const NO_CLEANUP: CleanupOptions = { filterProfanity: false, disfluencies: true };

interface Timed {
  start: number;
  end: number;
  text: string;
}

/** The base of a BCP 47 tag ("pt-BR" → "pt"); null for none. */
function baseLanguage(tag: string | null | undefined): string | null {
  return tag ? (tag.toLowerCase().split('-')[0] ?? null) : null;
}

const lists = new Map<string, { words: Set<string>; phrases: string[][]; inside: string[] }>();

function profanityList(language: string) {
  let list = lists.get(language);
  if (list) return list;
  const entries = ((naughtyWords as Record<string, string[] | undefined>)[language] ?? []).map((w) => w.toLowerCase().normalize('NFC'));
  if (MATCHED_INSIDE.has(language)) {
    // Inside the text only entries of two characters or more in the language's own script: a single character
    // (zh 性, ja 裸) is part of many ordinary words (可能性, "possibility"), and a Latin entry ("sm", "xx") would be
    // found inside other words. Latin entries are matched as whole words where words are spaced (ko).
    const compact = entries.map((e) => e.replace(/\s+/g, ''));
    list = {
      words: new Set(compact.filter((e) => /^[\x20-\x7e]+$/.test(e))),
      phrases: [],
      inside: compact.filter((e) => !/^[\x20-\x7e]+$/.test(e) && Array.from(e).length >= 2),
    };
  } else {
    list = {
      words: new Set(entries.filter((e) => !/\s/.test(e))),
      phrases: entries.filter((e) => /\s/.test(e)).map((e) => e.split(/\s+/)),
      inside: [],
    };
  }
  lists.set(language, list);
  return list;
}

/** A word's letters and digits, lower case: what the lists and the filler sets are compared with. */
const core = (token: string) =>
  token
    .normalize('NFC')
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/** The first letter kept, every other letter or digit an asterisk; punctuation around it stays. */
function mask(token: string): string {
  let seen = false;
  return Array.from(token)
    .map((ch) => {
      if (!/[\p{L}\p{N}]/u.test(ch)) return ch;
      if (!seen) {
        seen = true;
        return ch;
      }
      return '*';
    })
    .join('');
}

function maskInside(text: string, inside: string[]): string {
  let out = text;
  for (const entry of inside) {
    if (!entry) continue;
    const at = out.toLowerCase().indexOf(entry);
    if (at === -1) continue;
    out = out.split(new RegExp(entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu')).join(mask(entry));
  }
  return out;
}

/**
 * Which tokens of a run of tokens to mask and which to drop. A token is kept unless it is a filler or the same word
 * as the one kept before it; it is masked when listed, alone or as part of a listed phrase.
 */
function decide(tokens: string[], language: string | null, options: CleanupOptions): Array<'keep' | 'mask' | 'drop'> {
  const cores = tokens.map(core);
  const out: Array<'keep' | 'mask' | 'drop'> = tokens.map(() => 'keep');
  if (options.filterProfanity && language) {
    const list = profanityList(language);
    cores.forEach((c, i) => {
      if (list.words.has(c)) out[i] = 'mask';
    });
    for (const phrase of list.phrases)
      for (let i = 0; i + phrase.length <= cores.length; i++)
        if (phrase.every((p, k) => cores[i + k] === p)) for (let k = 0; k < phrase.length; k++) out[i + k] = 'mask';
  }
  if (!options.disfluencies) {
    const fillers = new Set(language ? (FILLERS[language] ?? []) : []);
    let previous: string | null = null;
    cores.forEach((c, i) => {
      if (c === '') return;
      if (fillers.has(c) || c === previous) out[i] = 'drop';
      else previous = c;
    });
  }
  return out;
}

const isNoop = (o: CleanupOptions) => !o.filterProfanity && o.disfluencies;

/** Listed words masked where they occur inside the text (languages of MATCHED_INSIDE only). */
function maskListedInside(text: string, lang: string | null, options: CleanupOptions): string {
  return lang && MATCHED_INSIDE.has(lang) && options.filterProfanity ? maskInside(text, profanityList(lang).inside) : text;
}

/** The fillers of an unspaced language removed where they occur. */
function removeFillersInside(text: string, lang: string): string {
  let out = text;
  // With the comma that follows it ("えーと、").
  for (const f of FILLERS[lang] ?? []) out = out.replace(new RegExp(`${f}[、，,]?`, 'gu'), '');
  return out.replace(/\s{2,}/g, ' ').trim();
}

/** A text cleaned token by token (tokens are what whitespace separates). */
export function cleanText(text: string, language: string | null | undefined, options: CleanupOptions): string {
  if (isNoop(options)) return text;
  const lang = baseLanguage(language);
  const masked = maskListedInside(text, lang, options);
  if (lang && UNSPACED.has(lang)) return options.disfluencies ? masked : removeFillersInside(masked, lang);
  // Tokens with the whitespace before each, so a kept text keeps its spacing and line breaks (align_text).
  const parts = masked.split(/(\s+)/);
  const tokens = parts.filter((_, i) => i % 2 === 0);
  const before = tokens.map((_, k) => (k === 0 ? '' : parts[2 * k - 1]!));
  const verdicts = decide(tokens, lang, options);
  const kept: Array<{ token: string; before: string }> = [];
  let carried: string | null = null;
  tokens.forEach((t, i) => {
    if (verdicts[i] === 'drop') {
      // A dropped word's closing punctuation ("um." ends the sentence) moves to the word before it; a line break
      // before it stays.
      const tail = /[.!?…]+$/u.exec(t)?.[0];
      const last = kept[kept.length - 1];
      if (tail && last && !/[.!?…,;:]$/u.test(last.token)) last.token += tail;
      if (before[i]!.includes('\n')) carried = before[i]!;
      return;
    }
    kept.push({ token: verdicts[i] === 'mask' ? mask(t) : t, before: carried ?? before[i]! });
    carried = null;
  });
  return kept
    .map((k, i) => (i === 0 ? k.before.replace(/^\s+$/, '') : k.before || ' ') + k.token)
    .join('')
    .trim();
}

/** Words cleaned as one run (a repetition spans segments), each kept word with its own times. */
export function cleanWords<W extends Timed>(words: W[], language: string | null | undefined, options: CleanupOptions): W[] {
  if (isNoop(options)) return words;
  const lang = baseLanguage(language);
  const masked = words.map((w) => ({ ...w, text: maskListedInside(w.text, lang, options) }));
  if (lang && UNSPACED.has(lang)) {
    if (options.disfluencies) return masked;
    // A word that was all filler goes, with its times.
    return masked
      .map((w) => ({ ...w, text: removeFillersInside(w.text, lang) }))
      .filter((w, i) => w.text.trim() !== '' || words[i]!.text.trim() === '');
  }
  const verdicts = decide(
    masked.map((w) => w.text.trim()),
    lang,
    options,
  );
  return masked.flatMap((w, i) => (verdicts[i] === 'drop' ? [] : verdicts[i] === 'mask' ? [{ ...w, text: mask(w.text) }] : [w]));
}

/**
 * The transcript's words cleaned as asked: its text, every segment (in its own language where it has one) and every
 * word. A segment left with no words is dropped.
 */
export function cleanTranscriptWords<S extends Timed & { language?: string | null }, W extends Timed>(
  content: { text: string; language: string | null; segments: S[]; words: W[] | null },
  options: CleanupOptions,
): { text: string; segments: S[]; words: W[] | null } {
  if (options.filterProfanity === false && options.disfluencies) return content;
  const segments = content.segments
    .map((s) => ({ ...s, text: cleanText(s.text, s.language ?? content.language, options) }))
    .filter((s) => s.text.trim() !== '');
  return {
    text: cleanText(content.text, content.language, options),
    segments,
    words: content.words && cleanWords(content.words, content.language, options),
  };
}
