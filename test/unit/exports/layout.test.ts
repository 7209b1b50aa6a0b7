// Subtitles people can read (issue 25, item 7): the export's max_line_length and max_lines, word times for
// the cues of a split segment, and the speaker named where it changes. Read back with webvtt-parser.

import { exportTranscript } from '../../../domain/transcripts/export';
import { ExportQuery } from '../../../domain/schemas/resources';
import { withSegments } from './fixtures';
import { parseSrt, parseVtt } from './parsers';

const sentence =
  'We choose to go to the moon in this decade and do the other things, not because they are easy, but because they are hard.';
const wordsOf = (text: string, start: number, step: number) =>
  text
    .split(' ')
    .map((w, i) => ({ start: +(start + i * step).toFixed(3), end: +(start + i * step + step * 0.8).toFixed(3), text: w, confidence: 0.9 }));

describe('caption layout', () => {
  const words = wordsOf(sentence, 0, 0.4);
  const t = withSegments([{ start: 0, end: words.at(-1)!.end, text: sentence }], { words, timing_granularity: 'word' });

  test.each([
    [20, 1],
    [32, 2],
    [80, 3],
  ])('lines of at most %i characters, at most %i per cue, broken between words; no word lost', (maxLineLength, maxLines) => {
    const parsed = parseVtt(exportTranscript(t, 'vtt', { maxLineLength, maxLines }).body);
    expect(parsed.errors).toEqual([]);
    for (const cue of parsed.cues) {
      const lines = cue.text.split('\n');
      expect(lines.length).toBeLessThanOrEqual(maxLines);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(maxLineLength);
    }
    expect(parsed.cues.map((c) => c.text.replace(/\n/g, ' ')).join(' ')).toBe(sentence);
  });

  test('a cue of a split segment starts when its first word is said', () => {
    const cues = parseSrt(exportTranscript(t, 'srt', { maxLineLength: 20, maxLines: 1 }).body);
    expect(cues.length).toBeGreaterThan(3);
    for (const cue of cues) {
      const first = cue.text.split(/\s+/)[0]!;
      const index = words.findIndex(
        (w, i) =>
          w.text === first &&
          words
            .slice(i)
            .map((x) => x.text)
            .join(' ')
            .startsWith(cue.text.replace(/\n/g, ' ')),
      );
      expect(cue.start).toBeCloseTo(words[index]!.start, 3);
    }
  });

  test('the defaults stay 42 characters and 2 lines', () => {
    const cues = parseVtt(exportTranscript(t, 'vtt').body).cues;
    expect(Math.max(...cues.flatMap((c) => c.text.split('\n').map((l) => l.length)))).toBeLessThanOrEqual(42);
    expect(Math.max(...cues.map((c) => c.text.split('\n').length))).toBe(2);
  });

  test('the bounds are checked and apply to srt and vtt only', () => {
    const fields = (q: object) => {
      const r = ExportQuery.safeParse(q);
      return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
    };
    expect(fields({ format: 'srt', max_line_length: '20', max_lines: '3' })).toEqual([]);
    expect(fields({ format: 'srt', max_line_length: '19' })).toEqual(['max_line_length']);
    expect(fields({ format: 'vtt', max_line_length: '81' })).toEqual(['max_line_length']);
    expect(fields({ format: 'vtt', max_lines: '4' })).toEqual(['max_lines']);
    expect(fields({ format: 'vtt', max_lines: '0' })).toEqual(['max_lines']);
    expect(fields({ format: 'txt', max_lines: '2' })).toEqual(['max_lines']);
  });
});

describe('speakers in captions', () => {
  const segments = [
    { start: 0, end: 2, text: 'Good morning.', speaker: 'A' },
    { start: 2.1, end: 4, text: 'How are you?', speaker: 'A' },
    { start: 4.2, end: 6, text: 'Very well, thanks.', speaker: 'B' },
    { start: 6.5, end: 8, text: 'Glad to hear it.', speaker: 'A' },
  ];

  test('the speaker is named where it changes, in both formats', () => {
    const t = withSegments(segments, { speakers: [{ id: 'A' }, { id: 'B' }] });
    const expected = ['A: Good morning.', 'How are you?', 'B: Very well, thanks.', 'A: Glad to hear it.'];
    expect(parseVtt(exportTranscript(t, 'vtt').body).cues.map((c) => c.text)).toEqual(expected);
    expect(parseSrt(exportTranscript(t, 'srt').body).map((c) => c.text)).toEqual(expected);
  });

  test('without speaker labels asked for, no prefix', () => {
    const t = withSegments(
      segments.map((s) => ({ ...s, speaker: null })),
      { speakers: null },
    );
    expect(parseVtt(exportTranscript(t, 'vtt').body).cues[0]!.text).toBe('Good morning.');
  });
});
