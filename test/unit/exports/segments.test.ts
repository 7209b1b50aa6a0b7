// Cue building shared by the SRT and WebVTT exports.

import { buildCues, Cue, layoutText } from '../../../domain/transcripts/cues';
import { displayWidth } from '../../../domain/transcripts/display-width';
import { normaliseLine, normaliseText } from '../../../core/text';
import { longTranscript } from './fixtures';

function invariantProblems(cues: Cue[], maxWidth = 42, maxLines = 2): string[] {
  const p: string[] = [];
  cues.forEach((c, i) => {
    if (!Number.isInteger(c.start) || !Number.isInteger(c.end)) p.push(`cue ${i}: non-integer ms`);
    if (!(c.end > c.start)) p.push(`cue ${i}: ${c.start}..${c.end}`);
    if (i > 0 && c.start < cues[i - 1].end) p.push(`cue ${i}: overlaps previous`);
    if (c.lines.length < 1 || c.lines.length > maxLines) p.push(`cue ${i}: ${c.lines.length} lines`);
    for (const l of c.lines)
      if (l === '' || l !== l.trim() || displayWidth(l) > maxWidth || l.includes('\n')) p.push(`cue ${i}: bad line ${JSON.stringify(l)}`);
  });
  return p;
}

describe('normaliseText', () => {
  it.each([
    ['plain', 'plain'],
    ['  padded  and   spaced ', 'padded and spaced'],
    ['a\r\nb\rc\u2028d\u2029e\u0085f', 'a\nb\nc\nd\ne\nf'],
    ['\n\n a \n\n\n b \n', 'a\nb'],
    ['zero\u200bwidth\ufeff\u2060 soft\u00adhyphen', 'zerowidth softhyphen'],
    ['bell\u0007 esc\u001b del\u007f c1\u0085x', 'bell esc del c1\nx'],
    ['tab\tand\u00a0nbsp\u3000ideographic', 'tab and\u00a0nbsp ideographic'],
    ['\u200dedge joiners\u200c', 'edge joiners'],
    ['👨\u200d👩\u200d👧 family', '👨\u200d👩\u200d👧 family'],
    ['می\u200cخواهم', 'می\u200cخواهم'],
    ['Cafe\u0301', 'Café'],
    ['co\u00adoperate', 'cooperate'],
    ['lone \ud800 surrogate', 'lone \ufffd surrogate'],
    ['\u200b \u200b', ''],
  ])('%j -> %j', (input, expected) => {
    expect(normaliseText(input)).toBe(expected);
  });

  it('normaliseLine joins lines with spaces', () => {
    expect(normaliseLine('one\r\ntwo\n\nthree')).toBe('one two three');
  });
});

