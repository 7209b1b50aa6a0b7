import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCaptionBody } from '../../../integrations/platforms/caption-formats';
import { FIXTURES_DIR, HANDMADE_DIR, fixturesAvailable } from '../../support/replay-origin';
import { expectSaneSegments } from '../../platforms/segment-checks';

const shared = (file: string) => readFileSync(path.join(FIXTURES_DIR, 'videosite/caption-bodies', file), 'utf8');
const handmade = (file: string) => readFileSync(path.join(HANDMADE_DIR, file), 'utf8');

// The recorded bodies live in ../shared/fixtures and are read in place. CI always has them.
const describeRecorded = fixturesAvailable() || process.env.CI ? describe : describe.skip;

describeRecorded('recorded caption bodies', () => {
  test('srv3, plain creator track (mesmerizer): one segment per <p>, entities decoded, gap kept', () => {
    const body = shared('srv3/mesmerizer.srv3.xml');
    const { format, segments } = parseCaptionBody(body);
    expect(format).toBe('srv3');
    expectSaneSegments(segments);
    expect(segments).toHaveLength((body.match(/<p /g) ?? []).length);
    expect(segments[0]).toEqual({ start: 5.97, end: 13.89, text: '《Mesmerizer》' });
    expect(segments.map((s) => s.text)).toContain("That's how the safe zone is shrinking");
    expect(segments.map((s) => s.text)).toContain('f0ol3|) b? tH*s t?utHful &ct!nG');
    const gap = segments.findIndex((s) => s.start === 79.18);
    expect(segments.slice(gap - 1, gap + 1)).toEqual([
      { start: 64.93, end: 66.18, text: 'Someone, please help (^^ ♪' },
      { start: 79.18, end: 80.43, text: '"You\'re getting sleepy"' },
    ]);
    expect(segments.at(-1)).toEqual({ start: 139.97, end: 141.43, text: 'So, do it in moderation (^^ ♪' });
  });

  test('srv3, styled karaoke track (aria): spans joined, zero-width spacers gone, layered and animated copies merged', () => {
    const body = shared('srv3/aria-styled.srv3.xml');
    const { format, segments } = parseCaptionBody(body);
    expect(format).toBe('srv3');
    expectSaneSegments(segments);
    const paragraphs = (body.match(/<p /g) ?? []).length;
    expect(paragraphs).toBeGreaterThan(1000);
    // Every line is drawn in several layers and animation frames: far fewer segments than <p>s.
    expect(segments.length).toBeLessThan(paragraphs / 4);
    // The title card: two layers at 250 ms and frames every ~67 ms up to 2653 ms are one segment.
    expect(segments[0]).toEqual({ start: 0.25, end: 2.653, text: 'Original work Toho Project ZUN' });
    // No line is repeated while it is still on screen.
    for (let i = 1; i < segments.length; i++) {
      const overlapping = segments.slice(Math.max(0, i - 8), i).filter((p) => p.end > segments[i].start + 0.001);
      expect(overlapping.map((p) => p.text)).not.toContain(segments[i].text);
    }
  });

  test('WebVTT, automatic rolling track (youtube-dl excerpt): inline timestamps stripped, repeated lines dropped', () => {
    const { format, segments } = parseCaptionBody(shared('webvtt/youtube_dl-asr-excerpt.vtt'));
    expect(format).toBe('vtt');
    expectSaneSegments(segments);
    expect(segments).toEqual([
      { start: 286.07, end: 286.47, text: 'yeah' },
      { start: 286.47, end: 304.08, text: 'what' },
      // The last cue only repeats this line: it extends it instead of adding a copy.
      { start: 304.08, end: 305.4, text: "this will happen is I'm telling" },
    ]);
  });

  test('timedtext format 1 (SYNTHETIC sample): seconds, HTML inside XML unescaped and stripped, empty cue dropped', () => {
    const { format, segments } = parseCaptionBody(shared('timedtext-format1/transcript.SYNTHETIC.xml'));
    expect(format).toBe('srv1');
    expectSaneSegments(segments);
    expect(segments).toEqual([
      { start: 0, end: 1.54, text: 'Hey, this is just a test' },
      { start: 1.54, end: 5.7, text: 'this is not the original transcript' },
      { start: 5.7, end: 8.939, text: 'just something shorter, I made up for testing' },
    ]);
  });
});

