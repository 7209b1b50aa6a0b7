// SRT and WebVTT exports, read back with independent parsers (srt-parser-2,
// and webvtt-parser, which implements the W3C WebVTT parsing algorithm).

import { spawnSync } from 'node:child_process';
import { exportTranscript, ExportableTranscript } from '../../../domain/transcripts/export';
import type { TranscriptSegment, TranscriptWord } from '../../../domain/transcripts/export';
import { longTranscript, rng, withSegments } from './fixtures';
import { cueListProblems, parseSrt, parseVtt, ParsedCue, srtStructureErrors, words } from './parsers';

function srt(t: ExportableTranscript): ParsedCue[] {
  const body = exportTranscript(t, 'srt').body;
  expect(srtStructureErrors(body)).toEqual([]);
  return parseSrt(body);
}

function vtt(t: ExportableTranscript): ParsedCue[] {
  const body = exportTranscript(t, 'vtt').body;
  const parsed = parseVtt(body);
  expect(parsed.errors).toEqual([]);
  expect(parsed.markup).toEqual([]);
  return parsed.cues;
}

/** SRT shows tag-like text with look-alike brackets (see below); undo that to compare with the exact VTT text. */
const srtToPlain = (text: string) => text.replace(/\u2039/g, '<').replace(/\u203a/g, '>');

/** Both formats, parsed; asserts they agree on times and text, returns the WebVTT cues. */
function both(t: ExportableTranscript): ParsedCue[] {
  const a = srt(t);
  const b = vtt(t);
  expect(b.map((c) => [c.start, c.end, c.text])).toEqual(a.map((c) => [c.start, c.end, srtToPlain(c.text)]));
  return b;
}

const times = (cues: ParsedCue[]) => cues.map((c) => [c.start, c.end]);
const texts = (cues: ParsedCue[]) => cues.map((c) => c.text);

describe('basic round trip', () => {
  const t = withSegments([
    { start: 0.5, end: 2.25, text: 'Hello there.' },
    { start: 2.5, end: 4, text: 'General Kenobi!' },
    { start: 4.001, end: 6.999, text: 'You are a bold one.' },
  ]);

  it('srt: cues numbered from 1 with the segment times and text', () => {
    const cues = srt(t);
    expect(cues.map((c) => c.id)).toEqual(['1', '2', '3']);
    expect(times(cues)).toEqual([
      [0.5, 2.25],
      [2.5, 4],
      [4.001, 6.999],
    ]);
    expect(texts(cues)).toEqual(['Hello there.', 'General Kenobi!', 'You are a bold one.']);
  });

  it('vtt: valid for the W3C parser, same times and text', () => {
    const cues = vtt(t);
    expect(times(cues)).toEqual([
      [0.5, 2.25],
      [2.5, 4],
      [4.001, 6.999],
    ]);
    expect(texts(cues)).toEqual(['Hello there.', 'General Kenobi!', 'You are a bold one.']);
  });

  it('exact file layout: header, timestamp format, one blank line between cues, LF only', () => {
    expect(exportTranscript(t, 'srt').body).toBe(
      '1\n00:00:00,500 --> 00:00:02,250\nHello there.\n\n' +
        '2\n00:00:02,500 --> 00:00:04,000\nGeneral Kenobi!\n\n' +
        '3\n00:00:04,001 --> 00:00:06,999\nYou are a bold one.\n',
    );
    expect(exportTranscript(t, 'vtt').body).toBe(
      'WEBVTT\n\n' +
        '00:00:00.500 --> 00:00:02.250\nHello there.\n\n' +
        '00:00:02.500 --> 00:00:04.000\nGeneral Kenobi!\n\n' +
        '00:00:04.001 --> 00:00:06.999\nYou are a bold one.\n',
    );
  });

  it('no cues at all is still a valid file', () => {
    const empty = withSegments([{ start: 0, end: 1, text: '  ' }]);
    expect(exportTranscript(empty, 'srt').body).toBe('');
    expect(exportTranscript(empty, 'vtt').body).toBe('WEBVTT\n');
    expect(parseVtt('WEBVTT\n').errors).toEqual([]);
  });
});

