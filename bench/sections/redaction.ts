import { audioDir, makeSpeech } from '../../test/support/speech';
import {
  findPii,
  luhnValid,
  ibanValid,
  MODEL_LANGUAGES,
  PII_TYPES,
  redactTranscript,
  RULE_PII_TYPES,
  type EntityTagger,
  type PiiType,
} from '../../domain/transcripts/redaction';
import { installedPersonalDataModel } from '../../test/support/personal-data-model';
import { DIGIT_WORDS, labelledModelKinds, REDACTION_BENCH_LANGUAGES, type Lang, type LabelledItem } from './redaction-model-set';
import { seededRandom } from '../../test/support/seeded-random';
import { type BenchContext, type BenchSection, recognizerPython } from '../harness';

// Redaction (issue 53, item 3): recall and precision of the kinds found by rules and checksums (e-mail, phone, card,
// IBAN), per language, on labelled sentences as a transcript writes them, beside plain written-form patterns (an
// e-mail regex, digit runs of phone length, Luhn-checked card runs, mod-97-checked IBANs: what a text redactor
// that knows nothing of speech finds) on the same sentences.
//
// The sentences are built here from templates with a fixed seed (no labelled set of spoken personal data with a
// licence to keep it was found): per language, e-mail addresses written ("ana.silva@example.com") or spoken
// ("ana dot silva at example dot com", "ana at example.com"), phone numbers written in groups, with dashes, dots or a
// country code, or read out digit by digit, card numbers (Luhn-valid) written in groups of four or read out, IBANs written in groups of four, and sentences with no
// personal data but numbers, years, amounts, times and the words for "at" and "dot", which must stay.

const LANGUAGES = REDACTION_BENCH_LANGUAGES;
const AT: Record<Lang, string> = { en: 'at', es: 'arroba', fr: 'arobase', de: 'at', pt: 'arroba', it: 'chiocciola' };
const DOT: Record<Lang, string> = { en: 'dot', es: 'punto', fr: 'point', de: 'punkt', pt: 'ponto', it: 'punto' };
const NAMES = ['ana', 'john', 'marie', 'lukas', 'giulia', 'pedro', 'sofia', 'tom', 'lena', 'marco'];
const SURNAMES = ['silva', 'smith', 'martin', 'muller', 'rossi', 'garcia', 'dubois', 'weber', 'costa', 'bianchi'];
const DOMAINS = [
  ['example', 'com'],
  ['mail', 'de'],
  ['correo', 'es'],
  ['exemple', 'fr'],
  ['empresa', 'pt'],
  ['posta', 'it'],
  ['company', 'co', 'uk'],
];