describe('hand-made caption bodies', () => {
  test('json3 creator track: window events skipped, segs joined, blank events dropped, lines joined', () => {
    const { format, segments } = parseCaptionBody(handmade('videosite/json3/creator-en.HANDMADE.json3.json'));
    expect(format).toBe('json3');
    expectSaneSegments(segments);
    expect(segments).toEqual([
      { start: 1.2, end: 3.5, text: 'Hello and welcome' },
      { start: 3.5, end: 6, text: 'to a show about bread & butter' },
      { start: 8, end: 11, text: "It's two lines of one caption" },
      { start: 11, end: 12.5, text: '[Music]' },
    ]);
  });

  test('json3 automatic track: newline events dropped, each line cut where the next is spoken', () => {
    const { segments } = parseCaptionBody(handmade('videosite/json3/asr-en.HANDMADE.json3.json'));
    expectSaneSegments(segments);
    expect(segments).toEqual([
      { start: 0.16, end: 2.72, text: 'so today we' },
      { start: 2.72, end: 4.65, text: 'are going to bake' },
      { start: 4.65, end: 9.4, text: 'bread at home' },
    ]);
  });

  test('shortvideo WebVTT with cue numbers, italics and entities', () => {
    const { format, segments } = parseCaptionBody(handmade('shortvideo/subtitle-creator-eng-US.HANDMADE.vtt'));
    expect(format).toBe('vtt');
    expect(segments).toEqual([
      { start: 0.1, end: 2.4, text: 'Today: sourdough,' },
      { start: 2.4, end: 5, text: 'bread & butter edition.' },
      { start: 5.5, end: 9, text: 'Twenty seconds, start to finish.' },
    ]);
  });

  test('shortvideo creator_caption JSON (utterances in ms)', () => {
    const { format, segments } = parseCaptionBody(handmade('shortvideo/subtitle-creator-eng-US.HANDMADE.json'));
    expect(format).toBe('utterances');
    expect(segments[1]).toEqual({ start: 2.4, end: 5, text: 'bread & butter edition.' });
  });
});

describe('format sniffing and edge cases', () => {
  test('SubRip', () => {
    const { format, segments } = parseCaptionBody(
      '1\n00:00:01,000 --> 00:00:02,500\nHello <b>there</b>\n\n2\n00:00:03,000 --> 00:00:04,000\nsecond\n',
    );
    expect(format).toBe('srt');
    expect(segments).toEqual([
      { start: 1, end: 2.5, text: 'Hello there' },
      { start: 3, end: 4, text: 'second' },
    ]);
  });

  test('srv2 (<timedtext> with <text t d>) and a byte-order mark', () => {
    const { format, segments } = parseCaptionBody(
      '\ufeff<?xml version="1.0"?><timedtext><text t="500" d="1000">a &amp; b</text><text t="2000">no duration</text><text t="3000" d="10">c</text></timedtext>',
    );
    expect(format).toBe('srv2');
    // A missing duration lasts until the next cue.
    expect(segments).toEqual([
      { start: 0.5, end: 1.5, text: 'a & b' },
      { start: 2, end: 3, text: 'no duration' },
      { start: 3, end: 3.01, text: 'c' },
    ]);
  });

  test('text that only looks like markup is kept', () => {
    const { segments } = parseCaptionBody('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n1 < 2 > 0 &amp; x &lt;3\n');
    expect(segments[0].text).toBe('1 < 2 > 0 & x <3');
  });

  test('cues out of order come back sorted', () => {
    const { segments } = parseCaptionBody(
      '<transcript><text start="5" dur="1">second</text><text start="1" dur="1">first</text></transcript>',
    );
    expect(segments.map((s) => s.text)).toEqual(['first', 'second']);
  });

  test.each([
    ['an HTML page', '<!DOCTYPE html><html><body>nope</body></html>'],
    ['TTML', '<?xml version="1.0"?><tt xmlns="http://www.w3.org/ns/ttml"><body/></tt>'],
    ['plain text', 'just words'],
    ['JSON of another shape', '{"foo": []}'],
    ['broken JSON', '{"events": ['],
    ['json3 event without a start', '{"events":[{"segs":[{"utf8":"x"}]}]}'],
  ])('%s is SOURCE_CHANGED', (_name, body) => {
    expect(() => parseCaptionBody(body)).toThrow(expect.objectContaining({ code: 'SOURCE_CHANGED' }));
  });
});
