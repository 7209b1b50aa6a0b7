import { PII_TYPE_NAMES, type EntityTagger, type ModelEntity } from '../../core/pii-types';
import { primaryLanguage } from '../../integrations/recognizers/types';

// `redact_pii`: personal data in the transcript replaced by its kind (`[EMAIL]`, `[PHONE]` …) before anything is
// stored, in the text, every segment and every word (a redacted run of words becomes one word spanning their
// times). What rules and checksums find in any language is here: e-mail addresses (written, and spoken as "john at
// example dot com"), phone numbers (7–15 digits, written or read out digit by digit), payment card numbers (13–19
// digits passing the Luhn check) and IBANs (the ISO 13616 mod-97 check). Names of people, street addresses and ID
// numbers come from a personal-data model (EntityTagger: Rampart, integrations/pii/rampart.ts) that labels each
// word, read here into spans: a name is a run of name words; an address is a run of address parts that holds a
// postcode, a flat, or a named street with its number or city (a city or a street named alone is a place); an ID
// is a run the model reads as one, or a code said after the words that name an ID ("passport number", "DNI"). Without the model, names are
// found in English only, by compromise's people() (a rule-and-lexicon tagger), and addresses and IDs are refused.
// A kind is redacted in the languages it was measured on only: a redaction of another language is refused rather
// than done halfway (redactionCoverage).

export const PII_TYPES = PII_TYPE_NAMES;
export type PiiType = (typeof PII_TYPES)[number];

/** The types found by rules and checksums, in every language: what `redact_pii` redacts by default. */
export const RULE_PII_TYPES = ['email', 'phone', 'card', 'iban'] as const satisfies readonly PiiType[];
/** The types found in some languages only: by the personal-data model, or for `person` in English without it. */
export const LANGUAGE_PII_TYPES = ['person', 'address', 'id'] as const satisfies readonly PiiType[];
export type LanguagePiiType = (typeof LANGUAGE_PII_TYPES)[number];
/**
 * The languages the personal-data model finds each kind in: where it was measured at a recall of at least 0.85 on
 * labelled sentences (bench/RESULTS.md, redaction). Names in Portuguese came out at 0.80: refused there.
 */
export const MODEL_LANGUAGES: Record<LanguagePiiType, readonly string[]> = {
  person: ['en', 'es', 'fr', 'de', 'it'],
  address: ['en', 'es', 'fr', 'de', 'pt', 'it'],
  id: ['en', 'es', 'fr', 'de', 'pt', 'it'],
};
/** Without the model: names of people in English (compromise). */
const TAGGER_FREE_PERSON_LANGUAGES = ['en'] as const;

export type { EntityTagger, ModelEntity } from '../../core/pii-types';

/** What this deployment redacts: the kinds `redact_pii_types` may name, and the languages of those found in some only. */
export interface RedactionCoverage {
  types: PiiType[];
  languages: Record<LanguagePiiType, string[]>;
  /** The personal-data model's name, or null without one. */
  model: string | null;
}

/** The coverage with the personal-data model `tagger`, or without one. */
export function redactionCoverage(tagger: Pick<EntityTagger, 'model'> | null): RedactionCoverage {
  if (tagger)
    return {
      types: [...RULE_PII_TYPES, ...LANGUAGE_PII_TYPES],
      languages: { person: [...MODEL_LANGUAGES.person], address: [...MODEL_LANGUAGES.address], id: [...MODEL_LANGUAGES.id] },
      model: tagger.model,
    };
  return {
    types: [...RULE_PII_TYPES, 'person'],
    languages: { person: [...TAGGER_FREE_PERSON_LANGUAGES], address: [], id: [] },
    model: null,
  };
}

