import { stitch } from '../../../integrations/media/split';
import { segmentsFromWords, speakerSummary, sumLanguageSeconds } from '../../../integrations/recognizers/result';
import { finishWhisperPiece, pieceResult, withSpeakers } from '../../../integrations/recognizers/whisper';
import { reuseKey } from '../../../domain/jobs/reuse';
import { JOB_SPEC_DEFAULTS, jobSpecOf, JobRequestSchema } from '../../../domain/schemas/jobs';

// Speakers and languages through the finishing of a recognizer's result (issue 25, items 1 and 4), and the
// recognition options' part in validation and reuse.

const word = (text: string, start: number, end: number, extra: { speaker?: string; language?: string } = {}) => ({
  text,
  start,
  end,
  confidence: 0.9,
  ...extra,
});

describe('segments never straddle a change of speaker or language', () => {
  test('a turn that changes without a pause starts a new segment, which carries the speaker', () => {
    const segs = segmentsFromWords([
      word('hello', 0, 0.4, { speaker: 'A' }),
      word('there', 0.45, 0.8, { speaker: 'A' }),
      word('hi', 0.8, 1.0, { speaker: 'B' }),
      word('again', 1.05, 1.4, { speaker: 'B' }),
    ]);
    expect(segs).toEqual([
      { start: 0, end: 0.8, text: 'hello there', speaker: 'A' },
      { start: 0.8, end: 1.4, text: 'hi again', speaker: 'B' },
    ]);
  });

  test('a change of language starts a new segment, which carries the language', () => {
    const segs = segmentsFromWords([
      word('thank', 0, 0.3, { language: 'en' }),
      word('you', 0.3, 0.5, { language: 'en' }),
      word('gracias', 0.55, 1, { language: 'es' }),
    ]);
    expect(segs.map((s) => [s.text, s.language])).toEqual([
      ['thank you', 'en'],
      ['gracias', 'es'],
    ]);
  });

  test('speakers counted by words and by the seconds of their segments', () => {
    const words = [word('a', 0, 1, { speaker: 'A' }), word('b', 1, 1.5, { speaker: 'B' }), word('c', 3, 4, { speaker: 'A' })];
    expect(speakerSummary(words, segmentsFromWords(words))).toEqual([
      { id: 'A', words: 2, seconds: 2 },
      { id: 'B', words: 1, seconds: 0.5 },
    ]);
    expect(speakerSummary([word('x', 0, 1)], segmentsFromWords([word('x', 0, 1)]))).toEqual([]);
  });
});

describe("the recognizer's result", () => {
  const raw = (words: object[], languages?: object[]) => ({
    model: 'whisper-base',
    language: 'en',
    language_probability: 0.9,
    duration: 10,
    no_speech: false,
    text: '',
    words,
    ...(languages ? { languages } : {}),
  });

  test('labelSpeakers gives each word of a piece its speaker, in order; a count that does not match is refused', () => {
    const r = raw([
      { start: 0, end: 0.5, text: ' Hello', confidence: 0.9 },
      { start: 0.6, end: 1, text: ' there', confidence: 0.9 },
    ]);
    const finished = finishWhisperPiece(withSpeakers(r, ['A', 'B']));
    expect(finished.result.words.map((w) => w.speaker)).toEqual(['A', 'B']);
    expect(() => withSpeakers(r, ['A'])).toThrow(expect.objectContaining({ code: 'PROVIDER_REJECTED' }));
    expect(finishWhisperPiece(withSpeakers(r, undefined)).result.words.every((w) => w.speaker === undefined)).toBe(true);
  });

  test('the languages of the pieces add up, and the transcript is in the language spoken longest', () => {
    const a = finishWhisperPiece(
      raw(
        [{ start: 0, end: 1, text: ' hola', confidence: 0.9, language: 'es' }],
        [
          { language: 'es', seconds: 4 },
          { language: 'en', seconds: 3 },
        ],
      ),
    );
    const b = finishWhisperPiece(
      raw([{ start: 0, end: 1, text: ' hello', confidence: 0.9, language: 'en' }], [{ language: 'en', seconds: 2.5 }]),
    );
    const out = stitch([
      { startMs: 0, result: pieceResult(a) },
      { startMs: 10_000, result: pieceResult(b) },
    ]);
    expect(out.languages).toEqual([
      { language: 'en', seconds: 5.5 },
      { language: 'es', seconds: 4 },
    ]);
    expect(out.language).toBe('en');
    expect(out.segments.map((s) => s.language)).toEqual(['es', 'en']);
    expect(sumLanguageSeconds([])).toEqual([]);
  });
});