describe('timestamps', () => {
  it('round to the millisecond without ever producing 1000 ms or going back a second', () => {
    const cues = both(
      withSegments([
        { start: 59.9996, end: 61.0004, text: 'a' },
        { start: 3599.9995, end: 3600.4, text: 'b' },
        { start: 3601.1 + 0.2, end: 3601.7, text: 'c' },
      ]),
    );
    expect(times(cues)).toEqual([
      [60, 61],
      [3600, 3600.4],
      [3601.3, 3601.7],
    ]);
    expect(exportTranscript(withSegments([{ start: 3599.9995, end: 3600.4, text: 'b' }]), 'vtt').body).toContain(
      '01:00:00.000 --> 01:00:00.400',
    );
    const body = exportTranscript(withSegments([{ start: 59.9996, end: 61.0004, text: 'a' }]), 'srt').body;
    expect(body).toContain('00:01:00,000 --> 00:01:01,000');
  });

  it('hours past 9 and past 24 keep two-digit fields', () => {
    const t = withSegments([
      { start: 36000, end: 36001.5, text: 'ten hours' },
      { start: 90061.007, end: 90062, text: 'twenty-five hours' },
    ]);
    expect(exportTranscript(t, 'srt').body).toContain('10:00:00,000 --> 10:00:01,500');
    expect(exportTranscript(t, 'vtt').body).toContain('25:01:01.007 --> 25:01:02.000');
    expect(times(both(t))).toEqual([
      [36000, 36001.5],
      [90061.007, 90062],
    ]);
  });

  it('clamps at 99:59:59.999: later cues are dropped, a cue running past it is cut', () => {
    const t = withSegments([
      { start: 359990, end: 360010, text: 'runs past the limit' },
      { start: 360000, end: 360005, text: 'starts past the limit' },
    ]);
    const body = exportTranscript(t, 'srt').body;
    expect(body).toBe('1\n99:59:50,000 --> 99:59:59,999\nruns past the limit\n');
    expect(vtt(t).map((c) => [c.start, c.end])).toEqual([[359990, 359999.999]]);
  });

  it('negative starts become 0; non-finite times are skipped', () => {
    const t = withSegments([
      { start: -1.5, end: 1, text: 'early' },
      { start: Number.NaN, end: 2, text: 'nan' },
      { start: 2, end: Number.POSITIVE_INFINITY, text: 'infinite end' },
      { start: 5, end: 6, text: 'fine' },
    ]);
    const cues = both(t);
    expect(texts(cues)).toEqual(['early', 'infinite end', 'fine']);
    expect(times(cues)).toEqual([
      [0, 1],
      [2, 3],
      [5, 6],
    ]);
  });
});

