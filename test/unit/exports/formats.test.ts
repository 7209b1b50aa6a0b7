// txt and json exports, content types, download filenames and errors.

import { parse as parseContentDisposition } from 'content-disposition';
import { ServiceError } from '../../../core/errors';
import { contentDisposition, encodeRfc5987, exportTranscript, ExportFormat, formatTimestamp } from '../../../domain/transcripts/export';
import { baseTranscript, longTranscript, withSegments } from './fixtures';

const FORMATS: ExportFormat[] = ['txt', 'srt', 'vtt', 'json'];

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('content types', () => {
  it.each([
    ['txt', 'text/plain; charset=utf-8'],
    ['srt', 'text/srt; charset=utf-8'],
    ['vtt', 'text/vtt; charset=utf-8'],
    ['json', 'application/json; charset=utf-8'],
  ] as const)('%s is served as %s', (format, type) => {
    const t = withSegments([{ start: 0, end: 1, text: 'hi' }]);
    expect(exportTranscript(t, format).contentType).toBe(type);
  });
});

describe('txt', () => {
  it('one segment per line, in transcript order, newline-terminated', () => {
    const t = withSegments([
      { start: 5, end: 6, text: 'Second by time but first in the transcript.' },
      { start: 0, end: 1, text: 'Then this one.' },
      { start: 7, end: 8, text: 'A segment\r\nwith a line break\u2028inside.' },
      { start: 9, end: 10, text: '   ' },
      { start: 11, end: 12, text: 'zero\u200bwidth  and   spaces --> kept <as> & is' },
    ]);
    const { body } = exportTranscript(t, 'txt');
    expect(body).toBe(
      'Second by time but first in the transcript.\n' +
        'Then this one.\n' +
        'A segment with a line break inside.\n' +
        'zerowidth and spaces --> kept <as> & is\n',
    );
    expect(body.split('\n').slice(0, -1)).toHaveLength(4);
  });

  it('is available without timing, and falls back to the full text when there are no segments', () => {
    const t = baseTranscript({ timing_granularity: 'none', segments: [], text: 'Just text.\r\nSecond paragraph.' });
    expect(exportTranscript(t, 'txt').body).toBe('Just text.\nSecond paragraph.\n');
  });

  it('a long transcript has exactly one line per non-empty segment', () => {
    const t = longTranscript({ count: 300 });
    const lines = exportTranscript(t, 'txt').body.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(t.segments.map((s) => s.text));
  });
});

describe('json', () => {
  it('is the transcript object', () => {
    const t = longTranscript({ count: 20, words: true });
    const { body } = exportTranscript(t, 'json');
    expect(JSON.parse(body)).toEqual(t);
    expect(JSON.parse(body).words).toHaveLength(t.words!.length);
  });

  it('keeps every field of the view it is given (e.g. expires_at) and nulls', () => {
    const t = { ...baseTranscript({ words: null, recognition: null, language: null }), expires_at: '2024-06-01T00:00:00.000Z' };
    const parsed = JSON.parse(exportTranscript(t, 'json').body);
    expect(parsed).toEqual(t);
    expect(parsed.expires_at).toBe('2024-06-01T00:00:00.000Z');
    expect(parsed.words).toBeNull();
  });

  it('works for a transcript without timing', () => {
    const t = baseTranscript({ timing_granularity: 'none', text: 'untimed' });
    expect(JSON.parse(exportTranscript(t, 'json').body)).toEqual(t);
  });
});

describe('errors', () => {
  it.each(['srt', 'vtt'] as const)('%s of a transcript without timing is TIMESTAMPS_UNAVAILABLE (422)', (format) => {
    const t = baseTranscript({ timing_granularity: 'none', segments: [{ start: 0, end: 0, text: 'x' }], text: 'x' });
    const e = thrown(() => exportTranscript(t, format));
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ code: 'TIMESTAMPS_UNAVAILABLE', status: 422, detail: 'format' });
  });

  it.each(['word', 'segment'] as const)('srt and vtt work with %s timing', (granularity) => {
    const t = withSegments([{ start: 0, end: 1, text: 'x' }], { timing_granularity: granularity });
    expect(exportTranscript(t, 'srt').body).toContain('-->');
    expect(exportTranscript(t, 'vtt').body).toContain('-->');
  });

  it('an unknown format is INVALID_REQUEST', () => {
    const e = thrown(() => exportTranscript(baseTranscript(), 'pdf' as ExportFormat));
    expect(e).toMatchObject({ code: 'INVALID_REQUEST', status: 422 });
  });
});

