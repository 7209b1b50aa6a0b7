import { PII_TYPE_NAMES } from '../../core/pii-types';
import { primaryLanguage } from '../../integrations/recognizers/types';

// `redact_pii`: personal data in the transcript replaced by its kind (`[EMAIL]`, `[PHONE]` …) before anything is
// stored, in the text, every segment and every word (a redacted run of words becomes one word spanning their
// times). What rules and checksums find in any language is here: e-mail addresses (written, and spoken as "john at
// example dot com"), phone numbers (7–15 digits, written or read out digit by digit), payment card numbers (13–19
// digits passing the Luhn check) and IBANs (the ISO 13616 mod-97 check). Names, street addresses and ID numbers
// need a personal-data model, which this deployment does not run yet: asking for them is refused at submit.
// Names of people (`person`) in English come from compromise's people() (a maintained rule-and-lexicon tagger with
// its lexicon in the package, no model to download); no such tagger here covers the other languages, so a
// `person` redaction of another language is refused rather than done halfway (PERSON_LANGUAGES).

export const PII_TYPES = PII_TYPE_NAMES;
export type PiiType = (typeof PII_TYPES)[number];

/** The types found by rules and checksums, in every language: what `redact_pii` redacts by default. */
export const RULE_PII_TYPES = ['email', 'phone', 'card', 'iban'] as const satisfies readonly PiiType[];
/** The kinds this deployment redacts: the rule kinds, and names in the languages of PERSON_LANGUAGES. */
export const REDACTED_PII_TYPES = [...RULE_PII_TYPES, 'person'] as const satisfies readonly PiiType[];
/** The languages whose names of people are found (`person`). */
export const PERSON_LANGUAGES = ['en'] as const;

/** Whether `person` can be redacted in `language` (its language subtag). */
export function personLanguageCovered(language: string | null | undefined): boolean {
  const lang = baseLanguage(language);
  return lang !== null && (PERSON_LANGUAGES as readonly string[]).includes(lang);
}

export const PII_PLACEHOLDERS: Record<PiiType, string> = {
  person: '[PERSON]',
  email: '[EMAIL]',
  phone: '[PHONE]',
  card: '[CARD]',
  iban: '[IBAN]',
  address: '[ADDRESS]',
  id: '[ID]',
};

/** Digits read out one by one, per language (a transcript writes what was said). */
const SPOKEN_DIGITS: Record<string, Record<string, string>> = {
  en: { zero: '0', oh: '0', o: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9' },
  es: { cero: '0', uno: '1', una: '1', dos: '2', tres: '3', cuatro: '4', cinco: '5', seis: '6', siete: '7', ocho: '8', nueve: '9' },
  fr: { zéro: '0', zero: '0', un: '1', une: '1', deux: '2', trois: '3', quatre: '4', cinq: '5', six: '6', sept: '7', huit: '8', neuf: '9' },
  de: {
    null: '0',
    eins: '1',
    ein: '1',
    zwei: '2',
    zwo: '2',
    drei: '3',
    vier: '4',
    fünf: '5',
    sechs: '6',
    sieben: '7',
    acht: '8',
    neun: '9',
  },
  pt: {
    zero: '0',
    um: '1',
    uma: '1',
    dois: '2',
    duas: '2',
    três: '3',
    tres: '3',
    quatro: '4',
    cinco: '5',
    seis: '6',
    meia: '6',
    sete: '7',
    oito: '8',
    nove: '9',
  },
  it: { zero: '0', uno: '1', una: '1', due: '2', tre: '3', quattro: '4', cinque: '5', sei: '6', sette: '7', otto: '8', nove: '9' },
};
/**
 * Words a recognizer writes for a digit said between digits ("555123 for 567"): read as that digit only inside a
 * run of digits, never at its edges ("call me for 5 minutes" stays).
 */
const DIGIT_HOMOPHONES: Record<string, Record<string, string>> = { en: { for: '4', to: '2', too: '2', won: '1' } };
/** "double five" (en): the digit twice. */
const REPEATS: Record<string, Record<string, number>> = { en: { double: 2, triple: 3 } };
/** The words for "@" and "." in a spoken address, per language. */
const SPOKEN_AT: Record<string, string[]> = {
  en: ['at'],
  es: ['arroba'],
  fr: ['arobase', 'arrobase', 'arobas'],
  de: ['at', 'ät'],
  pt: ['arroba'],
  it: ['chiocciola'],
};
const SPOKEN_DOT: Record<string, string[]> = {
  en: ['dot'],
  es: ['punto'],
  fr: ['point'],
  de: ['punkt'],
  pt: ['ponto'],
  it: ['punto'],
};
/** The languages whose spoken forms are known (digits, "at", "dot"); written forms are found in every language. */
export const SPOKEN_FORM_LANGUAGES = Object.keys(SPOKEN_DIGITS);

/** Top-level domains a spoken address must end in, so "look at that dot" is never an address. */
const TLDS = new Set(
  'com org net edu gov io co uk us de fr es pt br it nl be ch at eu info biz me tv app dev ai ca au mx ar cl jp kr cn in ru pl se no dk fi ie'.split(
    ' ',
  ),
);

const WRITTEN_EMAIL = /^[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,}$/u;
const DOMAIN = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,}$/u;
const NAME_PART = /^[\p{L}\p{N}_-]+$/u;
const DIGIT_TOKEN = /^\+?[\d().\-/]*\d[\d().\-/]*$/;

