import { JobRequestSchema, jobSpecOf } from '../../domain/schemas/jobs';
import { installedPersonalDataModel as model } from '../support/personal-data-model';
import {
  findPii,
  kindsNotCovered,
  redactionCoverage,
  type ModelEntity,
  ibanValid,
  luhnValid,
  redactText,
  redactTranscript,
  redactWords,
  RULE_PII_TYPES,
  type PiiType,
} from '../../domain/transcripts/redaction';

// Issue 53, item 3 (`redact_pii`): what rules and checksums find, written and spoken, and what they leave alone.

const ALL = new Set<PiiType>(RULE_PII_TYPES);
const red = (text: string, language = 'en', types: ReadonlySet<PiiType> = ALL) => redactText(text, language, types);

describe('e-mail addresses', () => {
  it('finds written ones, and spoken ones ending in a known domain, per language', () => {
    expect(red('Write to jane.doe+news@example.co.uk today.')).toBe('Write to [EMAIL] today.');
    expect(red('my email is john at example dot com, thanks')).toBe('my email is [EMAIL], thanks');
    expect(red('it is john dot smith at mail dot example dot org.')).toBe('it is [EMAIL].');
    expect(red('send it to anna at example.com please')).toBe('send it to [EMAIL] please');
    expect(red('escribe a juan arroba correo punto es mañana', 'es')).toBe('escribe a [EMAIL] mañana');
    expect(red('écrivez à marie arobase exemple point fr', 'fr')).toBe('écrivez à [EMAIL]');
    expect(red('schreiben Sie an max at firma punkt de', 'de')).toBe('schreiben Sie an [EMAIL]');
  });

  it('leaves "at" and "dot" alone where they are not an address', () => {
    for (const text of ['meet me at noon', 'look at that dot over there', 'we arrived at the station dot', 'at example dot nothing'])
      expect(red(text)).toBe(text);
  });
});

describe('phone and card numbers', () => {
  it('finds phone numbers written or read out digit by digit', () => {
    expect(red('Call (555) 123-4567, anytime.')).toBe('Call [PHONE], anytime.');
    expect(red('call +44 20 7946 0958 now')).toBe('call [PHONE] now');
    expect(red('it is five five five one two three four five six seven')).toBe('it is [PHONE]');
    expect(red('double five five, one two three four')).toBe('[PHONE]');
    // As a recognizer wrote "five five five one two three four five six seven": "for" between digits is a four.
    expect(red('call me back at 555123 for 567. Thank you.')).toBe('call me back at [PHONE]. Thank you.');
    expect(red('wait for 5 minutes, call 555 for 1234')).toBe('wait for 5 minutes, call [PHONE]');
    expect(red('mi número es seis uno dos tres cuatro cinco seis siete ocho', 'es')).toBe('mi número es [PHONE]');
    expect(red('meine Nummer ist null eins sieben zwei drei vier fünf sechs sieben', 'de')).toBe('meine Nummer ist [PHONE]');
  });

  it('tells a card by its Luhn check, and keeps years, amounts and short numbers', () => {
    expect(red('card 4111 1111 1111 1111 expires')).toBe('card [CARD] expires');
    expect(red('four one one one one one one one one one one one one one one one')).toBe('[CARD]');
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    // Sixteen digits failing the check are neither a card nor a phone number.
    expect(red('ref 4111 1111 1111 1112')).toBe('ref 4111 1111 1111 1112');
    for (const text of ['In 2016 and 2017 we sold 300,000 units.', 'It costs 12.50 dollars.', 'one or two people', 'room 101'])
      expect(red(text)).toBe(text);
  });

  it('redacts only the kinds asked for', () => {
    expect(red('call 555 123 4567 or write to a@b.com', 'en', new Set<PiiType>(['email']))).toBe('call 555 123 4567 or write to [EMAIL]');
    expect(red('card 4111 1111 1111 1111', 'en', new Set<PiiType>(['phone']))).toBe('card 4111 1111 1111 1111');
  });
});