/** Sentences around one item, per language and kind: `{}` is where the item goes. */
const FRAMES: Record<Lang, Record<'email' | 'phone' | 'card' | 'iban', string[]>> = {
  en: {
    email: ['You can write to me at {} any time.', 'My email is {} if you need it.', 'Send the invoice to {}, please.'],
    phone: ['Call me back on {} this afternoon.', 'My number is {}.', 'The office line is {} until six.'],
    card: ['The card number is {} and it expires next year.', 'I paid with {}.', 'Please charge {} for the order.'],
    iban: ['Transfer it to {} please.', 'Our account is {}.', 'The IBAN is {} for the refund.'],
  },
  es: {
    email: ['Puede escribirme a {} cuando quiera.', 'Mi correo es {} por si acaso.', 'Mande la factura a {}, por favor.'],
    phone: ['Llámeme al {} esta tarde.', 'Mi número es {}.', 'La oficina atiende en el {} hasta las seis.'],
    card: ['El número de la tarjeta es {} y caduca el año que viene.', 'Pagué con la {}.', 'Cargue {} por el pedido.'],
    iban: ['Haga la transferencia a {} por favor.', 'Nuestra cuenta es {}.', 'El IBAN es {} para el reembolso.'],
  },
  fr: {
    email: ['Vous pouvez m’écrire à {} quand vous voulez.', 'Mon adresse est {} au cas où.', 'Envoyez la facture à {}, s’il vous plaît.'],
    phone: ['Rappelez-moi au {} cet après-midi.', 'Mon numéro est le {}.', 'Le bureau répond au {} jusqu’à six heures.'],
    card: ['Le numéro de la carte est {} et elle expire l’an prochain.', 'J’ai payé avec la {}.', 'Débitez {} pour la commande.'],
    iban: ['Faites le virement sur {} s’il vous plaît.', 'Notre compte est {}.', 'L’IBAN est {} pour le remboursement.'],
  },
  de: {
    email: ['Sie können mir jederzeit an {} schreiben.', 'Meine Adresse ist {} falls nötig.', 'Schicken Sie die Rechnung an {}, bitte.'],
    phone: ['Rufen Sie mich unter {} heute Nachmittag an.', 'Meine Nummer ist {}.', 'Das Büro ist unter {} bis sechs erreichbar.'],
    card: [
      'Die Kartennummer ist {} und sie läuft nächstes Jahr ab.',
      'Ich habe mit {} bezahlt.',
      'Bitte belasten Sie {} für die Bestellung.',
    ],
    iban: ['Überweisen Sie es bitte auf {}.', 'Unser Konto ist {}.', 'Die IBAN ist {} für die Erstattung.'],
  },
  pt: {
    email: ['Pode me escrever em {} quando quiser.', 'Meu e-mail é {} se precisar.', 'Mande a fatura para {}, por favor.'],
    phone: ['Me ligue no {} hoje à tarde.', 'Meu número é {}.', 'O escritório atende no {} até as seis.'],
    card: ['O número do cartão é {} e vence no ano que vem.', 'Paguei com o {}.', 'Cobre {} pelo pedido.'],
    iban: ['Faça a transferência para {} por favor.', 'A nossa conta é {}.', 'O IBAN é {} para o reembolso.'],
  },
  it: {
    email: ['Può scrivermi a {} quando vuole.', 'La mia email è {} se serve.', 'Mandi la fattura a {}, per favore.'],
    phone: ['Mi richiami al {} oggi pomeriggio.', 'Il mio numero è {}.', 'L’ufficio risponde al {} fino alle sei.'],
    card: ['Il numero della carta è {} e scade l’anno prossimo.', 'Ho pagato con la {}.', 'Addebiti {} per l’ordine.'],
    iban: ['Faccia il bonifico su {} per favore.', 'Il nostro conto è {}.', 'L’IBAN è {} per il rimborso.'],
  },
};
/** Sentences with nothing to redact: numbers, years, amounts, times, "at" and "dot" in their ordinary senses. */
const CLEAN: Record<Lang, string[]> = {
  en: [
    'We met at the station at 6 and walked to the hotel.',
    'In 2019 and 2020 the company sold 250,000 units.',
    'It costs 49.99 dollars, or 12 a month.',
    'Look at that dot on the map, it is our village.',
    'Room 1204 is on the twelfth floor.',
    'The meeting is at 10:30 on March 3.',
    'One or two people came, maybe three.',
    'She scored 98 out of 100 in the test.',
  ],
  es: [
    'Nos vimos en la estación a las 6 y fuimos al hotel.',
    'En 2019 y 2020 la empresa vendió 250.000 unidades.',
    'Cuesta 49,99 euros, o 12 al mes.',
    'Mira ese punto en el mapa, es nuestro pueblo.',
    'La habitación 1204 está en el piso doce.',
    'La reunión es a las 10:30 el 3 de marzo.',
    'Vinieron una o dos personas, quizá tres.',
    'Sacó 98 de 100 en el examen.',
  ],
  fr: [
    'On s’est vus à la gare à 6 heures puis à l’hôtel.',
    'En 2019 et 2020 l’entreprise a vendu 250 000 unités.',
    'Ça coûte 49,99 euros, ou 12 par mois.',
    'Regarde ce point sur la carte, c’est notre village.',
    'La chambre 1204 est au douzième étage.',
    'La réunion est à 10 h 30 le 3 mars.',
    'Une ou deux personnes sont venues, peut-être trois.',
    'Elle a eu 98 sur 100 à l’examen.',
  ],
  de: [
    'Wir trafen uns um 6 am Bahnhof und gingen ins Hotel.',
    'In 2019 und 2020 verkaufte die Firma 250.000 Stück.',
    'Es kostet 49,99 Euro oder 12 im Monat.',
    'Sieh dir den Punkt auf der Karte an, das ist unser Dorf.',
    'Zimmer 1204 ist im zwölften Stock.',
    'Das Treffen ist um 10:30 am 3. März.',
    'Ein oder zwei Leute kamen, vielleicht drei.',
    'Sie hatte 98 von 100 Punkten im Test.',
  ],
  pt: [
    'Nos encontramos na estação às 6 e fomos para o hotel.',
    'Em 2019 e 2020 a empresa vendeu 250.000 unidades.',
    'Custa 49,99 reais, ou 12 por mês.',
    'Olha aquele ponto no mapa, é a nossa vila.',
    'O quarto 1204 fica no décimo segundo andar.',
    'A reunião é às 10:30 do dia 3 de março.',
    'Vieram uma ou duas pessoas, talvez três.',
    'Ela tirou 98 de 100 na prova.',
  ],
  it: [
    'Ci siamo visti alla stazione alle 6 e siamo andati in albergo.',
    'Nel 2019 e nel 2020 l’azienda ha venduto 250.000 pezzi.',
    'Costa 49,99 euro, o 12 al mese.',
    'Guarda quel punto sulla mappa, è il nostro paese.',
    'La camera 1204 è al dodicesimo piano.',
    'La riunione è alle 10:30 del 3 marzo.',
    'Sono venute una o due persone, forse tre.',
    'Ha preso 98 su 100 all’esame.',
  ],
};
const IBAN_BANKS: Array<[string, number]> = [
  ['DE', 18],
  ['ES', 20],
  ['FR', 23],
  ['IT', 23],
  ['PT', 21],
  ['GB', 18],
];