export interface PiiSpan {
  /** First token of the span. */
  start: number;
  /** After its last token. */
  end: number;
  type: PiiType;
}

/** A token without the punctuation around it, lower-case: what the rules read. */
function core(token: string): string {
  return token
    .trim()
    .replace(/^[("'«¿¡“‘[]+/u, '')
    .replace(/[)"'»,;:!?…”’\]]+$/u, '')
    .replace(/\.+$/u, '')
    .toLowerCase();
}

function baseLanguage(language: string | null | undefined): string | null {
  return language ? primaryLanguage(language) : null;
}

/** Luhn's check of a card number. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616's check of an IBAN (letters and digits, no spaces). */
export function ibanValid(iban: string): boolean {
  const s = iban.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/**
 * The spans of personal data of the asked types among `tokens` (a text's whitespace-separated tokens, or a
 * transcript's words), in order, not overlapping.
 */
export function findPii(tokens: readonly string[], language: string | null | undefined, types: ReadonlySet<PiiType>): PiiSpan[] {
  const lang = baseLanguage(language);
  const words = tokens.map(core);
  const spans: PiiSpan[] = [];
  const taken = new Uint8Array(tokens.length);
  const add = (start: number, end: number, type: PiiType) => {
    for (let k = start; k < end; k++) if (taken[k]) return;
    taken.fill(1, start, end);
    spans.push({ start, end, type });
  };

  if (types.has('email')) {
    words.forEach((w, i) => WRITTEN_EMAIL.test(w) && add(i, i + 1, 'email'));
    const ats = new Set(lang ? (SPOKEN_AT[lang] ?? []) : []);
    const dots = new Set(lang ? (SPOKEN_DOT[lang] ?? []) : []);
    for (let i = 1; i < words.length - 1; i++) {
      if (!ats.has(words[i]!) && words[i] !== '@') continue;
      // The domain: one written token ("example.com"), or parts joined by spoken dots ending in a known TLD.
      let end = -1;
      if (DOMAIN.test(words[i + 1]!) && TLDS.has(words[i + 1]!.split('.').pop()!)) end = i + 2;
      else {
        let j = i + 1;
        while (
          j + 2 < words.length + 1 &&
          NAME_PART.test(words[j] ?? '') &&
          dots.has(words[j + 1] ?? '') &&
          NAME_PART.test(words[j + 2] ?? '')
        ) {
          j += 2;
          if (TLDS.has(words[j]!)) end = j + 1;
        }
      }
      if (end < 0) continue;
      // The local part: one name, or names joined by spoken or written dots ("john dot smith").
      let start = i - 1;
      if (!NAME_PART.test(words[start]!.replace(/\./g, ''))) continue;
      while (start >= 2 && (dots.has(words[start - 1]!) || words[start - 1] === '_') && NAME_PART.test(words[start - 2]!)) start -= 2;
      add(start, end, 'email');
    }
  }

  if (types.has('iban')) {
    for (let i = 0; i < words.length; i++) {
      if (!/^[a-z]{2}\d{2}[a-z0-9]*$/.test(words[i]!)) continue;
      // Written in one piece or in groups of four: the longest run that passes the check.
      let joined = '';
      let best = -1;
      for (let j = i; j < words.length && joined.length <= 34; j++) {
        if (j > i && !/^[a-z0-9]{1,4}$/.test(words[j]!)) break;
        joined += words[j];
        if (ibanValid(joined)) best = j + 1;
      }
      if (best > 0) add(i, best, 'iban');
    }
  }

  if (types.has('phone') || types.has('card')) {
    const spoken = (lang && SPOKEN_DIGITS[lang]) || {};
    const repeats = (lang && REPEATS[lang]) || {};
    const homophones = (lang && DIGIT_HOMOPHONES[lang]) || {};
    const isDigitPart = (w: string | undefined) => w !== undefined && (DIGIT_TOKEN.test(w) || spoken[w] !== undefined);
    let i = 0;
    while (i < words.length) {
      // A run of digit tokens, spoken digits and the joins between them ("plus", "-").
      let j = i;
      let digits = '';
      let last = i;
      while (j < words.length) {
        const w = words[j]!;
        if (DIGIT_TOKEN.test(w)) digits += w.replace(/\D/g, '');
        else if (spoken[w] !== undefined) digits += spoken[w];
        else if (homophones[w] !== undefined && j > i && isDigitPart(words[j + 1])) digits += homophones[w];
        else if (repeats[w] !== undefined && spoken[words[j + 1] ?? ''] !== undefined) {
          digits += spoken[words[j + 1]!]!.repeat(repeats[w]);
          j++;
        } else if ((w === '-' || w === 'plus' || w === '+') && j + 1 < words.length) {
          j++;
          continue;
        } else break;
        j++;
        last = j;
      }
      // The digit groups of an IBAN-shaped code that failed its check ("DE89 3704 …") are not a card or a phone.
      const afterIbanStart = i > 0 && /^[a-z]{2}\d{2}[a-z0-9]{0,4}$/.test(words[i - 1]!);
      if (last > i && afterIbanStart) i = last;
      else if (last > i) {
        if (types.has('card') && digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) add(i, last, 'card');
        else if (types.has('phone') && digits.length >= 7 && digits.length <= 15) add(i, last, 'phone');
        i = last;
      } else i++;
    }
  }
  if (types.has('person') && personLanguageCovered(lang)) {
    for (const [start, end] of personSpans(tokens)) add(start, end, 'person');
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The token ranges compromise reads as names of people, in an English text made of `tokens`. */
function personSpans(tokens: readonly string[]): Array<[number, number]> {
  const starts: number[] = [];
  let text = '';
  for (const t of tokens) {
    if (text) text += ' ';
    starts.push(text.length);
    text += t.trim();
  }
  const tokenAt = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // Required here, not imported: compromise builds a large lexicon when loaded, which only a job that redacts
  // names needs (every process and test that reads the job schema imports this module).
  const nlp = require('compromise') as typeof import('compromise').default;
  const people = nlp(text).people().json({ offset: true }) as Array<{ offset: { start: number; length: number } }>;
  return people.filter((p) => p.offset.length > 0).map((p) => [tokenAt(p.offset.start), tokenAt(p.offset.start + p.offset.length - 1) + 1]);
}

/** The text's punctuation before and after its core, kept around a placeholder ("(555-1234)," → "([PHONE]),"). */
function framed(first: string, last: string, placeholder: string): string {
  const trail = /[)"'»,;:!?…”’\].]*\s*$/u.exec(last)![0];
  let lead = /^\s*[("'«¿¡“‘[]*/u.exec(first)![0];
  // "(555) 123-4567": the bracket closed inside the number goes with it.
  if (lead.includes('(') && !trail.includes(')')) lead = lead.replace('(', '');
  return lead + placeholder + trail;
}

/** A text with its personal data replaced, token by token (its spacing and line breaks kept). */
export function redactText(text: string, language: string | null | undefined, types: ReadonlySet<PiiType>): string {
  if (types.size === 0) return text;
  const parts = text.split(/(\s+)/);
  const tokens = parts.filter((_, i) => i % 2 === 0);
  const spans = findPii(tokens, language, types);
  if (spans.length === 0) return text;
  const out: string[] = [];
  let t = 0;
  for (const span of spans) {
    for (; t < span.start; t++) out.push(tokens[t]!, parts[2 * t + 1] ?? '');
    out.push(framed(tokens[span.start]!, tokens[span.end - 1]!, PII_PLACEHOLDERS[span.type]), parts[2 * span.end - 1] ?? '');
    t = span.end;
  }
  for (; t < tokens.length; t++) out.push(tokens[t]!, parts[2 * t + 1] ?? '');
  return out.join('');
}

interface TimedWord {
  start: number;
  end: number;
  text: string;
  confidence?: number;
}

/** Words with their personal data replaced: a redacted run becomes one word from its first start to its last end. */
export function redactWords<W extends TimedWord>(words: W[], language: string | null | undefined, types: ReadonlySet<PiiType>): W[] {
  if (types.size === 0) return words;
  const spans = findPii(
    words.map((w) => w.text),
    language,
    types,
  );
  if (spans.length === 0) return words;
  const out: W[] = [];
  let t = 0;
  for (const span of spans) {
    for (; t < span.start; t++) out.push(words[t]!);
    const run = words.slice(span.start, span.end);
    const first = run[0]!;
    out.push({
      ...first,
      end: run.at(-1)!.end,
      text: framed(first.text, run.at(-1)!.text, PII_PLACEHOLDERS[span.type]),
      ...(first.confidence !== undefined ? { confidence: Math.min(...run.map((w) => w.confidence ?? 1)) } : {}),
    });
    t = span.end;
  }
  for (; t < words.length; t++) out.push(words[t]!);
  return out;
}

/** Words of one piece of the work: names are found in about 1,000 words in well under a second. */
const CHUNK_WORDS = 1000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Pieces of about CHUNK_WORDS items, each ending after an item that ends a sentence where one does (a name or a
 * number is not cut in two), so a long transcript is redacted piece by piece with the event loop free in between:
 * the activity's heartbeats go on (a two-hour transcript takes seconds to read for names).
 */
function sentencePieces<T>(items: readonly T[], text: (item: T) => string): T[][] {
  const pieces: T[][] = [];
  let piece: T[] = [];
  for (const item of items) {
    piece.push(item);
    if ((piece.length >= CHUNK_WORDS && /[.!?…]["')\]]*\s*$/u.test(text(item))) || piece.length >= 2 * CHUNK_WORDS) {
      pieces.push(piece);
      piece = [];
    }
  }
  if (piece.length > 0) pieces.push(piece);
  return pieces;
}

/** redactText, a piece at a time. */
async function redactLongText(text: string, language: string | null | undefined, types: ReadonlySet<PiiType>): Promise<string> {
  // Tokens with the whitespace after each, so the pieces join back into the same text.
  const tokens = text.match(/\S+\s*/g) ?? [];
  const lead = /^\s*/.exec(text)![0];
  let out = lead;
  for (const piece of sentencePieces(tokens, (t) => t)) {
    const joined = piece.join('');
    const trail = /\s*$/.exec(joined)![0];
    out += redactText(joined.slice(0, joined.length - trail.length), language, types) + trail;
    await yieldToLoop();
  }
  return out;
}

/** redactWords, a piece at a time. */
async function redactLongWords<W extends TimedWord>(
  words: W[],
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
): Promise<W[]> {
  const out: W[] = [];
  for (const piece of sentencePieces(words, (w) => w.text)) {
    out.push(...redactWords(piece, language, types));
    await yieldToLoop();
  }
  return out;
}

/** The transcript's text, segments (each in its own language) and words with the asked types redacted. */
export async function redactTranscript<S extends { text: string; language?: string | null }, W extends TimedWord>(
  content: { text: string; language: string | null; segments: S[]; words: W[] | null },
  types: readonly PiiType[],
): Promise<{ text: string; segments: S[]; words: W[] | null }> {
  const asked = new Set(types);
  if (asked.size === 0) return content;
  const segments: S[] = [];
  for (const s of content.segments) {
    segments.push({ ...s, text: redactText(s.text, s.language ?? content.language, asked) });
    if (segments.length % 200 === 0) await yieldToLoop();
  }
  return {
    text: await redactLongText(content.text, content.language, asked),
    segments,
    words: content.words && (await redactLongWords(content.words, content.language, asked)),
  };
}

/** The aligned segments and words of a caption transcript (word_timing) redacted, as redactTranscript does. */
export async function redactAligned<S extends { text: string; language?: string | null }, W extends TimedWord>(
  segments: S[],
  words: W[],
  language: string | null,
  types: readonly PiiType[],
): Promise<{ segments: S[]; words: W[] }> {
  const done = await redactTranscript({ text: '', language, segments, words }, types);
  return { segments: done.segments, words: done.words ?? [] };
}