describe('timing repair', () => {
  it('clips a cue that overlaps the next one to the next start (caption tracks overlap)', () => {
    const cues = both(
      withSegments([
        { start: 0, end: 5, text: 'one' },
        { start: 3, end: 8, text: 'two' },
        { start: 7.5, end: 9, text: 'three' },
      ]),
    );
    expect(times(cues)).toEqual([
      [0, 3],
      [3, 7.5],
      [7.5, 9],
    ]);
    expect(cueListProblems(cues)).toEqual([]);
  });

  it('sorts segments given out of order', () => {
    const cues = both(
      withSegments([
        { start: 10, end: 12, text: 'second' },
        { start: 1, end: 2, text: 'first' },
        { start: 20, end: 21, text: 'third' },
      ]),
    );
    expect(texts(cues)).toEqual(['first', 'second', 'third']);
  });

  it('drops empty and blank segments', () => {
    const cues = both(
      withSegments([
        { start: 0, end: 1, text: 'a' },
        { start: 1, end: 2, text: '' },
        { start: 2, end: 3, text: ' \n\t \u200b ' },
        { start: 3, end: 4, text: 'b' },
      ]),
    );
    expect(texts(cues)).toEqual(['a', 'b']);
    expect(
      srt(
        withSegments([
          { start: 0, end: 1, text: 'a' },
          { start: 1, end: 2, text: '' },
        ]),
      ).map((c) => c.id),
    ).toEqual(['1']);
  });

  it('gives zero- and negative-length segments one second, never overlapping the next cue', () => {
    const cues = both(
      withSegments([
        { start: 1, end: 1, text: 'zero' },
        { start: 5, end: 4, text: 'negative' },
        { start: 5.4, end: 7, text: 'next' },
        { start: 10, end: 10, text: 'last zero' },
      ]),
    );
    expect(times(cues)).toEqual([
      [1, 2],
      [5, 5.4],
      [5.4, 7],
      [10, 11],
    ]);
  });

  it('merges segments that start at the same instant instead of emitting empty cues', () => {
    const cues = both(
      withSegments([
        { start: 2, end: 4, text: 'Speaker one' },
        { start: 2, end: 5, text: 'Speaker two' },
        { start: 6, end: 7, text: 'after' },
      ]),
    );
    expect(cues).toHaveLength(2);
    expect(cues[0]).toMatchObject({ start: 2, end: 5, text: 'Speaker one\nSpeaker two' });
  });
});

describe('line length and splitting', () => {
  const long =
    'This is a considerably longer segment that has to be split into several cues, because it is far too long to be read on two lines of forty-two characters each.';

  it('wraps at 42 characters, at most 2 lines per cue, splitting long segments into several cues', () => {
    const cues = both(withSegments([{ start: 10, end: 25, text: long }]));
    expect(cues.length).toBe(2);
    expect(cueListProblems(cues)).toEqual([]);
    for (const c of cues) for (const line of c.text.split('\n')) expect(line.length).toBeLessThanOrEqual(42);
    expect(words(cues.map((c) => c.text).join(' '))).toEqual(words(long));
  });

  it('keeps a short segment on one line and balances a two-line one', () => {
    const cues = both(
      withSegments([
        { start: 0, end: 2, text: 'Short and sweet.' },
        { start: 2, end: 6, text: 'A sentence of about sixty characters needs two lines.' },
      ]),
    );
    expect(cues[0].text).toBe('Short and sweet.');
    const [l1, l2] = cues[1].text.split('\n');
    expect(Math.abs(l1.length - l2.length)).toBeLessThanOrEqual(10);
  });

  it('times the pieces in proportion to their length when there are no word timings', () => {
    const cues = both(withSegments([{ start: 10, end: 25, text: long }]));
    expect(cues[0].start).toBe(10);
    expect(cues[cues.length - 1].end).toBe(25);
    for (let i = 1; i < cues.length; i++) expect(cues[i].start).toBe(cues[i - 1].end); // contiguous
    const share = (cues[0].end - 10) / 15;
    const expected = (cues[0].text.length + 1) / (long.length + 1);
    expect(Math.abs(share - expected)).toBeLessThan(0.02);
  });

  it('uses word timings for the pieces when the words spell the segment', () => {
    const tokens = long.split(' ');
    const ws: TranscriptWord[] = tokens.map((text, i) => ({ start: 10 + i * 0.5, end: 10 + i * 0.5 + 0.4, text, confidence: 0.9 }));
    // Uneven pace: the speaker pauses before word 12, so proportional timing would be wrong.
    for (let i = 12; i < ws.length; i++) {
      ws[i].start += 3;
      ws[i].end += 3;
    }
    const t = withSegments([{ start: 10, end: 10 + tokens.length * 0.5 + 3, text: long }], { words: ws, timing_granularity: 'word' });
    const cues = both(t);
    expect(cues.length).toBe(2);
    const firstWordOfSecond = words(cues[1].text)[0];
    const idx = words(cues[0].text).length;
    expect(tokens[idx]).toBe(firstWordOfSecond);
    expect(cues[1].start).toBeCloseTo(ws[idx].start, 3);
    expect(cues[0].end).toBeCloseTo(ws[idx].start, 3);
    // ...which is not where proportional timing would put it.
    const proportional = withSegments([{ start: 10, end: 10 + tokens.length * 0.5 + 3, text: long }]);
    expect(both(proportional)[1].start).not.toBeCloseTo(ws[idx].start, 1);
  });

  it('falls back to proportional timing when the words do not match the text', () => {
    const ws: TranscriptWord[] = [{ start: 10, end: 11, text: 'unrelated', confidence: 1 }];
    const a = both(withSegments([{ start: 10, end: 25, text: long }], { words: ws, timing_granularity: 'word' }));
    const b = both(withSegments([{ start: 10, end: 25, text: long }]));
    expect(times(a)).toEqual(times(b));
  });

  it('hard-breaks a word longer than a line (a URL) without losing characters', () => {
    const url = 'https://example.com/' + 'a'.repeat(70) + '/end';
    const cues = both(withSegments([{ start: 0, end: 4, text: `See ${url} now` }]));
    expect(cueListProblems(cues)).toEqual([]);
    expect(
      cues
        .map((c) => c.text)
        .join('\n')
        .replace(/\s+/g, ''),
    ).toBe(`See${url}now`);
  });

  it('keeps author line breaks that already fit, reflows those that do not', () => {
    const cues = both(
      withSegments([
        { start: 0, end: 2, text: '- Who is there?\r\n- Me.' },
        { start: 2, end: 4, text: 'one\ntwo\nthree' },
      ]),
    );
    expect(cues[0].text).toBe('- Who is there?\n- Me.');
    expect(cues[1].text).toBe('one two three');
  });
});