interface Labelled {
  language: Lang;
  text: string;
  /** The item's kind and its characters in `text` (null: nothing to redact). */
  item: { type: PiiType; from: number; to: number } | null;
}

/** IBAN check digits for a country and account (ISO 13616). */
function withCheckDigits(country: string, account: string): string {
  for (let check = 2; check <= 98; check++) {
    const iban = `${country}${String(check).padStart(2, '0')}${account}`;
    if (ibanValid(iban)) return iban;
  }
  throw new Error('no check digits');
}

/** The labelled sentences, the same for every run. */
export function labelledSentences(perKind = 24, seed = 53): Labelled[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');
  const out: Labelled[] = [];
  const place = (language: Lang, type: PiiType, frame: string, item: string) => {
    const from = frame.indexOf('{}');
    out.push({ language, text: frame.replace('{}', item), item: { type, from, to: from + item.length } });
  };
  const spokenDigits = (language: Lang, s: string) => [...s].map((d) => DIGIT_WORDS[language][Number(d)]).join(' ');
  for (const language of LANGUAGES) {
    for (let k = 0; k < perKind; k++) {
      const spoken = k % 2 === 1;
      // E-mail: name[.surname]@domain.
      const local = random() < 0.5 ? [pick(NAMES)] : [pick(NAMES), pick(SURNAMES)];
      const domain = pick(DOMAINS);
      // Written as typed, or as a recognizer writes a spoken address: all in words, or with the domain written.
      const email = !spoken
        ? `${local.join('.')}@${domain.join('.')}`
        : k % 4 === 1
          ? `${local.join(` ${DOT[language]} `)} ${AT[language]} ${domain.join(` ${DOT[language]} `)}`
          : `${local.join(` ${DOT[language]} `)} ${AT[language]} ${domain.join('.')}`;
      place(language, 'email', pick(FRAMES[language].email), email);
      // Phone: 9–11 digits, in groups as written or one by one as said.
      const phone = digits(9 + Math.floor(random() * 3));
      // Written in the shapes transcripts use (groups, dashes, dots, a country code) or read out one by one.
      const written = [
        `${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6)}`,
        `${phone.slice(0, 3)}-${phone.slice(3, 6)}-${phone.slice(6)}`,
        phone.replace(/(\d{2})(?=\d)/g, '$1.'),
        `+${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5)}`,
      ][Math.floor(k / 2) % 4]!;
      place(language, 'phone', pick(FRAMES[language].phone), spoken ? spokenDigits(language, phone) : written);
      // Card: 16 digits with a Luhn check digit.
      let card = `4${digits(14)}`;
      for (let d = 0; d <= 9; d++)
        if (luhnValid(card + d)) {
          card += d;
          break;
        }
      place(
        language,
        'card',
        pick(FRAMES[language].card),
        spoken ? spokenDigits(language, card) : card.replace(/(\d{4})(?=\d)/g, k % 4 === 0 ? '$1-' : '$1 '),
      );
      // IBAN: written in groups of four (said aloud, an IBAN is read out as letters and digits a recognizer writes back as such).
      const [country, length] = pick(IBAN_BANKS);
      const iban = withCheckDigits(country, digits(length));
      place(language, 'iban', pick(FRAMES[language].iban), iban.replace(/(.{4})(?=.)/g, '$1 '));
    }
    for (const text of CLEAN[language]) out.push({ language, text, item: null });
  }
  return out;
}

