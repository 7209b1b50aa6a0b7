import { ServiceError } from '../../../core/errors';
import { cleanWords, joinWords, resultFromWords, segmentsFromWords } from '../../../integrations/recognizers/result';
import {
  EXPERIMENTAL_LANGUAGE,
  TARGET_LANGUAGES,
  qualityStatus,
  recognizeOrEmpty,
  resolveLanguage,
  type SpeechRecognizer,
} from '../../../integrations/recognizers/types';
import { AssemblyAiRecognizer } from '../../../integrations/recognizers/cloud';

const w = (text: string, start: number, end: number, confidence = 0.9) => ({ text, start, end, confidence });

describe('cleanWords', () => {
  test('confidences clamped to 0..1, times monotonic and inside the audio, empty words dropped', () => {
    const out = cleanWords(
      [w('a', 0.5, 0.9, 1.0001), w(' ', 1, 1.1), w('b', 0.85, 1.2, -0.1), w('c', 1.3, 1.25, NaN), w('d', 1.9, 2.4)],
      2.2,
    );
    expect(out).toEqual([
      { text: 'a', start: 0.5, end: 0.9, confidence: 1 },
      { text: 'b', start: 0.9, end: 1.2, confidence: 0 },
      { text: 'c', start: 1.3, end: 1.3, confidence: 0 },
      { text: 'd', start: 1.9, end: 2.2, confidence: 0.9 },
    ]);
  });
});

describe('segmentsFromWords', () => {
  test('a pause of 0.6 s or more starts a segment', () => {
    const segs = segmentsFromWords([w('one', 0, 0.3), w('two', 0.4, 0.7), w('three', 1.4, 1.8)]);
    expect(segs).toEqual([
      { start: 0, end: 0.7, text: 'one two' },
      { start: 1.4, end: 1.8, text: 'three' },
    ]);
  });

  test('at most 12 words per segment', () => {
    const words = Array.from({ length: 30 }, (_, i) => w(`w${i}`, i * 0.3, i * 0.3 + 0.25));
    expect(segmentsFromWords(words).map((s) => s.text.split(' ').length)).toEqual([12, 12, 6]);
  });
});

test('joinWords writes CJK without spaces', () => {
  expect(joinWords(['hello', 'world'])).toBe('hello world');
  expect(joinWords(['今日は', '晴れ'])).toBe('今日は晴れ');
  expect(joinWords(['안녕하세요', '여러분'])).toBe('안녕하세요 여러분');
  // CJK punctuation and full-width forms stay attached (Whisper gives them as words of their own).
  expect(joinWords(['整理', 'する', 'の', 'である', '。'])).toBe('整理するのである。');
  expect(joinWords(['本当', '？'])).toBe('本当？');
});

test('resultFromWords: no words is NO_SPEECH', () => {
  expect(() => resultFromWords('en', [], { engine: 'x' })).toThrow(expect.objectContaining({ code: 'NO_SPEECH' }));
});

describe('languages and quality status', () => {
  const multilingual: SpeechRecognizer = {
    name: 'stub',
    model: 'stub-model',
    languages: () => ({ validated: ['en'], supported: ['es', 'fr', 'de', 'pt', 'it', 'ja', 'ko'], experimental: ['hi'] }),
    recognize: async () => {
      throw new ServiceError('NO_SPEECH', 'stub heard nothing');
    },
  };

  test.each([
    ['en', 'validated_language'],
    ['en-US', 'validated_language'],
    ['pt_BR', 'provider_supported'],
    ['ja', 'provider_supported'],
    ['hi', 'experimental_language'],
    ['hi-IN', 'experimental_language'],
  ])('%s → %s', (lang, status) => {
    expect(qualityStatus(multilingual, lang)).toBe(status);
  });

  test('a language the recognizer cannot do is LANGUAGE_UNSUPPORTED, naming it', () => {
    expect(() => qualityStatus(multilingual, 'zh')).toThrow(
      expect.objectContaining({ code: 'LANGUAGE_UNSUPPORTED', detail: expect.stringContaining('language=zh') }),
    );
    expect(() => resolveLanguage(multilingual, 'nl')).toThrow(expect.objectContaining({ code: 'LANGUAGE_UNSUPPORTED' }));
  });

  test('no language asked means auto-detection', () => {
    expect(resolveLanguage(multilingual, undefined)).toBeUndefined();
    expect(resolveLanguage(multilingual, '')).toBeUndefined();
  });

  test('the cloud provider lists the eight languages and flags Hindi experimental', () => {
    const cloud = new AssemblyAiRecognizer({ apiKey: 'k', webhookAuthHeaderValue: 's' });
    for (const lang of TARGET_LANGUAGES) expect(qualityStatus(cloud, lang)).toBe('provider_supported');
    expect(EXPERIMENTAL_LANGUAGE).toBe('hi');
    expect(qualityStatus(cloud, 'hi')).toBe('experimental_language');
  });

  test('recognizeOrEmpty turns NO_SPEECH of one piece into an empty result', async () => {
    expect(await recognizeOrEmpty(multilingual, '/nowhere.wav')).toEqual({ language: null, text: '', segments: [], words: [] });
  });
});