describe('displayWidth', () => {
  it.each([
    ['hello', 5],
    ['café', 4],
    ['Cafe\u0301', 4],
    ['日本語', 6],
    ['한국어', 6],
    ['ｆｕｌｌ', 8],
    ['😀', 2],
    ['👍🏽', 2],
    ['👨\u200d👩\u200d👧', 2],
    ['🇯🇵🇫🇷', 4],
    ['Привет', 6],
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('layoutText', () => {
  it('one line when it fits, balanced two lines when it does not', () => {
    expect(layoutText('Short line.')).toEqual([['Short line.']]);
    const [[a, b]] = layoutText('The quick brown fox jumps over the lazy dog and keeps on running.');
    expect(`${a} ${b}`).toBe('The quick brown fox jumps over the lazy dog and keeps on running.');
    expect(Math.abs(a.length - b.length)).toBeLessThanOrEqual(8);
    expect(b.length).toBeGreaterThanOrEqual(a.length); // bottom-heavy on ties
  });

  it('splits into cues of similar length rather than full cues and a stub', () => {
    const text = 'word '.repeat(36).trim(); // 179 chars: 3 cues
    const chunks = layoutText(text);
    expect(chunks).toHaveLength(3);
    const sizes = chunks.map((c) => c.join(' ').length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(10);
  });

  it('respects custom widths and line counts', () => {
    const chunks = layoutText('a bb ccc dddd eeeee ffffff', 10, 1);
    expect(chunks).toEqual([['a bb ccc'], ['dddd eeeee'], ['ffffff']]);
  });

  it('hard-breaks a run without spaces between emoji sequences, never inside one', () => {
    const family = '👨\u200d👩\u200d👧';
    const run = 'a' + family.repeat(40); // 81 columns: a family is one 2-column glyph
    const lines = layoutText(run).flat();
    expect(lines).toHaveLength(2);
    expect(lines.join('')).toBe(run);
    lines[0] = lines[0].slice(1);
    for (const l of lines) expect(l).toMatch(/^(👨\u200d👩\u200d👧)+$/u);
  });

  it('never splits a flag (a pair of regional indicators)', () => {
    const run = 'a' + '🇯🇵'.repeat(30); // 61 columns
    const lines = layoutText(run).flat();
    expect(lines).toHaveLength(2);
    expect(lines.join('')).toBe(run);
    for (const l of [lines[0].slice(1), lines[1]]) expect(l).toMatch(/^(🇯🇵)+$/u);
  });

  it('does not start a line with CJK closing punctuation or split emoji sequences', () => {
    const chunks = layoutText('あ'.repeat(20) + '。' + 'い'.repeat(20), 42, 2);
    for (const c of chunks) for (const l of c) expect(l.startsWith('。')).toBe(false);
    const emoji = '👨\u200d👩\u200d👧 '.repeat(30).trim();
    const lines = layoutText(emoji).flat();
    for (const l of lines) for (const part of l.split(' ')) expect(part).toBe('👨\u200d👩\u200d👧');
  });
});

describe('buildCues', () => {
  it('returns ms cues from second segments', () => {
    expect(buildCues([{ start: 1.2345, end: 2, text: 'hi' }], null)).toEqual([{ start: 1235, end: 2000, lines: ['hi'] }]);
  });

  it('moves a negative start to 0', () => {
    expect(buildCues([{ start: -1.5, end: 2, text: 'early' }], null)).toEqual([{ start: 0, end: 2000, lines: ['early'] }]);
  });

  it('aligns words that differ in case and punctuation from the segment text', () => {
    const text = 'Well, THIS is a fairly long sentence - it has to be split across two cues; okay? Fine!';
    const tokens = [
      'well',
      'this',
      'is',
      'a',
      'fairly',
      'long',
      'sentence',
      'it',
      'has',
      'to',
      'be',
      'split',
      'across',
      'two',
      'cues',
      'okay',
      'fine',
    ];
    const words = tokens.map((t, i) => ({ start: 10 + i * 0.25 + (i >= 9 ? 2 : 0), end: 10 + i * 0.25 + 0.2 + (i >= 9 ? 2 : 0), text: t }));
    const cues = buildCues([{ start: 10, end: 16, text }], words);
    expect(invariantProblems(cues)).toEqual([]);
    expect(cues.length).toBe(2);
    const firstWord = cues[1].lines[0].split(' ')[0].replace(/\W/g, '').toLowerCase();
    const w = words.find((x) => x.text === firstWord)!;
    expect(cues[1].start).toBe(Math.round(w.start * 1000));
  });

  it('aligns decomposed and out-of-order word lists', () => {
    const text = 'Le café est très bon aujourd’hui, mais la crème brûlée était encore meilleure hier soir.';
    const tokens = text.split(' ');
    const words = tokens.map((t, i) => ({ start: 1 + i * 0.5, end: 1 + i * 0.5 + 0.4, text: t.normalize('NFD') })).reverse();
    const cues = buildCues([{ start: 1, end: 1 + tokens.length * 0.5, text }], words);
    expect(cues.length).toBe(2);
    for (let k = 1; k < cues.length; k++) {
      const idx = cues
        .slice(0, k)
        .map((c) => c.lines.join(' ').split(' ').length)
        .reduce((a, b) => a + b, 0);
      expect(cues[k].start).toBe(1000 + idx * 500);
    }
  });

  it('consumes words segment by segment, so later segments align too', () => {
    const seg = (start: number, text: string) => ({ start, end: start + 10, text });
    const long = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma';
    const segments = [seg(0, 'short one'), seg(10, long), seg(20, 'short two'), seg(30, long)];
    const words = segments.flatMap((s) =>
      s.text.split(' ').map((t, i) => ({ start: s.start + i * 0.3, end: s.start + i * 0.3 + 0.2, text: t })),
    );
    const cues = buildCues(segments, words);
    const splitStarts = cues.filter(
      (c) => c.lines[0].startsWith('lambda') || c.lines[0].startsWith('kappa') || c.lines[0].startsWith('iota'),
    );
    expect(splitStarts).toHaveLength(2);
    for (const c of splitStarts) expect((c.start % 10000) % 300).toBe(0); // exactly at a word start
  });

  it('a segment with more pieces than milliseconds stays one cue (no empty cues)', () => {
    const cues = buildCues(
      [
        { start: 1, end: 1.002, text: 'word '.repeat(60) },
        { start: 1.002, end: 2, text: 'next' },
      ],
      null,
    );
    expect(cues[0]).toMatchObject({ start: 1000, end: 1002 });
    expect(cues[0].lines.length).toBeGreaterThan(2);
    expect(cues[1]).toMatchObject({ start: 1002, end: 2000, lines: ['next'] });
  });

  it('invariants hold for a two-hour transcript with words', () => {
    const t = longTranscript({ words: true, overlap: true });
    expect(invariantProblems(buildCues(t.segments, t.words))).toEqual([]);
  });
});