type CharSpan = { type: PiiType; from: number; to: number };

/** The service's spans with the personal-data model: each text's tokens tagged, then findPii, mapped onto the text. */
async function modelSpansOf(
  sentences: ReadonlyArray<{ text: string; language: string }>,
  tagger: EntityTagger,
  types: ReadonlySet<PiiType>,
): Promise<{ spans: Map<string, CharSpan[]>; words: number; seconds: number }> {
  const spans = new Map<string, CharSpan[]>();
  let words = 0;
  const t0 = performance.now();
  for (const { text, language } of sentences) {
    const tokens = [...text.matchAll(/\S+/g)].map((m) => ({ text: m[0], from: m.index, to: m.index + m[0].length }));
    const tags = await tagger.tagWords(tokens.map((t) => t.text));
    words += tokens.length;
    spans.set(
      `${language}\u0000${text}`,
      findPii(
        tokens.map((t) => t.text),
        language,
        types,
        tags,
      ).map((x) => ({ type: x.type, from: tokens[x.start]!.from, to: tokens[x.end - 1]!.to })),
    );
  }
  return { spans, words, seconds: (performance.now() - t0) / 1000 };
}

/** Street words per language, for the address baseline. */
const STREET_WORDS =
  'street|st|road|rd|avenue|ave|lane|drive|terrace|way|calle|avenida|paseo|plaza|rue|boulevard|avenue|place|quai|cours|straße|strasse|str|allee|weg|platz|markt|rua|travessa|praça|via|viale|corso|piazza';

/**
 * Written-form patterns for the model's kinds (what a text redactor that knows nothing of speech finds): a street
 * word with a number and capitalised words around it (an address), and a code of six or more letters and digits
 * with at least four digits (an ID).
 */
export function modelKindPatternSpans(text: string): CharSpan[] {
  const spans: CharSpan[] = [];
  const street = new RegExp(
    `(?:\\d+[a-z]?,?\\s+)?(?:(?:\\p{Lu}[\\p{L}'’-]*|de|la|del|da|do|dos|das|des|du|dei|della)\\s+)*(?:${STREET_WORDS})\\b(?:\\s+(?:\\p{Lu}[\\p{L}'’-]*|de|la|del|da|do|dos|das|des|du|dei|della))*(?:\\s+\\d+[a-z]?)?(?:,?\\s+(?:[A-Z0-9]{2,4}\\s?[0-9][A-Z0-9]{2}|\\d{4,5}(?:-\\d{3})?|\\p{Lu}[\\p{L}'’-]*))*`,
    'giu',
  );
  for (const m of text.matchAll(street)) if (/\d/.test(m[0])) spans.push({ type: 'address', from: m.index, to: m.index + m[0].length });
  for (const m of text.matchAll(/\b(?=[\p{L}\d.-]*\d[\p{L}\d.-]*\d[\p{L}\d.-]*\d[\p{L}\d.-]*\d)[\p{L}\d][\p{L}\d.-]{4,}[\p{L}\d]\b/gu))
    if (!spans.some((s) => m.index < s.to && s.from < m.index + m[0].length))
      spans.push({ type: 'id', from: m.index, to: m.index + m[0].length });
  return spans;
}

