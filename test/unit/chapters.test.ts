import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WebVTTParser } from 'webvtt-parser';
import {
  blockWords,
  CHAPTERS_MIN_DURATION_SECONDS,
  computeChapters,
  MIN_CHAPTER_SECONDS,
  platformChapters,
  shortTitle,
  TILING,
  type TimedText,
} from '../../domain/transcripts/chapters';
import { chaptersWebVtt, exportTranscript, type ExportableTranscript } from '../../domain/transcripts/export';
import { readChapterMarkers } from '../../integrations/platforms/videosite';
import { FIXTURES_DIR, fixturesAvailable } from '../support/replay-origin';
import { ServiceError } from '../../core/errors';
import { seededRandom } from '../support/seeded-random';

const describeRecorded = fixturesAvailable() || process.env.CI ? describe : describe.skip;

describeRecorded('platform chapters from the recorded next answer', () => {
  const next = JSON.parse(readFileSync(path.join(FIXTURES_DIR, 'videosite/next-transcript-panel/web-next-rCAS2eD-mcw.body.json'), 'utf8'));

  it('reads the chapter panel, not the other marker lists', () => {
    expect(readChapterMarkers(next)).toEqual([
      { start: 39, title: 'Method of Oxygenation' },
      { start: 115, title: 'LMA Insertion' },
      { start: 242, title: 'Assessment of Ventilation' },
      { start: 268, title: 'Troubleshooting' },
    ]);
  });

  it("prefers the creator's chapters to the automatic ones, and reads a time label when there is no start", () => {
    const panel = (id: string, items: unknown[]) => ({
      engagementPanelSectionListRenderer: { panelIdentifier: id, content: { macroMarkersListRenderer: { contents: items } } },
    });
    const item = (title: string, label: string) => ({
      macroMarkersListItemRenderer: { title: { simpleText: title }, timeDescription: { simpleText: label } },
    });
    const answer = {
      engagementPanels: [
        panel('engagement-panel-macro-markers-auto-chapters', [item('Auto', '0:10')]),
        panel('engagement-panel-macro-markers-description-chapters', [
          item('Intro', '0:00'),
          item('Later', '1:02:03'),
          item('Bad', 'soon'),
        ]),
      ],
    };
    expect(readChapterMarkers(answer)).toEqual([
      { start: 0, title: 'Intro' },
      { start: 3723, title: 'Later' },
    ]);
    expect(readChapterMarkers({})).toEqual([]);
    expect(readChapterMarkers({ engagementPanels: [panel('engagement-panel-macro-markers-key-moments', [item('x', '0:05')])] })).toEqual(
      [],
    );
  });
});

describe('platformChapters', () => {
  it('ends each chapter where the next starts and the last at the end, dropping repeats and markers past the end', () => {
    const chapters = platformChapters(
      [
        { start: 115, title: 'Two' },
        { start: 39, title: ' One ' },
        { start: 39, title: 'Again' },
        { start: 400, title: 'Past the end' },
        { start: 200, title: '  ' },
      ],
      300,
    );
    expect(chapters).toEqual([
      { start: 39, end: 115, title: 'One', origin: 'platform' },
      { start: 115, end: 300, title: 'Two', origin: 'platform' },
    ]);
  });
});

/** Segments of 5 s each, their text naming the topic they belong to. */
function talk(topics: Array<{ topic: string; seconds: number }>): TimedText[] {
  const segments: TimedText[] = [];
  let t = 0;
  for (const { topic, seconds } of topics)
    for (let i = 0; i < seconds / 5; i++) {
      segments.push({ start: t, end: t + 5, text: `${topic} sentence ${i}` });
      t += 5;
    }
  return segments;
}