describe('text clean-up and escaping', () => {
  it('escapes &, < and > in WebVTT and the W3C parser reads the original text back', () => {
    const text = 'Tom & Jerry <3 a<b>c </i> x>y &amp;';
    const body = exportTranscript(withSegments([{ start: 0, end: 2, text }]), 'vtt').body;
    expect(body).toContain('Tom &amp; Jerry &lt;3 a&lt;b&gt;c &lt;/i&gt; x&gt;y &amp;amp;');
    const parsed = parseVtt(body);
    expect(parsed.errors).toEqual([]);
    expect(parsed.markup).toEqual([]);
    expect(parsed.cues[0].text).toBe(text);
  });

  it('shows tag-like text in SRT with look-alike brackets, since SRT has no escaping and players eat tags', () => {
    const text = 'Tom & Jerry <3 a<b>c </i> x>y &amp;';
    const srtText = parseSrt(exportTranscript(withSegments([{ start: 0, end: 2, text }]), 'srt').body)[0].text;
    expect(srtText).toBe('Tom & Jerry <3 a\u2039b\u203ac \u2039/i\u203a x>y &amp;');
    // A tag split over the two lines of a cue is caught too.
    const long = 'Short words then <a tag that spans the line> end';
    const cue = parseSrt(exportTranscript(withSegments([{ start: 0, end: 2, text: long }]), 'srt').body)[0].text;
    expect(cue).toContain('\n');
    expect(cue).not.toMatch(/[<>]/);
  });

  it('never lets "-->" into cue text', () => {
    const t = withSegments([
      { start: 0, end: 2, text: 'a --> b' },
      { start: 2, end: 4, text: '1\n00:00:01,000 --> 00:00:02,000' },
      { start: 4, end: 6, text: 'x ----> y' },
    ]);
    for (const format of ['srt', 'vtt'] as const) {
      const body = exportTranscript(t, format).body;
      const arrows = body.split('\n').filter((l) => l.includes('-->'));
      expect(arrows).toHaveLength(3);
      for (const l of arrows) expect(l).toMatch(/^\d\d:\d\d:\d\d[.,]\d{3} --> \d\d:\d\d:\d\d[.,]\d{3}$/);
    }
    expect(texts(both(t))).toEqual(['a -> b', '1\n00:00:01,000 -> 00:00:02,000', 'x -> y']);
  });

  it('normalises newlines and strips zero-width and control characters', () => {
    const cues = both(
      withSegments([
        { start: 0, end: 2, text: 'line one\r\nline two' },
        { start: 2, end: 4, text: 'old\rmac' },
        { start: 4, end: 6, text: 'sep\u2028arated' },
        { start: 6, end: 8, text: '\ufeffzero\u200bwidth\u2060 joined\u00ad and\u0007 bell\u200d' },
        { start: 8, end: 10, text: 'tab\there   and   spaces' },
      ]),
    );
    expect(texts(cues)).toEqual(['line one\nline two', 'old\nmac', 'sep\narated', 'zerowidth joined and bell', 'tab here and spaces']);
    for (const format of ['srt', 'vtt'] as const) {
      const body = exportTranscript(withSegments([{ start: 0, end: 1, text: 'a\r\nb\u200b' }]), format).body;
      expect(body).not.toMatch(/[\r\u200b]/);
    }
  });

  it('keeps Unicode intact: accents, emoji sequences, RTL, CJK wrapped by display width', () => {
    const cjk = '今日はいい天気ですね。明日も晴れるでしょう。週末は雨が降るかもしれませんので、傘を持って行きましょう。';
    const family = '👨‍👩‍👧‍👦';
    const segments: TranscriptSegment[] = [
      { start: 0, end: 2, text: 'Crème brûlée für Müller — naïve café' },
      { start: 2, end: 4, text: `Family ${family} and flag 🇯🇵 and 👍🏽` },
      { start: 4, end: 6, text: 'שלום עולם مرحبا بالعالم' },
      { start: 6, end: 12, text: cjk },
      { start: 12, end: 13, text: 'Cafe\u0301 decomposed' },
    ];
    const cues = both(withSegments(segments));
    expect(cues[0].text).toBe('Crème brûlée für Müller — naïve café');
    expect(cues[1].text).toBe(`Family ${family} and flag 🇯🇵 and 👍🏽`);
    expect(cues[2].text).toBe('שלום עולם مرحبا بالعالم');
    const cjkCues = cues.filter((c) => c.start >= 6 && c.start < 12);
    expect(cjkCues.map((c) => c.text.replace(/\n/g, '')).join('')).toBe(cjk);
    for (const c of cjkCues) for (const line of c.text.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(21);
    for (const c of cjkCues) for (const line of c.text.split('\n')) expect(line).not.toMatch(/^[、。]/);
    expect(cues[cues.length - 1].text).toBe('Café decomposed'); // composed to NFC
  });
});

describe('randomised transcripts', () => {
  const pieces = [
    'word',
    'the',
    'café',
    'naïve',
    '日本語',
    'a&b',
    '<tag>',
    '-->',
    'x\u200by',
    '😀',
    'Ünïcode',
    'supercalifragilisticexpialidociousandthensomemore',
    '\n',
    '  ',
  ];

  function randomTranscript(seed: number): ExportableTranscript {
    const r = rng(seed);
    const segments: TranscriptSegment[] = [];
    let t = r() * 3;
    const n = 5 + Math.floor(r() * 60);
    for (let i = 0; i < n; i++) {
      const len = Math.floor(r() * 40);
      const text = Array.from({ length: len }, () => pieces[Math.floor(r() * pieces.length)]).join(r() < 0.8 ? ' ' : '');
      const dur = r() < 0.1 ? 0 : r() < 0.1 ? -1 : r() * 8;
      segments.push({ start: +t.toFixed(3), end: +(t + dur).toFixed(3), text });
      t += r() < 0.2 ? 0 : r() * 6; // same start sometimes; overlaps often
    }
    if (r() < 0.3) segments.reverse();
    return withSegments(segments);
  }

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))('seed %i: valid, ordered, non-overlapping, readable, no text lost', (seed) => {
    const t = randomTranscript(seed);
    const cues = both(t);
    expect(cueListProblems(cues)).toEqual([]);
    const expected = t.segments
      .map((s) => s.text.replace(/[\u200b]/g, '').replace(/-{2,}>/g, '->'))
      .join(' ')
      .replace(/\s+/g, '');
    const got = cues
      .map((c) => c.text)
      .join('')
      .replace(/\s+/g, '');
    expect(Array.from(got).sort().join('')).toBe(Array.from(expected).sort().join(''));
  });
});