/** What plain written-form patterns find in a text: [type, from, to] spans. */
export function patternSpans(text: string): Array<{ type: PiiType; from: number; to: number }> {
  const spans: Array<{ type: PiiType; from: number; to: number }> = [];
  for (const m of text.matchAll(/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu))
    spans.push({ type: 'email', from: m.index, to: m.index + m[0].length });
  for (const m of text.matchAll(/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b/g))
    if (ibanValid(m[0].replace(/ /g, ''))) spans.push({ type: 'iban', from: m.index, to: m.index + m[0].length });
  for (const m of text.matchAll(/\+?\d[\d ().-]{5,}\d/g)) {
    if (spans.some((s) => m.index < s.to && s.from < m.index + m[0].length)) continue;
    const d = m[0].replace(/\D/g, '');
    if (d.length >= 13 && d.length <= 19 && luhnValid(d)) spans.push({ type: 'card', from: m.index, to: m.index + m[0].length });
    else if (d.length >= 7 && d.length <= 15) spans.push({ type: 'phone', from: m.index, to: m.index + m[0].length });
  }
  return spans;
}

/** The service's spans of `types` in character offsets: its token spans mapped back onto the text. */
export function serviceSpans(
  text: string,
  language: string,
  types: ReadonlySet<PiiType> = new Set(RULE_PII_TYPES),
): Array<{ type: PiiType; from: number; to: number }> {
  const tokens: Array<{ text: string; from: number; to: number }> = [];
  for (const m of text.matchAll(/\S+/g)) tokens.push({ text: m[0], from: m.index, to: m.index + m[0].length });
  return findPii(
    tokens.map((t) => t.text),
    language,
    types,
  ).map((s) => ({ type: s.type, from: tokens[s.start]!.from, to: tokens[s.end - 1]!.to }));
}

interface Tally {
  truth: number;
  found: number;
  predicted: number;
}

/** Per language and kind: items found (a span of the right kind covering most of the item), and every span predicted. */
export function score(
  sentences: Labelled[],
  spansOf: (text: string, language: string) => Array<{ type: PiiType; from: number; to: number }>,
) {
  const tally = new Map<string, Tally>();
  const at = (language: string, type: string) => {
    const key = `${language}/${type}`;
    if (!tally.has(key)) tally.set(key, { truth: 0, found: 0, predicted: 0 });
    return tally.get(key)!;
  };
  for (const s of sentences) {
    const spans = spansOf(s.text, s.language);
    for (const span of spans) at(s.language, span.type).predicted++;
    if (!s.item) continue;
    const item = s.item;
    at(s.language, item.type).truth++;
    const covered = spans.some(
      (p) => p.type === item.type && Math.min(p.to, item.to) - Math.max(p.from, item.from) >= 0.8 * (item.to - item.from),
    );
    if (covered) at(s.language, item.type).found++;
  }
  return tally;
}

/** English names of people from many origins, full or first names, for the `person` figures. */
const PEOPLE = [
  'Sarah Johnson',
  'Wei Zhang',
  'Oluwaseun Adeyemi',
  'Maria Garcia',
  'Priya Patel',
  'Mohammed Al-Farsi',
  'Tom',
  'Emily',
  'Hiroshi Tanaka',
  'Anna Kowalski',
  "James O'Brien",
  'Fatima Hassan',
  'Lucas Silva',
  'Dr. Nguyen',
  'Mrs. Thompson',
  'Kevin',
  'Aisha Bello',
  'Daniel Cohen',
  'Sofia Rossi',
  'Raj Sharma',
  'Olga Petrova',
  'Carlos Mendoza',
  'Grace Kim',
  'Peter',
];
const PERSON_FRAMES = [
  'Hi, this is {} calling about the invoice.',
  'I spoke with {} yesterday and she agreed.',
  'Could you ask {} to call me back?',
  'My name is {} and I have a question.',
  'We met {} at the conference last week.',
  'Thanks, {}, that was very helpful.',
];
const NO_PEOPLE = [
  'The meeting in Boston was moved to Monday.',
  'Microsoft and Google both released new phones in September.',
  'We flew from New York to San Francisco on Friday.',
  'The Golden Gate Bridge was busy this morning.',
  'Please send the report to the Finance Department.',
  'Christmas falls on a Thursday this year.',
  'The United Nations met in Geneva last spring.',
  'I read it in The New York Times.',
];

/** English sentences with a name (or none), labelled: `person` recall and precision. */
export function labelledNames(): Labelled[] {
  const out: Labelled[] = [];
  PEOPLE.forEach((name, i) => {
    const frame = PERSON_FRAMES[i % PERSON_FRAMES.length]!;
    const from = frame.indexOf('{}');
    out.push({ language: 'en', text: frame.replace('{}', name), item: { type: 'person', from, to: from + name.length } });
  });
  for (const text of NO_PEOPLE) out.push({ language: 'en', text, item: null });
  return out;
}

