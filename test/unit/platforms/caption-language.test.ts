import * as tinyld from 'tinyld';
import { checkCaptionLanguage } from '../../../domain/transcripts/caption-language';

// The identifier, counted: the check asks it about as few pieces as the answer needs.
jest.mock('tinyld', () => {
  const actual = jest.requireActual('tinyld');
  return { ...actual, detectAll: jest.fn(actual.detectAll) };
});
const detectAll = tinyld.detectAll as jest.MockedFunction<typeof tinyld.detectAll>;

// The platform's caption label checked against the text (issue 25, item 4).

const english = [
  'To the north and within easy reach is the romantic and fascinating town of Sintra,',
  'which was made famous to foreigners after a glowing account of its splendours recorded by Lord Byron.',
];
const spanish = ['Hola a todos, bienvenidos de nuevo al canal.', 'Hoy vamos a hablar de la historia de la ciudad y de sus habitantes.'];
const german = ['Er griff auch alles an, was ins Wasser kam;', 'selbst ein großer Dinosaurier wie der T. rex war ihm nicht gewachsen.'];

describe('checkCaptionLanguage', () => {
  test('a track whose text is in its labelled language matches, whatever the tag form', () => {
    expect(checkCaptionLanguage('en', english)).toEqual({ label: 'en', detected: 'en', matches: true });
    expect(checkCaptionLanguage('es-419', spanish)).toMatchObject({ detected: 'es', matches: true });
    expect(checkCaptionLanguage('de-DE', german)).toMatchObject({ detected: 'de', matches: true });
  });

  test('a track in another language than its label is reported with the language found', () => {
    expect(checkCaptionLanguage('fr', english)).toEqual({ label: 'fr', detected: 'en', matches: false });
    expect(checkCaptionLanguage('en', spanish)).toEqual({ label: 'en', detected: 'es', matches: false });
  });

  test('too little text, sound descriptions only, or a label the identifier does not know: no verdict', () => {
    expect(checkCaptionLanguage('en', ['Hi!'])).toMatchObject({ detected: null, matches: null });
    expect(checkCaptionLanguage('en', ['[Music]', '(applause)', '♪ ♪'])).toMatchObject({ detected: null, matches: null });
    expect(checkCaptionLanguage('si', english)).toMatchObject({ detected: 'en', matches: null });
    expect(checkCaptionLanguage(null, english)).toMatchObject({ detected: 'en', matches: null });
  });

  test('platform codes that name the same language agree', () => {
    const tagalog = ['Magandang umaga sa inyong lahat, maraming salamat sa pagpunta ninyo dito ngayong araw na ito.'];
    expect(checkCaptionLanguage('fil', tagalog)).toMatchObject({ detected: 'tl', matches: true });
  });

  test('stops asking once a language has more than half the letters: the same answer from about half the pieces', () => {
    // About 5,500 characters of English: 19 pieces of about 300.
    const long = Array.from({ length: 60 }, (_, i) => english[i % 2]!);
    detectAll.mockClear();
    expect(checkCaptionLanguage('en', long)).toMatchObject({ detected: 'en', matches: true });
    const uniformCalls = detectAll.mock.calls.length;
    expect(uniformCalls).toBeGreaterThanOrEqual(7);
    expect(uniformCalls).toBeLessThanOrEqual(11);
    // English for its first 18 cues, then Spanish (which has a little more than half the letters): the
    // majority is known only near the end.
    const mixed = Array.from({ length: 60 }, (_, i) => (i < 18 ? english[i % 2]! : spanish[i % 2]!));
    detectAll.mockClear();
    expect(checkCaptionLanguage('es', mixed)).toMatchObject({ detected: 'es', matches: true });
    expect(detectAll.mock.calls.length).toBeGreaterThan(uniformCalls);
  });

  test('a long track is sampled across its whole length, not only its start', () => {
    // An English intro of 300 cues, then 1,700 cues of Spanish: the first 6,000 characters alone say English.
    const long = Array.from({ length: 2000 }, (_, i) => (i < 300 ? english[i % 2]! : spanish[i % 2]!));
    expect(checkCaptionLanguage('es', long)).toMatchObject({ detected: 'es', matches: true });
  });
});
