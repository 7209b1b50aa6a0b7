import { languageQualityTable, meetsValidationRule, VALIDATION_RULE } from '../../integrations/recognizers/quality';
import { qualityStatus } from '../../integrations/recognizers/types';
import { DEFAULT_WHISPER_MODEL, finishWhisperPiece, WhisperRecognizer, whisperModelName } from '../../integrations/recognizers/whisper';

// The TypeScript half of the embedded recognizer: the model's name, the
// languages and their measured quality, and the finishing of the raw result
// the Python worker stores for each piece. (The Python half is exercised by
// test/recognizers/recognizer-worker.test.ts; whole jobs by test/transcription.test.ts.)

const raw = (over: object = {}) => ({
  model: 'whisper-base',
  language: 'en',
  language_probability: 0.97,
  detected_language: 'en',
  duration: 4,
  speech_duration: 3.5,
  no_speech: false,
  text: ' Hello, world. Again.',
  segments: [{ start: 0.5, end: 2, text: 'Hello, world. Again.' }],
  words: [
    { start: 0.5, end: 0.9, text: ' Hello,', confidence: 0.9 },
    { start: 0.85, end: 1.3, text: ' world.', confidence: 1.0001 },
    { start: 3.2, end: 4.4, text: ' Again.', confidence: 0.5 },
  ],
  recognize_seconds: 0.8,
  ...over,
});

describe('finishWhisperPiece', () => {
  test('words trimmed, monotonic, inside the piece, confidences clamped; caption segments; text of exactly the words', () => {
    const { result, model, languageProbability } = finishWhisperPiece(raw());
    expect(model).toBe('whisper-base');
    expect(languageProbability).toBe(0.97);
    expect(result.language).toBe('en');
    expect(result.words).toEqual([
      { text: 'Hello,', start: 0.5, end: 0.9, confidence: 0.9 },
      { text: 'world.', start: 0.9, end: 1.3, confidence: 1 },
      { text: 'Again.', start: 3.2, end: 4, confidence: 0.5 },
    ]);
    expect(result.text).toBe('Hello, world. Again.');
    // The 1.9 s pause starts a new segment.
    expect(result.segments).toEqual([
      { start: 0.5, end: 1.3, text: 'Hello, world.' },
      { start: 3.2, end: 4, text: 'Again.' },
    ]);
  });

  test('a word without a leading space continues the previous one (French elision)', () => {
    const words = [
      { start: 0, end: 0.2, text: ' Justement', confidence: 0.8 },
      { start: 0.2, end: 0.3, text: ' d', confidence: 0.9 },
      { start: 0.3, end: 0.7, text: "'abord.", confidence: 0.7 },
    ];
    const { result } = finishWhisperPiece(raw({ language: 'fr', words }));
    expect(result.text).toBe("Justement d'abord.");
    expect(result.words[1]).toEqual({ text: "d'abord.", start: 0.2, end: 0.7, confidence: 0.8 });
  });

  test('Japanese: characters joined without spaces', () => {
    const words = ['客', '観', '的', '実', '在', '。'].map((t, i) => ({ start: i * 0.3, end: i * 0.3 + 0.25, text: t, confidence: 0.9 }));
    const { result } = finishWhisperPiece(raw({ language: 'ja', words }));
    expect(result.text).toBe('客観的実在。');
  });

  test('a piece without speech is an empty result, not an error (stitch decides NO_SPEECH)', () => {
    expect(finishWhisperPiece(raw({ no_speech: true, words: [], text: '', language: null, language_probability: null }))).toEqual({
      result: { language: null, text: '', segments: [], words: [] },
      model: 'whisper-base',
      languageProbability: null,
      languages: [],
    });
  });

  test('a malformed result is PROVIDER_REJECTED', () => {
    expect(() => finishWhisperPiece({ words: 'nope' })).toThrow(expect.objectContaining({ code: 'PROVIDER_REJECTED' }));
  });
});

describe('model name', () => {
  test('the bundled model, or the folder name of WHISPER_MODEL_DIR (as recognizer/model.py reports it)', () => {
    expect(whisperModelName(undefined)).toBe(DEFAULT_WHISPER_MODEL);
    expect(whisperModelName('  ')).toBe('whisper-base');
    expect(whisperModelName('/models/faster-whisper-large-v3/')).toBe('faster-whisper-large-v3');
  });
});

describe('quality status from measurements', () => {
  test(`the rule: at least ${VALIDATION_RULE.minClips} clips and an error rate of at most ${VALIDATION_RULE.maxErrorRate * 100} %`, () => {
    expect(meetsValidationRule({ metric: 'wer', clips: 15, error_rate: 0.2, reference_units: 300 })).toBe(true);
    expect(meetsValidationRule({ metric: 'wer', clips: 15, error_rate: 0.21, reference_units: 300 })).toBe(false);
    // Fewer than 15 clips cannot tell a few points from noise (issue 50), however good they look.
    expect(meetsValidationRule({ metric: 'wer', clips: 14, error_rate: 0.05, reference_units: 280 })).toBe(false);
    expect(meetsValidationRule({ metric: 'cer', clips: 5, error_rate: 0.05, reference_units: 165 })).toBe(false);
    expect(meetsValidationRule(undefined)).toBe(false);
  });

  test('an unmeasured model validates nothing: every target language provider_supported, Hindi experimental', () => {
    const custom = new WhisperRecognizer('faster-whisper-large-v3');
    expect(custom.languages()).toEqual({
      validated: [],
      supported: ['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko'],
      experimental: ['hi'],
    });
    expect(qualityStatus(custom, 'en')).toBe('provider_supported');
    expect(qualityStatus(custom, 'hi')).toBe('experimental_language');
    expect(() => qualityStatus(custom, 'nl')).toThrow(expect.objectContaining({ code: 'LANGUAGE_UNSUPPORTED' }));
  });

  test('the bundled model: statuses follow the stored measurements (npm run eval:asr)', () => {
    const table = languageQualityTable(new WhisperRecognizer());
    expect(table.map((r) => r.language)).toEqual(['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko', 'hi']);
    for (const row of table) {
      if (row.language === 'hi') expect(row.quality_status).toBe('experimental_language');
      else
        expect(row.quality_status).toBe(
          row.clips >= VALIDATION_RULE.minClips && row.error_rate !== null && row.error_rate <= VALIDATION_RULE.maxErrorRate
            ? 'validated_language'
            : 'provider_supported',
        );
    }
    // ja and ko have fewer than 15 clips in the evaluation set: never validated by it.
    expect(table.find((r) => r.language === 'ja')!.quality_status).toBe('provider_supported');
  });
});