/** The baseline for names: runs of two or more capitalised words, or a title and a capitalised word, not opening the sentence. */
export function capitalisedNameSpans(text: string): Array<{ type: PiiType; from: number; to: number }> {
  const spans: Array<{ type: PiiType; from: number; to: number }> = [];
  for (const m of text.matchAll(
    /(?:(?:Dr|Mr|Mrs|Ms)\.\s+)?\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)+|(?:Dr|Mr|Mrs|Ms)\.\s+\p{Lu}[\p{L}'-]+/gu,
  )) {
    if (m.index === 0) continue;
    spans.push({ type: 'person', from: m.index, to: m.index + m[0].length });
  }
  return spans;
}

/**
 * Spoken English sentences with a phone number read out digit by digit or an e-mail address, said by a synthetic
 * voice (flite) and written down by the service's recognizer (Whisper base through `python -m recognizer
 * recognize`): the forms a recognizer really writes ("555-123-4567", "john at example.com", "for" for four).
 */
async function recognisedSpeech(count: number, seed = 7): Promise<Array<{ type: PiiType; said: string; written: string }>> {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const dir = await audioDir('redaction-bench-');
  const out: Array<{ type: PiiType; said: string; written: string }> = [];
  try {
    for (let k = 0; k < count; k++) {
      const type: PiiType = k % 2 === 0 ? 'phone' : 'email';
      const item =
        type === 'phone'
          ? Array.from({ length: 10 }, () => DIGIT_WORDS.en[Math.floor(random() * 10)]).join(' ')
          : `${pick(NAMES)} at ${pick(['example', 'mailbox', 'company'])} dot ${pick(['com', 'org', 'net'])}`;
      const said = type === 'phone' ? `Please call me back on ${item}. Thank you.` : `You can write to me at ${item}. Thank you.`;
      const speech = await makeSpeech(said, dir.dir, `clip-${k}`);
      const result = await recognizerPython<{ words: Array<{ text?: string; word?: string }> }>(
        ['-m', 'recognizer', 'recognize', speech.path, '--language', 'en'],
        { env: { OMP_WAIT_POLICY: 'PASSIVE' } },
      );
      out.push({
        type,
        said,
        written: result.words
          .map((w) => w.text ?? w.word ?? '')
          .join('')
          .trim(),
      });
    }
  } finally {
    await dir.cleanup();
  }
  return out;
}