describe('IBANs', () => {
  it('finds them in one piece or in groups of four when the check passes', () => {
    expect(red('IBAN DE89 3704 0044 0532 0130 00, please.')).toBe('IBAN [IBAN], please.');
    expect(red('use GB29NWBK60161331926819 for it')).toBe('use [IBAN] for it');
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(red('not DE89 3704 0044 0532 0130 01')).toBe('not DE89 3704 0044 0532 0130 01');
  });
});

describe('names of people (English)', () => {
  const PERSON = new Set<PiiType>(['person']);
  it('finds names as a recognizer writes them, and leaves places, companies and plain words', () => {
    expect(red('Hello, this is Sarah Johnson calling from the bank.', 'en', PERSON)).toBe('Hello, this is [PERSON] calling from the bank.');
    expect(red('my name is john smith and I live in Boston', 'en', PERSON)).toBe('my name is [PERSON] and I live in Boston');
    expect(red('Please ask Dr. Patel to call me.', 'en', PERSON)).toBe('Please ask [PERSON] to call me.');
    for (const text of ['The weather is nice in Paris today.', 'Apple announced a new phone on Monday.', 'We will meet next week.'])
      expect(red(text, 'en', PERSON)).toBe(text);
  });

  it('is English only: another language keeps its text (the job refuses it before storing, domain/jobs/state.ts)', () => {
    expect(red('Hola, soy María García del banco.', 'es', PERSON)).toBe('Hola, soy María García del banco.');
  });

  it('makes one word of a name said in several words, with their times', () => {
    const words = [
      { start: 0, end: 0.3, text: ' I', confidence: 0.9 },
      { start: 0.3, end: 0.6, text: ' met', confidence: 0.9 },
      { start: 0.6, end: 1.0, text: ' Sarah', confidence: 0.8 },
      { start: 1.0, end: 1.5, text: ' Johnson.', confidence: 0.7 },
    ];
    expect(redactWords(words, 'en', PERSON)).toEqual([words[0], words[1], { start: 0.6, end: 1.5, text: ' [PERSON].', confidence: 0.7 }]);
  });
});

