import { wordTimedCaptionCredits } from '../../../core/plans';
import { jobRequest } from '../../../api/mcp/tools/jobs';
import { UNCONFIRMED_MAX_CREDITS } from '../../../api/mcp/tools/kit';
import { initialHold } from '../../../domain/jobs/submit';
import { alignedCaptions, alignedText, AlignmentResultSchema, MATCH_THRESHOLD } from '../../../domain/transcripts/alignment';

// Forced alignment's rules on the TypeScript side (issue 25, item 2): how the recognition worker's answer becomes
// the transcript, what is held, and the agents' cost cap. End to end in test/alignment.test.ts.

const w = (text: string, start: number, confidence = 0.9) => ({ text: ` ${text}`, start, end: start + 0.3, confidence });

describe('an aligned caption track', () => {
  const segments = [
    { start: 0, end: 2, text: 'hello there', language: 'en' },
    { start: 2, end: 4, text: 'not said', language: 'en' },
    { start: 4, end: 5, text: '♪', language: 'en' },
  ];
  const result = AlignmentResultSchema.parse({
    kind: 'cues',
    model: 'whisper-base',
    language: 'en',
    cues: [
      { words: [w('hello', 0.1), w('there', 0.5)], match: 1 },
      { words: [w('not', 2.2, 0.01), w('said', 2.6, 0.02)], match: 0 },
      { words: [], match: null },
    ],
  });

  test('keeps the cues as segments with their match, adds the words trimmed and in time order, counts the cues not heard', () => {
    const out = alignedCaptions(segments, result);
    expect(out.segments.map((s) => [s.text, s.match, s.language])).toEqual([
      ['hello there', 1, 'en'],
      ['not said', 0, 'en'],
      ['♪', null, 'en'],
    ]);
    expect(out.words.map((x) => x.text)).toEqual(['hello', 'there', 'not', 'said']);
    expect(out.alignment).toEqual({
      method: 'word_timing',
      model: 'whisper-base',
      match_threshold: MATCH_THRESHOLD,
      segments_below_threshold: 1,
    });
  });

  test('a result for another track (a different number of cues) is refused, not stored', () => {
    expect(() => alignedCaptions(segments.slice(0, 2), result)).toThrow(/does not fit/);
    expect(() => alignedText(result)).toThrow(/not a text alignment/);
  });

  test('a result outside the contract is refused at the boundary', () => {
    expect(() => AlignmentResultSchema.parse({ kind: 'cues', model: 'm', language: 'en', cues: [{ words: [], match: 2 }] })).toThrow();
    expect(() => AlignmentResultSchema.parse({ kind: 'other', model: 'm', language: 'en' })).toThrow();
  });
});

test('an aligned text: its sentences are the segments in its language, with every word', () => {
  const out = alignedText(
    AlignmentResultSchema.parse({
      kind: 'text',
      model: 'whisper-base',
      language: 'de',
      segments: [
        { start: 0.1, end: 0.8, text: 'Guten Tag.', words: [w('Guten', 0.1), w('Tag.', 0.5)], match: 1 },
        { start: 1, end: 1.3, text: 'Nie gesagt.', words: [w('Nie', 1), w('gesagt.', 1.1)], match: 0.2 },
      ],
    }),
  );
  expect(out.language).toBe('de');
  expect(out.segments).toEqual([
    { start: 0.1, end: 0.8, text: 'Guten Tag.', language: 'de', match: 1 },
    { start: 1, end: 1.3, text: 'Nie gesagt.', language: 'de', match: 0.2 },
  ]);
  expect(out.words.map((x) => x.text)).toEqual(['Guten', 'Tag.', 'Nie', 'gesagt.']);
  expect(out.alignment).toMatchObject({ method: 'align_text', segments_below_threshold: 1 });
});

test('word timing holds the caption credit and the minimum audio price, in both caption modes', () => {
  expect(initialHold({ mode: 'captions_only', word_timing: false })).toBe(1);
  expect(initialHold({ mode: 'auto', word_timing: false })).toBe(2);
  expect(initialHold({ mode: 'captions_only', word_timing: true })).toBe(wordTimedCaptionCredits(0));
  expect(initialHold({ mode: 'auto', word_timing: true })).toBe(3);
  expect(wordTimedCaptionCredits(61_000)).toBe(1 + 4);
});

test("the agents' transcribe tool caps word timing like AI transcription, and passes both fields", () => {
  const url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
  expect(jobRequest({ url, mode: 'captions_only' }).max_credits).toBeUndefined();
  expect(jobRequest({ url, mode: 'captions_only', word_timing: true })).toMatchObject({
    word_timing: true,
    max_credits: UNCONFIRMED_MAX_CREDITS,
  });
  expect(jobRequest({ url, mode: 'transcribe', align_text: 'Hello.' })).toMatchObject({ align_text: 'Hello.' });
});