export const redactionSection: BenchSection = {
  name: 'redaction',
  ownBlock: true,
  async run(ctx: BenchContext) {
    const { out } = ctx;
    const sentences = labelledSentences();
    const ours = score(sentences, serviceSpans);
    const base = score(sentences, patternSpans);
    const rate = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(2));
    const correct = (t: Tally) => t.found;
    out(`## Redaction (issue 53)`);
    out();
    out(
      `Recall and precision per kind and language on ${sentences.length} labelled sentences as a transcript writes them (${sentences.filter((s) => s.item).length} with one item each, half of the e-mail, phone and card items spoken: "ana dot silva at example dot com", digits read out one by one; ${sentences.filter((s) => !s.item).length} with none but numbers, years, amounts, times and the words for "at" and "dot"), built from templates with a fixed seed (bench/sections/redaction.ts). Precision counts every span of that kind, on any sentence. Baseline: plain written-form patterns (an e-mail regex, digit runs of phone length, Luhn-checked card runs, mod-97-checked IBANs) on the same sentences. Goals: recall ≥ 0.95 for e-mail, phone and card.`,
    );
    out();
    out(`| language | kind | recall (service) | precision (service) | recall (patterns) | precision (patterns) |`);
    out(`|---|---|---|---|---|---|`);
    for (const language of LANGUAGES)
      for (const type of RULE_PII_TYPES) {
        const o = ours.get(`${language}/${type}`) ?? { truth: 0, found: 0, predicted: 0 };
        const b = base.get(`${language}/${type}`) ?? { truth: 0, found: 0, predicted: 0 };
        out(
          `| ${language} | ${type} | ${rate(o.found, o.truth)} | ${rate(correct(o), o.predicted)} | ${rate(b.found, b.truth)} | ${rate(correct(b), b.predicted)} |`,
        );
      }
    out();
    const tagger = installedPersonalDataModel();
    const names = labelledNames();
    const person = new Set<PiiType>(['person']);
    const modelNames = await modelSpansOf(names, tagger, person);
    const ourNames = score(names, (text, language) => modelNames.spans.get(`${language}\u0000${text}`)!).get('en/person')!;
    const compromiseNames = score(names, (text, language) => serviceSpans(text, language, person)).get('en/person')!;
    const baseNames = score(names, capitalisedNameSpans).get('en/person')!;
    out(
      `Names of people in English: ${names.filter((n) => n.item).length} sentences with a name (full names of many origins, first names, titles) and ${names.filter((n) => !n.item).length} with capitalised places, firms, days and titles but no person. The service reads English names with the personal-data model (Rampart) and compromise 14's people() together; beside it compromise alone (the service without the model) and runs of capitalised words (or a title and a name) not opening the sentence. Goal: recall ≥ 0.85.`,
    );
    out();
    out(
      `| kind | recall (service) | precision (service) | recall (compromise alone) | precision (compromise alone) | recall (capitalised runs) | precision (capitalised runs) |`,
    );
    out(`|---|---|---|---|---|---|---|`);
    out(
      `| person (en) | ${rate(ourNames.found, ourNames.truth)} | ${rate(ourNames.found, ourNames.predicted)} | ${rate(compromiseNames.found, compromiseNames.truth)} | ${rate(compromiseNames.found, compromiseNames.predicted)} | ${rate(baseNames.found, baseNames.truth)} | ${rate(baseNames.found, baseNames.predicted)} |`,
    );
    out();
    await modelKindsTable(out, tagger);
    const heard = await recognisedSpeech(16);
    out(
      `On recognised speech: ${heard.length} English sentences, a phone number read out digit by digit or an e-mail address spoken ("anna at example dot com"), said by a synthetic voice (flite) and written down by the service's recognizer (Whisper base); an item counts as found when a span of its kind is found in what the recognizer wrote.`,
    );
    out();
    out(`| kind | recall (service) | recall (patterns) | what the recognizer wrote (first of the kind) |`);
    out(`|---|---|---|---|`);
    for (const type of ['phone', 'email'] as const) {
      const items = heard.filter((h) => h.type === type);
      const hit = (spans: (t: string, l: string) => Array<{ type: PiiType }>) =>
        items.filter((h) => spans(h.written, 'en').some((sp) => sp.type === type)).length;
      out(`| ${type} | ${rate(hit(serviceSpans), items.length)} | ${rate(hit(patternSpans), items.length)} | ${items[0]?.written ?? ''} |`);
    }
    out();
    out(
      `The sentences were written for this bench by the team that wrote the rules, so they measure the forms the rules are meant to find, not the variety of real speech; the held-out sentences of the model's kinds were written after a first round of tuning, with other names, streets, frames and codes, but their misses were looked at once (the rule that a street named alone is a place came from one of them), so they are a check on overfitting, not an untouched test set.`,
    );
    out();
  },
};

/**
 * Names, addresses and IDs per language with the personal-data model, on the tuning and held-out sentences
 * (bench/sections/redaction-model-set.ts), beside written-form patterns and capitalised runs.
 */