/** The asked kinds of `types` that `coverage` does not redact in `language` (its language subtag). */
export function kindsNotCovered(
  coverage: RedactionCoverage,
  types: readonly PiiType[],
  language: string | null | undefined,
): LanguagePiiType[] {
  const lang = baseLanguage(language);
  return LANGUAGE_PII_TYPES.filter((t) => types.includes(t) && (lang === null || !coverage.languages[t].includes(lang)));
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
 * transcript's words), in order, not overlapping. `tags`: the personal-data model's reading of each token
 * (EntityTagger), for names, addresses and IDs; without it names are found in English only.
 */
export function findPii(
  tokens: readonly string[],
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null = null,
): PiiSpan[] {
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

  // In a text with capitals (as recognizers write), names of people and streets are written with one: a lower-case
  // word the model reads as one ("vendredi", "a las") is not.
  const cased = tokens.some((t) => /\p{Lu}/u.test(t));
  const proper = tokens.map((t) => !cased || /^[^\p{L}\p{N}]*\p{Lu}/u.test(t));
  if (types.has('id')) {
    for (const [start, end] of idSpans(tokens, words, lang, tags, cased)) add(start, end, 'id');
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
  if (types.has('person')) {
    // English names: the model's and compromise's both (each finds some the other misses: bench/RESULTS.md).
    const people = unionOf([...(tags ? nameSpans(tokens, tags, proper, cased) : []), ...(lang === 'en' ? personSpans(tokens) : [])]);
    for (const [start, end] of people) add(start, end, 'person');
  }
  if (types.has('address') && tags) {
    for (const [start, end] of addressSpans(words, lang, tags, proper, cased)) add(start, end, 'address');
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Token ranges with the overlapping ones joined into one. */
function unionOf(ranges: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [start, end] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** The runs of consecutive tokens whose tag passes `is`. */
function runsOf(tags: ReadonlyArray<ModelEntity | null>, is: (t: ModelEntity | null) => boolean): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < tags.length; i++) {
    if (!is(tags[i]!)) continue;
    let j = i + 1;
    while (j < tags.length && is(tags[j]!)) j++;
    runs.push([i, j]);
    i = j - 1;
  }
  return runs;
}

/**
 * Names: runs the model reads as a name with a capitalised word among them (in a text with capitals), each taking
 * in the capitalised words right after it that the model left out ("Anna Schmidt" where only "Anna" was read).
 */
function nameSpans(
  tokens: readonly string[],
  tags: ReadonlyArray<ModelEntity | null>,
  proper: readonly boolean[],
  cased: boolean,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [start, runEnd] of runsOf(tags, (t) => t === 'person')) {
    if (!proper.slice(start, runEnd).some(Boolean)) continue;
    let end = runEnd;
    while (cased && end < tokens.length && tags[end] === null && proper[end] && /[\p{L}\p{N}]$/u.test(tokens[end - 1]!)) end++;
    out.push([start, end]);
  }
  return out;
}

const ADDRESS_PARTS = new Set<ModelEntity>(['building_number', 'street', 'secondary_address', 'city', 'state', 'postcode']);
/** Words between two parts of one address ("Baker Street in London", "rue de la Paix, 75002 Paris"). */
const ADDRESS_GAP = 2;

/**
 * Addresses: runs of address parts at most ADDRESS_GAP words apart that hold a postcode, a flat, or a named street
 * with its number or its city ("Main Street is closed" names a place, not where someone lives), with the number
 * said before or right after the street.
 */
function addressSpans(
  words: readonly string[],
  lang: string | null,
  tags: ReadonlyArray<ModelEntity | null>,
  proper: readonly boolean[],
  cased: boolean,
): Array<[number, number]> {
  const spoken = (lang && SPOKEN_DIGITS[lang]) || {};
  const isNumber = (k: number) => words[k] !== undefined && (DIGIT_TOKEN.test(words[k]!) || spoken[words[k]!] !== undefined);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < tags.length; i++) {
    if (!ADDRESS_PARTS.has(tags[i]!)) continue;
    let end = i + 1;
    for (let j = end; j < tags.length && j <= end + ADDRESS_GAP; j++) {
      const tag = tags[j]!;
      if (tag === 'person' || tag === 'id') break;
      if (ADDRESS_PARTS.has(tag)) end = j + 1;
    }
    let start = i;
    while (start > 0 && start > i - 2 && isNumber(start - 1) && tags[start - 1] === null) start--;
    if (end < tags.length && isNumber(end) && tags[end] === null) end++;
    // The town written after a postcode ("75002 Paris", "10115 Berlin") where the model did not read it as one.
    if (tags[end - 1] === 'postcode' && end < tags.length && tags[end] === null && proper[end] && cased) end++;
    const range = Array.from({ length: end - start }, (_, k) => start + k);
    const has = (kind: ModelEntity) => range.some((k) => tags[k] === kind);
    // A street is named where one of its words is capitalised (in a text with capitals).
    const namedStreet = range.some((k) => tags[k] === 'street' && proper[k]);
    const numbered = range.some((k) => tags[k] === 'building_number' || (tags[k] === null && isNumber(k)));
    if (has('postcode') || has('secondary_address') || (namedStreet && (numbered || has('city')))) out.push([start, end]);
    i = end - 1;
  }
  return out;
}

/** The words that name an ID number, per language (`word*`: any word that starts so): a code said within a few words after one is an ID. */
const ID_CUES: Record<string, string[]> = {
  en: [
    'passport',
    'social security',
    'ssn',
    'id number',
    'identity card',
    'id card',
    "driver's license",
    "driver's licence",
    'driving licence',
    'license number',
    'licence number',
    'tax id',
    'tax number',
    'national insurance',
  ],
  es: [
    'dni',
    'nie',
    'nif',
    'pasaporte',
    'documento de identidad',
    'número de identificación',
    'seguridad social',
    'carnet de conducir',
    'permiso de conducir',
  ],
  fr: ['passeport', "carte d'identité", 'numéro fiscal', 'sécurité sociale', 'permis de conduire', "numéro d'identification"],
  de: [
    'personalausweis*',
    'ausweis*',
    'reisepass*',
    'passnummer',
    'steuer-id',
    'steuernummer',
    'steueridentifikationsnummer',
    'sozialversicherungsnummer',
    'führerschein*',
  ],
  pt: [
    'cpf',
    'rg',
    'passaporte',
    'bilhete de identidade',
    'cartão de cidadão',
    'nif',
    'segurança social',
    'carta de condução',
    'carteira de motorista',
    'número de contribuinte',
  ],
  it: ['codice fiscale', 'passaporto', "carta d'identità", 'patente', 'partita iva', 'tessera sanitaria'],
};
/** How far after its cue an ID's code may start ("passport number is X1234567"). */
const ID_REACH = 5;
/** Fewer digits than this after a cue is not an ID ("passport photo 2"). */
const ID_MIN_DIGITS = 4;
/** Letters said one by one before a code's first digit (an Italian codice fiscale opens with six). */
const ID_LETTER_RUN = 6;

/** IDs: runs the model tags as one, and codes said after an ID's cue words. */
function idSpans(
  tokens: readonly string[],
  words: readonly string[],
  lang: string | null,
  tags: ReadonlyArray<ModelEntity | null> | null,
  cased: boolean,
): Array<[number, number]> {
  const out: Array<[number, number]> = tags ? runsOf(tags, (t) => t === 'id') : [];
  const spoken = (lang && SPOKEN_DIGITS[lang]) || {};
  const plain = words.map((w) => w.replace(/[’‘]/g, "'"));
  const digitsOf = (w: string) => (/\d/.test(w) ? w.replace(/\D/g, '') : (spoken[w] ?? ''));
  const codeLike = (k: number) => {
    const w = plain[k];
    return w !== undefined && (/^[\p{L}\p{N}]*\d[\p{L}\p{N}./-]*$/u.test(w) || spoken[w] !== undefined || w === '-');
  };
  // A letter said on its own (upper-case where the text has capitals: "è" and "a" are words).
  const isLetter = (k: number) =>
    plain[k] !== undefined && /^\p{L}{1,2}$/u.test(plain[k]!) && spoken[plain[k]!] === undefined && (!cased || /\p{Lu}/u.test(tokens[k]!));
  // A letter belongs to a code when letters lead from it to a digit within ID_LETTER_RUN words ("B X A C 5 3 9 …").
  const partOfCode = (k: number) => {
    if (codeLike(k)) return true;
    let j = k;
    while (j < plain.length && j < k + ID_LETTER_RUN && isLetter(j)) j++;
    return j > k && codeLike(j);
  };
  const matches = (part: string, w: string | undefined) =>
    w !== undefined && (part.endsWith('*') ? w.startsWith(part.slice(0, -1)) : w === part);
  const cues = (lang ? (ID_CUES[lang] ?? []) : []).map((c) => c.split(' '));
  for (let i = 0; i < plain.length; i++) {
    const cue = cues.find((c) => c.every((part, k) => matches(part, plain[i + k])));
    if (!cue) continue;
    for (let s = i + cue.length; s < plain.length && s <= i + cue.length + ID_REACH; s++) {
      if (!partOfCode(s)) continue;
      let e = s + 1;
      while (e < plain.length && partOfCode(e)) e++;
      // Check letters said after the digits ("… 7 8 Z" of a Spanish DNI).
      for (let k = 0; k < 2 && e < plain.length && isLetter(e) && !/[,.;:!?]$/.test(tokens[e - 1]!); k++) e++;
      const digits = plain.slice(s, e).map(digitsOf).join('');
      if (digits.length >= ID_MIN_DIGITS) out.push([s, e]);
      i = e - 1;
      break;
    }
  }
  return unionOf(out);
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
export function redactText(
  text: string,
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null = null,
): string {
  if (types.size === 0) return text;
  const parts = text.split(/(\s+)/);
  const tokens = parts.filter((_, i) => i % 2 === 0);
  return withSpans(parts, findPii(tokens, language, types, tags && alignTags(tokens, tags)));
}

/** A text split by whitespace (`parts`: tokens at even places) with `spans` of its tokens replaced by their placeholders. */
function withSpans(parts: readonly string[], spans: readonly PiiSpan[]): string {
  if (spans.length === 0) return parts.join('');
  const tokens = parts.filter((_, i) => i % 2 === 0);
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

/**
 * Segments redacted as one text per run of segments in one language: a phone number or a name the recognizer cut
 * between two segments ("call me back at 555123" | "for 567.") is found whole, and each segment's part of it becomes
 * the placeholder. `tags`: the model's reading of the segments' non-empty tokens, in order.
 */
function redactSegments<S extends { text: string; language?: string | null }>(
  segments: readonly S[],
  language: string | null,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null,
): S[] {
  const split = segments.map((s) => {
    const parts = s.text.split(/(\s+)/);
    return { parts, tokens: parts.filter((_, i) => i % 2 === 0) };
  });
  // Each segment's tags, aligned with its tokens (empty ones included).
  let at = 0;
  const segmentTags = split.map(({ tokens }) => {
    const n = tokens.filter((t) => t !== '').length;
    const mine = tags && alignTags(tokens, tags.slice(at, at + n));
    at += n;
    return mine;
  });
  const out: S[] = [];
  for (let i = 0; i < segments.length;) {
    const lang = segments[i]!.language ?? language;
    let j = i + 1;
    while (j < segments.length && (segments[j]!.language ?? language) === lang) j++;
    // The run's tokens as one stream, and where each segment's start in it.
    const starts: number[] = [];
    const stream: string[] = [];
    const streamTags: Array<ModelEntity | null> = [];
    for (let k = i; k < j; k++) {
      starts.push(stream.length);
      stream.push(...split[k]!.tokens);
      if (tags) streamTags.push(...segmentTags[k]!);
    }
    const spans = findPii(stream, lang, types, tags ? streamTags : null);
    for (let k = i; k < j; k++) {
      const from = starts[k - i]!;
      const to = from + split[k]!.tokens.length;
      const local = spans
        .filter((sp) => sp.start < to && sp.end > from)
        .map((sp) => ({ type: sp.type, start: Math.max(sp.start, from) - from, end: Math.min(sp.end, to) - from }));
      out.push({ ...segments[k]!, text: withSpans(split[k]!.parts, local) });
    }
    i = j;
  }
  return out;
}

interface TimedWord {
  start: number;
  end: number;
  text: string;
  confidence?: number;
}

/** Words with their personal data replaced: a redacted run becomes one word from its first start to its last end. */
export function redactWords<W extends TimedWord>(
  words: W[],
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null = null,
): W[] {
  if (types.size === 0) return words;
  const spans = findPii(
    words.map((w) => w.text),
    language,
    types,
    tags,
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
/** Segments of one piece of the work (about as many words as CHUNK_WORDS). */
const SEGMENTS_A_PIECE = 100;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Pieces of about CHUNK_WORDS items, each ending after an item that ends a sentence where one does (a name or a
 * number is not cut in two), so a long transcript is redacted piece by piece with the event loop free in between:
 * the activity's heartbeats go on (a two-hour transcript takes seconds to read for names).
 */
function sentencePieces<T>(items: readonly T[], text: (item: T) => string, size = CHUNK_WORDS): T[][] {
  const pieces: T[][] = [];
  let piece: T[] = [];
  for (const item of items) {
    piece.push(item);
    if ((piece.length >= size && /[.!?…]["')\]]*\s*$/u.test(text(item))) || piece.length >= 2 * size) {
      pieces.push(piece);
      piece = [];
    }
  }
  if (piece.length > 0) pieces.push(piece);
  return pieces;
}

/** `tags` of a text's non-empty tokens, given for `tokens` with its empty ones (a text that starts with a space). */
function alignTags(tokens: readonly string[], tags: ReadonlyArray<ModelEntity | null>): Array<ModelEntity | null> {
  if (tokens.length === tags.length) return [...tags];
  let k = 0;
  return tokens.map((t) => (t === '' ? null : (tags[k++] ?? null)));
}

/**
 * The model's reading of a stream of tokens, taken from one already made of the same words where there is one: the
 * text, the segments and the words of a transcript are the same words cut three ways, and reading them once keeps
 * a name found in one found in all.
 */
async function tagsOf(
  tokens: readonly string[],
  tagger: EntityTagger,
  known: { tokens: readonly string[]; tags: ReadonlyArray<ModelEntity | null> } | null,
): Promise<Array<ModelEntity | null>> {
  if (known && known.tokens.length === tokens.length && known.tokens.every((t, i) => core(t) === core(tokens[i]!))) return [...known.tags];
  return tagger.tagWords(tokens);
}

const textTokens = (text: string) => text.split(/\s+/).filter((t) => t !== '');

/** redactText, a piece at a time. */
async function redactLongText(
  text: string,
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null,
): Promise<string> {
  // Tokens with the whitespace after each, so the pieces join back into the same text.
  const tokens = text.match(/\S+\s*/g) ?? [];
  const lead = /^\s*/.exec(text)![0];
  let out = lead;
  let at = 0;
  for (const piece of sentencePieces(tokens, (t) => t)) {
    const joined = piece.join('');
    const trail = /\s*$/.exec(joined)![0];
    out += redactText(joined.slice(0, joined.length - trail.length), language, types, tags && tags.slice(at, at + piece.length)) + trail;
    at += piece.length;
    await yieldToLoop();
  }
  return out;
}

/** redactWords, a piece at a time. */
async function redactLongWords<W extends TimedWord>(
  words: W[],
  language: string | null | undefined,
  types: ReadonlySet<PiiType>,
  tags: ReadonlyArray<ModelEntity | null> | null,
): Promise<W[]> {
  const out: W[] = [];
  let at = 0;
  for (const piece of sentencePieces(words, (w) => w.text)) {
    out.push(...redactWords(piece, language, types, tags && tags.slice(at, at + piece.length)));
    at += piece.length;
    await yieldToLoop();
  }
  return out;
}

/**
 * The transcript's text, segments (each in its own language) and words with the asked types redacted. `tagger`: the
 * personal-data model, read once over the segments' words (each segment read with the ones around it) when a kind
 * it finds is asked.
 */
export async function redactTranscript<S extends { text: string; language?: string | null }, W extends TimedWord>(
  content: { text: string; language: string | null; segments: S[]; words: W[] | null },
  types: readonly PiiType[],
  tagger: EntityTagger | null = null,
): Promise<{ text: string; segments: S[]; words: W[] | null }> {
  const asked = new Set(types);
  if (asked.size === 0) return content;
  const model = tagger && LANGUAGE_PII_TYPES.some((t) => asked.has(t)) ? tagger : null;
  const stream = content.segments.flatMap((s) => textTokens(s.text));
  const streamTags = model ? await model.tagWords(stream) : null;
  const known = streamTags && { tokens: stream, tags: streamTags };
  // A few hundred segments at a time, cut where a segment ends a sentence (a name or a number is not cut in two),
  // the event loop freed between them.
  const segments: S[] = [];
  let at = 0;
  for (const piece of sentencePieces(content.segments, (s) => s.text, SEGMENTS_A_PIECE)) {
    const n = piece.reduce((sum, s) => sum + textTokens(s.text).length, 0);
    segments.push(...redactSegments(piece, content.language, asked, streamTags && streamTags.slice(at, at + n)));
    at += n;
    await yieldToLoop();
  }
  const textTags = model ? await tagsOf(textTokens(content.text), model, known) : null;
  const wordTags =
    model && content.words
      ? await tagsOf(
          content.words.map((w) => w.text.trim()),
          model,
          known,
        )
      : null;
  return {
    text: await redactLongText(content.text, content.language, asked, textTags),
    segments,
    words: content.words && (await redactLongWords(content.words, content.language, asked, wordTags)),
  };
}

/** The aligned segments and words of a caption transcript (word_timing) redacted, as redactTranscript does. */
export async function redactAligned<S extends { text: string; language?: string | null }, W extends TimedWord>(
  segments: S[],
  words: W[],
  language: string | null,
  types: readonly PiiType[],
  tagger: EntityTagger | null = null,
): Promise<{ segments: S[]; words: W[] }> {
  const done = await redactTranscript({ text: '', language, segments, words }, types, tagger);
  return { segments: done.segments, words: done.words ?? [] };
}