/** A stand-in embedder: one direction per topic with a little noise, so the topic is the only signal. */
function topicEmbedder(calls: string[][] = []) {
  return async (texts: string[]) => {
    calls.push(texts);
    return texts.map((text) => {
      const topic = text.split(' ')[0]!;
      const axis = ['cooking', 'physics', 'history'].indexOf(topic);
      const n = Number(text.split(' ').at(-1));
      const v = [0.05 * Math.sin(n), 0.05 * Math.cos(n), 0.05 * Math.sin(2 * n), 0];
      v[axis] = (v[axis] ?? 0) + 1;
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
  };
}

describe('computeChapters', () => {
  it('puts a boundary where the topic changes, titles each chapter from inside it, and covers the whole transcript', async () => {
    const segments = talk([
      { topic: 'cooking', seconds: 120 },
      { topic: 'physics', seconds: 150 },
      { topic: 'history', seconds: 90 },
    ]);
    const chapters = await computeChapters(segments, 365, topicEmbedder());
    expect(chapters.map((c) => [c.start, c.end, c.origin])).toEqual([
      [0, 120, 'computed'],
      [120, 270, 'computed'],
      [270, 365, 'computed'],
    ]);
    expect(chapters.map((c) => c.title.split(' ')[0])).toEqual(['cooking', 'physics', 'history']);
  });

  it('gives one chapter to a talk on one topic, and none to a transcript under three minutes (without embedding it)', async () => {
    const one = await computeChapters(talk([{ topic: 'physics', seconds: 300 }]), null, topicEmbedder());
    expect(one).toEqual([{ start: 0, end: 300, title: expect.stringMatching(/^physics/), origin: 'computed' }]);
    const calls: string[][] = [];
    const short = talk([
      { topic: 'cooking', seconds: 90 },
      { topic: 'physics', seconds: CHAPTERS_MIN_DURATION_SECONDS - 95 },
    ]);
    expect(await computeChapters(short, null, topicEmbedder(calls))).toEqual([]);
    expect(calls).toEqual([]);
    expect(await computeChapters([], 600, topicEmbedder())).toEqual([]);
  });

  it(`keeps chapters at least ${MIN_CHAPTER_SECONDS} s long, even around a short aside`, async () => {
    const segments = talk([
      { topic: 'cooking', seconds: 150 },
      { topic: 'history', seconds: 20 },
      { topic: 'cooking', seconds: 150 },
    ]);
    const chapters = await computeChapters(segments, null, topicEmbedder());
    for (const c of chapters) expect(c.end - c.start).toBeGreaterThanOrEqual(MIN_CHAPTER_SECONDS);
  });

  it("finds where the talk changes from its words when the sentences' meanings say nothing", async () => {
    // Each talk speaks its own 40 words, every segment with the function words all talks share; every block
    // means the same to the embedder, so only the words can place the boundaries.
    const random = seededRandom(53);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const word = () => Array.from({ length: 7 }, () => letters[Math.floor(random() * 26)]).join('');
    const talks = [180, 240, 180].map((seconds) => ({ seconds, words: Array.from({ length: 40 }, word) }));
    const segments: TimedText[] = [];
    let t = 0;
    for (const { seconds, words } of talks)
      for (let i = 0; i < seconds / 5; i++, t += 5) {
        const said = Array.from({ length: 10 }, () => words[Math.floor(random() * words.length)]!);
        segments.push({ start: t, end: t + 5, text: `the ${said.slice(0, 5).join(' ')} and of ${said.slice(5).join(' ')}` });
      }
    const alike = async (texts: string[]) => texts.map(() => [0.6, 0.8, 0]);
    const chapters = await computeChapters(segments, null, alike);
    expect(chapters.map((c) => c.start)).toEqual([0, 180, 420]);
    const byMeaningAlone = await computeChapters(segments, null, alike, { ...TILING, words: null });
    expect(byMeaningAlone.map((c) => c.start)).not.toEqual([0, 180, 420]);
  });

  it("counts a block's words in lower case, cut to a stem, as pairs of characters where words are written without spaces, and without the transcript's common words", () => {
    const block = (text: string) => ({ start: 0, end: 5, text });
    const blocks = [
      block('The Governments governed the Economy'),
      block('the treaty'),
      block('東京の天気'),
      block('the budget'),
      block('the deficit'),
    ];
    expect(blockWords(blocks, { stemLetters: 6, commonShare: 0.5 })).toEqual([
      ['govern', 'govern', 'econom'],
      ['treaty'],
      ['東京', '京の', 'の天', '天気'],
      ['budget'],
      ['defici'],
    ]);
  });

  it('shortens a long title at a word boundary', () => {
    expect(shortTitle('short  and\nsweet')).toBe('short and sweet');
    const long = shortTitle('a '.repeat(10) + 'remarkably long sentence that goes on and on well past any reasonable title length');
    expect(Array.from(long).length).toBeLessThanOrEqual(70);
    expect(long.endsWith('…')).toBe(true);
    expect(long).not.toMatch(/\s…$/);
  });
});

describe('the chapters export', () => {
  const base: ExportableTranscript = {
    id: '00000000-0000-4000-8000-00000000c4a9',
    source: { platform: 'upload', media_id: 'u', canonical_url: null, title: 'Talk' },
    source_origin: 'speech_recognition',
    language: 'en',
    text: 'x',
    segments: [{ start: 0, end: 400, text: 'x' }],
    words: null,
    timing_granularity: 'segment',
    duration_seconds: 400,
    recognition: null,
    extraction_version: 'v',
    created_at: new Date(0).toISOString(),
  };

  it('is a WebVTT chapters track a WebVTT parser reads back: one cue per chapter, titles escaped', () => {
    const chapters = [
      { start: 0, end: 119.5, title: 'Salt & <pepper>', origin: 'computed' as const },
      { start: 119.5, end: 3725.25, title: 'Then --> physics', origin: 'computed' as const },
    ];
    const vtt = chaptersWebVtt(chapters);
    const parsed = new WebVTTParser().parse(vtt, 'chapters');
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((c) => [c.id, c.startTime, c.endTime, c.text])).toEqual([
      ['1', 0, 119.5, 'Salt &amp; &lt;pepper&gt;'],
      ['2', 119.5, 3725.25, 'Then --&gt; physics'],
    ]);
    const file = exportTranscript({ ...base, chapters }, 'chapters');
    expect(file).toMatchObject({ body: vtt, contentType: 'text/vtt; charset=utf-8', filename: 'talk-00000000.chapters.vtt' });
  });

  it('is refused for a transcript made without chapters, naming format', () => {
    let refused: unknown;
    try {
      exportTranscript({ ...base, chapters: null }, 'chapters');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ code: 'CHAPTERS_UNAVAILABLE', detail: 'format' });
    expect(exportTranscript({ ...base, chapters: [] }, 'chapters').body).toBe('WEBVTT\n');
  });
});