async function modelKindsTable(out: BenchContext['out'], tagger: EntityTagger) {
  const kinds = ['person', 'address', 'id'] as const;
  const types = new Set<PiiType>(kinds);
  const tuning = labelledModelKinds('tuning');
  const heldOut = labelledModelKinds('held-out');
  const all: LabelledItem[] = [...tuning, ...heldOut];
  const model = await modelSpansOf(all, tagger, types);
  const lookup = (text: string, language: string) => model.spans.get(`${language}\u0000${text}`)!;
  const baseline = (text: string) => [...capitalisedNameSpans(text), ...modelKindPatternSpans(text)];
  const scored = (set: LabelledItem[], spans: (t: string, l: string) => CharSpan[]) => score(set as never, spans);
  const [ourTuning, ourHeld, ourAll, baseAll] = [
    scored(tuning, lookup),
    scored(heldOut, lookup),
    scored(all, lookup),
    scored(all, baseline),
  ];
  const rate = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(2));
  const zero = { truth: 0, found: 0, predicted: 0 };
  out(
    `Names, street addresses and ID numbers (\`person\`, \`address\`, \`id\`) with the personal-data model (Rampart, a multilingual BERT token classifier, 4-bit ONNX, run by onnxruntime-node), on ${all.length} labelled sentences as a transcript writes them (bench/sections/redaction-model-set.ts): per language, names of its own and other origins (full or first names), addresses with a number, a street and a city (some with a postcode), ID numbers of the country's own kinds written as codes or read out digit by digit, and sentences with places, firms, days and numbers but nothing to redact. ${tuning.length} sentences were used to tune the rules around the model (capitalisation, what makes an address, the words that name an ID); ${heldOut.length} were written apart from them (see the note below). Recall is shown for each, precision on all. Baseline: runs of capitalised words for names, and written-form patterns (a street word with a number and capitalised words, and the postcodes and capitalised words after it; a code of six or more letters and digits with four digits or more). A kind is offered in a language where its recall on all the sentences is at least 0.85 (\`redaction.languages_by_type\` of GET /v1/capabilities). The model read ${model.words} words in ${model.seconds.toFixed(1)} s (${Math.round(model.words / model.seconds)} words/s on one thread, short sentences one at a time).`,
  );
  out();
  out(
    '| language | kind | recall (tuning) | recall (second set) | recall (all) | precision (all) | recall (baseline) | precision (baseline) | offered |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  for (const language of LANGUAGES)
    for (const kind of kinds) {
      const key = `${language}/${kind}`;
      const [t, h, a, b] = [ourTuning, ourHeld, ourAll, baseAll].map((m) => m.get(key) ?? zero);
      out(
        `| ${language} | ${kind} | ${rate(t!.found, t!.truth)} | ${rate(h!.found, h!.truth)} | ${rate(a!.found, a!.truth)} | ${rate(a!.found, a!.predicted)} | ${rate(b!.found, b!.truth)} | ${rate(b!.found, b!.predicted)} | ${MODEL_LANGUAGES[kind].includes(language) ? 'yes' : 'no'} |`,
      );
    }
  out();
  await longTranscriptTime(
    out,
    tagger,
    tuning.filter((s) => s.language === 'en'),
  );
}

/** Words of a two-hour recording at 150 words a minute. */
const TWO_HOURS_WORDS = 18_000;

/**
 * The cost on a long transcript: the model alone over two hours of words (windows of 80), and the whole redaction
 * of its text, segments and words with every kind, as the worker runs it before storing.
 */
async function longTranscriptTime(out: BenchContext['out'], tagger: EntityTagger, english: LabelledItem[]) {
  const segments: Array<{ start: number; end: number; text: string; language: string }> = [];
  let count = 0;
  for (let i = 0; count < TWO_HOURS_WORDS; i++) {
    const text = english[i % english.length]!.text;
    const n = text.split(/\s+/).length;
    segments.push({ start: count * 0.4, end: (count + n) * 0.4, text, language: 'en' });
    count += n;
  }
  const text = segments.map((s) => s.text).join(' ');
  const words = text.split(' ').map((w, i) => ({ start: i * 0.4, end: i * 0.4 + 0.3, text: w }));
  const t0 = performance.now();
  await tagger.tagWords(words.map((w) => w.text));
  const tagging = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await redactTranscript({ text, language: 'en', segments, words }, [...PII_TYPES], tagger);
  const whole = (performance.now() - t1) / 1000;
  const t2 = performance.now();
  await redactTranscript({ text, language: 'en', segments, words }, [...RULE_PII_TYPES, 'person'], null);
  const withoutModel = (performance.now() - t2) / 1000;
  out(
    `A two-hour transcript (${words.length.toLocaleString('en')} English words in ${segments.length} segments, the sentences above repeated): the model reads its words in ${tagging.toFixed(1)} s (${Math.round(words.length / tagging)} words/s, windows of 80 words, one thread); the whole redaction of its text, segments and words with every kind takes ${whole.toFixed(1)} s, beside ${withoutModel.toFixed(1)} s for the rule kinds and English names without the model.`,
  );
  out();
}