describe('names, addresses and IDs read from the personal-data model', () => {
  const MODEL_KINDS = new Set<PiiType>(['person', 'address', 'id']);
  const redactWith = async (text: string, language: string, types: ReadonlySet<PiiType> = MODEL_KINDS) =>
    (await redactTranscript({ text, language, segments: [{ text, language }], words: null }, [...types], model())).text;

  it('finds names in every language it covers, whole ("Anna Schmidt"), and keeps places and firms', async () => {
    expect(await redactWith('Hallo, ich heiße Anna Schmidt und wohne in Köln.', 'de', new Set(['person']))).toBe(
      'Hallo, ich heiße [PERSON] und wohne in Köln.',
    );
    expect(await redactWith('Ayer hablé con María García y estuvo de acuerdo.', 'es')).toBe('Ayer hablé con [PERSON] y estuvo de acuerdo.');
    expect(await redactWith('Je m’appelle Marie Dubois et j’ai une question.', 'fr')).toBe('Je m’appelle [PERSON] et j’ai une question.');
    expect(await redactWith('Mi chiamo Giulia Rossi e ho una domanda.', 'it')).toBe('Mi chiamo [PERSON] e ho una domanda.');
    // English: the model and compromise together.
    expect(await redactWith('Could you ask Oluwaseun Adeyemi to call me back?', 'en')).toBe('Could you ask [PERSON] to call me back?');
    for (const [text, language] of [
      ['The United Nations met in Geneva last spring.', 'en'],
      ['La réunion à Bordeaux a été déplacée à lundi.', 'fr'],
    ] as const)
      expect(await redactWith(text, language)).toBe(text);
  });

  it('finds a street address with its number, city and postcode, and leaves a street named as a place', async () => {
    expect(await redactWith('I live at 22 Baker Street, London NW1 6XE.', 'en')).toBe('I live at [ADDRESS].');
    expect(await redactWith('Envoyez le colis au 12 rue de la Paix, 75002 Paris, merci.', 'fr')).toBe(
      'Envoyez le colis au [ADDRESS], merci.',
    );
    expect(await redactWith('Ich wohne in der Hauptstraße 10, Berlin.', 'de')).toBe('Ich wohne in der [ADDRESS].');
    expect(await redactWith('Main Street is closed for the parade on Sunday.', 'en')).toBe(
      'Main Street is closed for the parade on Sunday.',
    );
  });

  it('finds ID numbers written or read out after the words that name them, and keeps other numbers', async () => {
    expect(await redactWith('My social security number is 123-45-6789, I checked it twice.', 'en')).toBe(
      'My social security number is [ID], I checked it twice.',
    );
    expect(await redactWith('mi DNI es uno dos tres cuatro cinco seis siete ocho Z, gracias', 'es')).toBe('mi DNI es [ID], gracias');
    expect(await redactWith('Il mio codice fiscale è RSSMRA85T10A562S.', 'it')).toBe('Il mio codice fiscale è [ID].');
    expect(await redactWith('Meine Reisepassnummer ist C 0 1 X 0 0 T 4 7.', 'de')).toBe('Meine Reisepassnummer ist [ID].');
    expect(await redactWith('The passport photo costs 12 euros and takes 5 minutes.', 'en')).toBe(
      'The passport photo costs 12 euros and takes 5 minutes.',
    );
  });

  it('reads a long transcript in windows: a name is found wherever it falls, the same in text, segments and words', async () => {
    const filler = 'and then we talked about the weather for a while';
    const said: string[] = [];
    const names = ['Sarah Johnson', 'Michael Brown', 'Priya Patel', 'Thomas Wright', 'Grace Kim'];
    for (const name of names) said.push(`${filler} ${filler} ${filler}, and I called ${name} about it.`);
    const text = said.join(' ');
    const segments = said.map((t) => ({ text: t, language: 'en' }));
    let at = 0;
    const words = text.split(' ').map((w) => ({ start: at, end: (at += 0.3), text: w }));
    expect(words.length).toBeGreaterThan(150); // more than one window of the model
    const done = await redactTranscript({ text, language: 'en', segments, words }, ['person'], model());
    expect(done.text.match(/\[PERSON\]/g)).toHaveLength(names.length);
    expect(done.segments.map((s) => s.text).join(' ')).toBe(done.text);
    expect(done.words!.map((w) => w.text).join(' ')).toBe(done.text);
    for (const name of names) expect(done.text).not.toContain(name.split(' ')[1]);
    // A word far longer than a window of the model is read by its start, not refused.
    const long = `${'ab-'.repeat(400)} and I called Sarah Johnson`;
    expect(await redactWith(long, 'en', new Set(['person']))).toBe(`${'ab-'.repeat(400)} and I called [PERSON]`);
    // Words of many tokens make short windows: every word is still read.
    const dense = Array.from({ length: 12 }, () => `${'x-'.repeat(20)}x ${'y-'.repeat(20)}y and I called Sarah Johnson.`).join(' ');
    expect((await redactWith(dense, 'en', new Set(['person']))).match(/\[PERSON\]/g)).toHaveLength(12);
  });

  it('reads what the model tags by rules: capitalised names and streets in a cased text, an address needs a number, a city or a postcode', () => {
    const find = (text: string, tags: Array<ModelEntity | null>, types = MODEL_KINDS) =>
      findPii(text.split(' '), 'fr', types, tags).map((s) => [s.type, text.split(' ').slice(s.start, s.end).join(' ')]);
    // A lower-case word in a text with capitals is not a name; in a text without capitals it may be.
    expect(find('Nous partons vendredi avec Paul', [null, null, 'person', null, 'person'])).toEqual([['person', 'Paul']]);
    expect(find('nous partons vendredi', [null, null, 'person'])).toEqual([['person', 'vendredi']]);
    // A street with its number is an address; a street alone, a city alone, are places.
    expect(find('au 12 rue de la Paix demain', [null, 'building_number', 'street', 'street', 'street', 'street', null])).toEqual([
      ['address', '12 rue de la Paix'],
    ]);
    expect(find('la rue de la Paix est fermée', [null, 'street', 'street', 'street', 'street', null, null])).toEqual([]);
    expect(find('à Paris demain', [null, 'city', null])).toEqual([]);
    // Without the model's reading, no address; an ID still by its cue words.
    expect(find('au 12 rue de la Paix', [null, null, null, null, null, null], new Set(['address']))).toEqual([]);
    expect(findPii('mon numéro de passeport est 12AB34567'.split(' '), 'fr', new Set(['id']))).toEqual([{ start: 5, end: 6, type: 'id' }]);
  });

  it('says which kinds each language has, with the model and without it', () => {
    const without = redactionCoverage(null);
    expect(without.types).not.toContain('address');
    expect(kindsNotCovered(without, ['person'], 'de')).toEqual(['person']);
    expect(kindsNotCovered(without, ['person', 'email'], 'en-GB')).toEqual([]);
    const withModel = redactionCoverage(model());
    expect(withModel.types).toEqual(expect.arrayContaining(['person', 'address', 'id', 'email']));
    expect(kindsNotCovered(withModel, ['person', 'address', 'id'], 'de')).toEqual([]);
    // Names in Portuguese measured below 0.85 recall: refused there; Japanese has none of the three.
    expect(kindsNotCovered(withModel, ['person', 'address'], 'pt-BR')).toEqual(['person']);
    expect(kindsNotCovered(withModel, ['address', 'id'], 'ja')).toEqual(['address', 'id']);
  });
});