describe('download filename', () => {
  const id = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
  const withTitle = (title: string | null) => baseTranscript({ id, source: { ...baseTranscript().source, title } });

  it.each(FORMATS)('ASCII title: <slug>-<id8>.%s as an attachment, no filename*', (format) => {
    const r = exportTranscript(withTitle('A Talk: About "Things" / Stuff?'), format);
    expect(r.filename).toBe(`a-talk-about-things-stuff-1a2b3c4d.${format}`);
    expect(r.contentDisposition).toBe(`attachment; filename="a-talk-about-things-stuff-1a2b3c4d.${format}"`);
    const parsed = parseContentDisposition(r.contentDisposition);
    expect(parsed.type).toBe('attachment');
    expect(parsed.parameters.filename).toBe(r.filename);
  });

  it('non-ASCII title: ASCII fallback filename plus RFC 5987 filename* with the Unicode name', () => {
    const r = exportTranscript(withTitle('Crème Brûlée für Ärzte — 日本語'), 'srt');
    expect(r.filename).toBe('creme-brulee-fur-arzte-1a2b3c4d.srt');
    expect(r.contentDisposition).toMatch(
      /^attachment; filename="creme-brulee-fur-arzte-1a2b3c4d\.srt"; filename\*=UTF-8''[A-Za-z0-9%.!#$&+^_`|~-]+$/,
    );
    // An independent parser (jshttp content-disposition) prefers filename* and decodes it.
    expect(parseContentDisposition(r.contentDisposition).parameters.filename).toBe('crème-brûlée-für-ärzte-日本語-1a2b3c4d.srt');
  });

  it('a title with no Latin letters: generic ASCII name, the real one in filename*', () => {
    const r = exportTranscript(withTitle('東京の夜'), 'vtt');
    expect(r.filename).toBe('transcript-1a2b3c4d.vtt');
    expect(parseContentDisposition(r.contentDisposition).parameters.filename).toBe('東京の夜-1a2b3c4d.vtt');
  });

  it('no title, or nothing usable in it: transcript-<id8>', () => {
    for (const title of [null, '', '   ', '!!!', '\u202e\u200b']) {
      const r = exportTranscript(withTitle(title), 'txt');
      expect(r.filename).toBe('transcript-1a2b3c4d.txt');
      expect(r.contentDisposition).toBe('attachment; filename="transcript-1a2b3c4d.txt"');
    }
  });

  it('strips path separators, quotes, control and bidi characters; caps the length', () => {
    const r = exportTranscript(withTitle('../../etc/passwd\u0000\r\n"quoted"\\back \u202eevil\u202c ' + 'long '.repeat(40)), 'json');
    expect(r.filename).toMatch(/^[a-z0-9-]+\.json$/);
    expect(r.filename.startsWith('etc-passwd-quoted-back-evil-long-long')).toBe(true);
    expect(r.filename.length).toBeLessThanOrEqual(60 + '-1a2b3c4d.json'.length);
    expect(r.contentDisposition).not.toMatch(/[\r\n\u0000\u202e]/);
    const uni = parseContentDisposition(exportTranscript(withTitle('Ünïcödé ' + 'wörd '.repeat(40)), 'srt').contentDisposition).parameters
      .filename;
    expect(Array.from(uni).length).toBeLessThanOrEqual(60 + '-1a2b3c4d.srt'.length);
    expect(uni).toMatch(/^ünïcödé-wörd-.*wörd-1a2b3c4d\.srt$/);
  });
});

describe('helpers', () => {
  it('formatTimestamp clamps to 00:00:00.000..99:59:59.999 and rounds to integer ms', () => {
    expect(formatTimestamp(0, ',')).toBe('00:00:00,000');
    expect(formatTimestamp(3_723_004, '.')).toBe('01:02:03.004');
    expect(formatTimestamp(400 * 3_600_000, ',')).toBe('99:59:59,999');
    expect(formatTimestamp(-5, '.')).toBe('00:00:00.000');
    expect(formatTimestamp(Number.NaN, '.')).toBe('00:00:00.000');
    expect(formatTimestamp(999.6, ',')).toBe('00:00:01,000');
  });

  it('contentDisposition never lets quotes, backslashes or non-ASCII into the quoted filename', () => {
    expect(contentDisposition('we"ird\\näme.srt')).toBe('attachment; filename="we_ird_n_me.srt"');
    expect(contentDisposition('a.srt', 'ä.srt')).toBe(`attachment; filename="a.srt"; filename*=UTF-8''%C3%A4.srt`);
  });

  it("encodeRfc5987 escapes everything outside attr-char, including ' ( ) *", () => {
    expect(encodeRfc5987("it's (a)*test ä")).toBe('it%27s%20%28a%29%2Atest%20%C3%A4');
  });
});