describe('recognition options', () => {
  const base = { source: { upload_id: '00000000-0000-4000-8000-000000000001' }, mode: 'transcribe' } as const;
  const issues = (body: object) => {
    const r = JobRequestSchema.safeParse({ ...base, ...body });
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };

  test('each bound is checked and named', () => {
    expect(issues({ speaker_labels: true, speakers_expected: 10, vocabulary: ['x'.repeat(50)], profile: 'fast' })).toEqual([]);
    expect(issues({ speaker_labels: true, speakers_expected: 11 })).toEqual(['speakers_expected']);
    expect(issues({ speaker_labels: true, speakers_expected: 0 })).toEqual(['speakers_expected']);
    expect(issues({ speakers_expected: 2 })).toEqual(['speakers_expected']);
    expect(issues({ vocabulary: Array.from({ length: 101 }, (_, i) => `t${i}`) })).toEqual(['vocabulary']);
    expect(issues({ vocabulary: ['x'.repeat(51)] })).toEqual(['vocabulary.0']);
    expect(issues({ vocabulary: ['ok', '  '] })).toEqual(['vocabulary.1']);
    expect(issues({ vocabulary: ['a\u0000b'] })).toEqual(['vocabulary.0']);
    expect(issues({ profile: 'turbo' })).toEqual(['profile']);
    expect(
      issues({ mode: 'captions_only', source: { url: 'https://videosite.example/watch?v=abc' }, speaker_labels: true, vocabulary: ['x'] }),
    ).toEqual(['vocabulary', 'speaker_labels']);
  });

  test('the defaults keep the reuse key a request without them always had; anything else changes it', () => {
    const key = (body: object) => {
      const req = JobRequestSchema.parse({ ...base, ...body });
      return reuseKey({ platform: 'upload', mediaId: 'u1', spec: jobSpecOf(req), alignText: req.align_text ?? null });
    };
    const plain = reuseKey({ platform: 'upload', mediaId: 'u1', spec: { ...JOB_SPEC_DEFAULTS, mode: 'transcribe' }, alignText: null });
    expect(key({})).toBe(plain);
    expect(key({ profile: 'standard', speaker_labels: false, vocabulary: [] })).toBe(plain);
    const changed = [
      key({ profile: 'fast' }),
      key({ vocabulary: ['Quilter'] }),
      key({ speaker_labels: true }),
      key({ speaker_labels: true, speakers_expected: 2 }),
    ];
    expect(new Set([plain, ...changed]).size).toBe(5);
    // The vocabulary is a set: order and repeats do not matter.
    expect(key({ vocabulary: ['b', 'a', 'a'] })).toBe(key({ vocabulary: ['a', 'b'] }));
    // A text to align is part of the key (by its hash): another text is another transcript.
    expect(key({ align_text: 'one text' })).not.toBe(plain);
    expect(key({ align_text: 'one text' })).not.toBe(key({ align_text: 'another text' }));
    expect(key({ align_text: 'one text' })).toBe(key({ align_text: 'one text' }));
  });

  test('word_timing changes the key of caption requests in both caption modes, and only when true', () => {
    const key = (body: object) => {
      const req = JobRequestSchema.parse({ source: { url: 'https://www.youtube.com/watch?v=x' }, caption_languages: ['en'], ...body });
      return reuseKey({ platform: 'videosite', mediaId: 'x', spec: jobSpecOf(req), alignText: null });
    };
    for (const mode of ['captions_only', 'auto'] as const) {
      const plain = reuseKey({
        platform: 'videosite',
        mediaId: 'x',
        spec: { ...JOB_SPEC_DEFAULTS, mode, caption_languages: ['en'] },
        alignText: null,
      });
      expect(key({ mode })).toBe(plain);
      expect(key({ mode, word_timing: false })).toBe(plain);
      expect(key({ mode, word_timing: true })).not.toBe(plain);
    }
  });
});