describe('a transcript redacted', () => {
  it("finds a number or a name the recognizer cut between two segments, and redacts each segment's part of it", async () => {
    const segments = [
      { start: 0, end: 5.28, text: 'Hello, this is the front desk. Please call me back at 555123', language: 'en' },
      { start: 5.28, end: 8.2, text: 'for 567. Thank you.', language: 'en' },
      { start: 8.2, end: 9, text: 'Bonjour Marie', language: 'fr' },
      { start: 9, end: 10, text: 'Dubois, merci.', language: 'fr' },
    ];
    const text = segments.map((s) => s.text).join(' ');
    const plain = await redactTranscript({ text, language: 'en', segments, words: null }, ['phone']);
    expect(plain.segments.map((s) => s.text)).toEqual([
      'Hello, this is the front desk. Please call me back at [PHONE]',
      '[PHONE]. Thank you.',
      'Bonjour Marie',
      'Dubois, merci.',
    ]);
    expect(plain.segments.map((s) => s.start)).toEqual([0, 5.28, 8.2, 9]);
    expect(plain.text).toBe('Hello, this is the front desk. Please call me back at [PHONE]. Thank you. Bonjour Marie Dubois, merci.');
  });

  it('replaces a redacted run of words by one word spanning their times, keeping the rest', async () => {
    const words = [
      { start: 0, end: 0.4, text: ' Call', confidence: 0.9 },
      { start: 0.5, end: 0.8, text: ' five', confidence: 0.8 },
      { start: 0.8, end: 1.1, text: ' five', confidence: 0.7 },
      { start: 1.1, end: 1.4, text: ' five', confidence: 0.9 },
      { start: 1.4, end: 1.7, text: ' one', confidence: 0.9 },
      { start: 1.7, end: 2.0, text: ' two', confidence: 0.9 },
      { start: 2.0, end: 2.3, text: ' three', confidence: 0.9 },
      { start: 2.3, end: 2.6, text: ' four.', confidence: 0.95 },
      { start: 3, end: 3.4, text: ' Thanks.', confidence: 0.9 },
    ];
    expect(redactWords(words, 'en', ALL)).toEqual([words[0], { start: 0.5, end: 2.6, text: ' [PHONE].', confidence: 0.7 }, words[8]]);
    const t = await redactTranscript(
      {
        text: 'Call five five five one two three four. Thanks.',
        language: 'en',
        segments: [{ start: 0, end: 3.4, text: 'Call five five five one two three four. Thanks.' }],
        words,
      },
      ['phone'],
    );
    expect(t.text).toBe('Call [PHONE]. Thanks.');
    expect(t.segments[0]!.text).toBe('Call [PHONE]. Thanks.');
    expect(t.words!.map((w) => w.text).join('')).toBe(' Call [PHONE]. Thanks.');
    expect(await redactTranscript({ text: 'x', language: 'en', segments: [], words: null }, [])).toEqual({
      text: 'x',
      language: 'en',
      segments: [],
      words: null,
    });
  });

  it('redacts a long transcript piece by piece, the same as at once, its spacing kept', async () => {
    const sentence = 'So I talked to Sarah Johnson, then called 555 123 4567.\n';
    const text = `  ${sentence.repeat(300)}`;
    const words = text
      .trim()
      .split(/\s+/)
      .map((w, i) => ({ start: i, end: i + 0.5, text: ` ${w}`, confidence: 0.9 }));
    const types = ['person', 'phone'] as const;
    const long = await redactTranscript({ text, language: 'en', segments: [], words }, types);
    expect(long.text).toBe(`  ${'So I talked to [PERSON], then called [PHONE].\n'.repeat(300)}`);
    expect(long.words).toEqual(redactWords(words, 'en', new Set(types)));
    expect(long.words!.filter((w) => w.text.includes('[PERSON]'))).toHaveLength(300);
  });

  it('keeps line breaks and spacing of the text', () => {
    expect(red('Line one\nmail: a@b.com\n\nend')).toBe('Line one\nmail: [EMAIL]\n\nend');
  });

  it('spans found do not overlap and come in order', () => {
    const tokens = 'write a@b.com or call 555 123 4567 and DE89 3704 0044 0532 0130 00'.split(' ');
    const spans = findPii(tokens, 'en', ALL);
    expect(spans.map((s) => s.type)).toEqual(['email', 'phone', 'iban']);
    spans.slice(1).forEach((s, i) => expect(s.start).toBeGreaterThanOrEqual(spans[i]!.end));
  });
});

describe('the request', () => {
  const parse = (body: object) =>
    JobRequestSchema.safeParse({ source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' }, mode: 'auto', ...body });

  it('redacts every kind the deployment has by default, in one order however they are listed', () => {
    const all = parse({ redact_pii: true });
    expect(all.success && jobSpecOf(all.data)).toMatchObject({ redact_pii: true, redact_pii_types: ['email', 'phone', 'card', 'iban'] });
    const some = parse({ redact_pii: true, redact_pii_types: ['iban', 'email', 'email'] });
    expect(some.success && jobSpecOf(some.data).redact_pii_types).toEqual(['email', 'iban']);
    const none = parse({});
    expect(none.success && jobSpecOf(none.data)).toMatchObject({ redact_pii: false, redact_pii_types: [] });
  });

  it('refuses kinds without redact_pii, unknown kinds and an empty list, naming the field', () => {
    for (const body of [
      { redact_pii_types: ['email'] },
      { redact_pii: true, redact_pii_types: ['ssn'] },
      { redact_pii: true, redact_pii_types: [] },
    ]) {
      const r = parse(body);
      expect(r.success).toBe(false);
      expect(!r.success && r.error.issues[0]!.path[0]).toBe('redact_pii_types');
    }
  });
});