describe('real player (ffmpeg)', () => {
  // ffmpeg's SRT and WebVTT demuxers and decoders are what mpv and many other
  // players use. Converting to ASS shows the text a player would render.
  const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
  const maybe = hasFfmpeg ? it : it.skip;

  const assTime = (s: string) => {
    const [h, m, sec] = s.split(':');
    return Number(h) * 3600 + Number(m) * 60 + Number(sec);
  };

  function render(body: string, format: 'srt' | 'vtt') {
    const res = spawnSync('ffmpeg', ['-v', 'error', '-f', format === 'srt' ? 'srt' : 'webvtt', '-i', 'pipe:0', '-f', 'ass', 'pipe:1'], {
      input: body,
    });
    return {
      status: res.status,
      stderr: res.stderr.toString(),
      cues: res.stdout
        .toString()
        .split(/\r?\n/)
        .filter((l) => l.startsWith('Dialogue:'))
        .map((l) => {
          const f = l.slice('Dialogue: '.length).split(',');
          return { start: assTime(f[1]), end: assTime(f[2]), text: f.slice(9).join(',').replace(/\\N/g, '\n') };
        }),
    };
  }

  maybe.each(['srt', 'vtt'] as const)('renders every %s cue at its time with the literal text', (format) => {
    const t = withSegments([
      { start: 0.5, end: 2, text: 'Hello & <welcome> to <b>bold</b> 1<2>3 <br> end' },
      { start: 1.5, end: 4, text: 'overlapping 👋 café' },
      { start: 4, end: 20, text: 'This is a considerably longer segment that has to be split into several cues for readability.' },
    ]);
    const out = render(exportTranscript(t, format).body, format);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const ours = parseSrt(exportTranscript(t, 'srt').body);
    expect(out.cues).toHaveLength(ours.length);
    out.cues.forEach((c, i) => {
      expect(Math.abs(c.start - ours[i].start)).toBeLessThanOrEqual(0.01); // ASS has centiseconds
      expect(Math.abs(c.end - ours[i].end)).toBeLessThanOrEqual(0.01);
    });
    const shown = out.cues.map((c) => c.text.replace(/\n/g, ' '));
    if (format === 'vtt') expect(shown[0]).toBe('Hello & <welcome> to <b>bold</b> 1<2>3 <br> end');
    else expect(shown[0]).toBe('Hello & \u2039welcome\u203a to \u2039b\u203abold\u2039/b\u203a 1\u20392\u203a3 \u2039br\u203a end');
    expect(shown.slice(1)).toEqual(ours.slice(1).map((c) => c.text.replace(/\n/g, ' ')));
  });
});

it('a two-hour transcript exports valid, non-overlapping srt and vtt', () => {
  for (const t of [longTranscript({ overlap: true }), longTranscript({ words: true })]) {
    const cues = both(t);
    expect(cues.length).toBeGreaterThan(t.segments.length);
    expect(cueListProblems(cues)).toEqual([]);
    expect(words(cues.map((c) => c.text).join(' '))).toEqual(words(t.segments.map((s) => s.text).join(' ')));
  }
});
