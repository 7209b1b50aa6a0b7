import { join } from 'node:path';
import { ServiceError } from '../../core/errors';
import { toRecognizerWav } from '../../integrations/media/convert';
import { findSilences, parseSilences, planPieces, splitAtSilences, stitch, type Piece } from '../../integrations/media/split';
import { readWavInfo } from '../../integrations/media/wav';
import { recognizeOrEmpty, type RecognitionResult } from '../../integrations/recognizers/types';
import { PARAGRAPHS, audioDir, concatWithPauses, makeSpeech, wordErrorRate } from '../support/speech';
import { WhisperCliRecognizer } from '../support/whisper-cli';

// Whisper base on four flite paragraphs cut into pieces of at most 20 s and
// stitched: measured 3.1 % WER here (deterministic: same audio, same
// settings). A sentence lost or doubled at a cut adds about 8 %.
const WER_BOUND = 0.1;

function expectCovering(pieces: Piece[], durationMs: number, maxPieceMs: number) {
  expect(pieces[0].startMs).toBe(0);
  expect(pieces[pieces.length - 1].endMs).toBe(durationMs);
  pieces.forEach((p, i) => {
    expect(p.endMs).toBeGreaterThan(p.startMs);
    expect(p.endMs - p.startMs).toBeLessThanOrEqual(maxPieceMs);
    if (i > 0) expect(p.startMs).toBe(pieces[i - 1].endMs); // no gap, no overlap
  });
}

describe('planPieces', () => {
  test('short audio is one piece', () => {
    expect(planPieces(45_000, [], { maxPieceMs: 90_000 })).toEqual([{ startMs: 0, endMs: 45_000 }]);
  });

  test('cuts go in the middle of the longest pause in the last half of each piece', () => {
    const silences = [
      { startMs: 20_000, endMs: 20_400 }, // too early (before minPiece)
      { startMs: 50_000, endMs: 50_300 },
      { startMs: 70_000, endMs: 71_000 }, // longest in window 1 → cut at 70.5 s
      { startMs: 120_000, endMs: 120_600 }, // window 2 (105.5..160.5 s) → cut at 120.3 s
    ];
    const pieces = planPieces(200_000, silences, { maxPieceMs: 90_000 });
    expect(pieces.map((p) => p.endMs)).toEqual([70_500, 120_300, 200_000]);
    expectCovering(pieces, 200_000, 90_000);
  });

  test('no pause: hard cuts at the maximum length', () => {
    const pieces = planPieces(250_000, [], { maxPieceMs: 100_000 });
    expect(pieces).toEqual([
      { startMs: 0, endMs: 100_000 },
      { startMs: 100_000, endMs: 200_000 },
      { startMs: 200_000, endMs: 250_000 },
    ]);
  });

  test('a pause longer than the window is cut inside the window', () => {
    const pieces = planPieces(150_000, [{ startMs: 40_000, endMs: 140_000 }], { maxPieceMs: 60_000, minPieceMs: 30_000 });
    expectCovering(pieces, 150_000, 60_000);
    expect(pieces[0].endMs).toBe(50_000); // middle of the overlap 40..60 s
  });

  test('two hours at 90 s pieces: every piece within bounds', () => {
    const silences = Array.from({ length: 2000 }, (_, i) => ({ startMs: i * 3_600 + 2_900, endMs: i * 3_600 + 3_300 }));
    expectCovering(planPieces(7_200_000, silences), 7_200_000, 90_000);
  });
});

test('parseSilences reads silencedetect lines, a trailing pause ends with the audio', () => {
  const stderr = [
    '[silencedetect @ 0x55] silence_start: 0',
    '[silencedetect @ 0x55] silence_end: 0.512 | silence_duration: 0.512',
    'size=N/A time=00:00:05.00 bitrate=N/A speed= 500x',
    '[silencedetect @ 0x55] silence_start: 3.25',
    '[silencedetect @ 0x55] silence_end: 4.5 | silence_duration: 1.25',
    '[silencedetect @ 0x55] silence_start: 9.001',
  ].join('\n');
  expect(parseSilences(stderr, 10_000)).toEqual([
    { startMs: 0, endMs: 512 },
    { startMs: 3250, endMs: 4500 },
    { startMs: 9001, endMs: 10_000 },
  ]);
});

describe('stitch', () => {
  const piece = (words: Array<[string, number, number]>, language: string | null = 'en'): RecognitionResult => ({
    language,
    text: words.map((w) => w[0]).join(' '),
    words: words.map(([text, start, end]) => ({ text, start, end, confidence: 0.9 })),
    segments: words.length ? [{ start: words[0][1], end: words[words.length - 1][2], text: words.map((w) => w[0]).join(' ') }] : [],
  });

  test('offsets every time by its piece start, in order, monotonic across joins', () => {
    const result = stitch([
      {
        startMs: 60_000,
        result: piece([
          ['third', 0.0, 0.4],
          ['piece', 0.5, 0.9],
        ]),
      },
      {
        startMs: 0,
        result: piece([
          ['first', 1.0, 1.5],
          ['piece', 58.0, 60.2],
        ]),
      }, // its last word overruns the cut by 0.2 s
      { startMs: 30_000, result: piece([]) }, // a pause on its own
    ]);
    expect(result.text).toBe('first piece third piece');
    expect(result.words.map((w) => [w.text, w.start, w.end])).toEqual([
      ['first', 1, 1.5],
      ['piece', 58, 60.2],
      ['third', 60.2, 60.4], // pushed after the previous word, never before it
      ['piece', 60.5, 60.9],
    ]);
    expect(result.segments).toEqual([
      { start: 1, end: 60.2, text: 'first piece' },
      { start: 60.2, end: 60.9, text: 'third piece' },
    ]);
    expect(result.language).toBe('en');
  });

  test('the language of most words wins', () => {
    const r = stitch([
      { startMs: 0, result: piece([['hola', 0, 1]], 'es') },
      {
        startMs: 10_000,
        result: piece(
          [
            ['one', 0, 1],
            ['two', 1, 2],
            ['three', 2, 3],
          ],
          'en',
        ),
      },
    ]);
    expect(r.language).toBe('en');
  });

  test('no speech in any piece is NO_SPEECH', () => {
    let caught: unknown;
    try {
      stitch([
        { startMs: 0, result: piece([]) },
        { startMs: 5000, result: piece([]) },
      ]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ServiceError);
    expect((caught as ServiceError).code).toBe('NO_SPEECH');
  });
});

describe('on real speech', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let longWav: string;
  let shortWav: string;
  const shortText = PARAGRAPHS.slice(0, 4).join(' ');

  beforeAll(async () => {
    ({ dir, cleanup } = await audioDir('split-'));
    const parts = await Promise.all(PARAGRAPHS.map((p, i) => makeSpeech(p, dir, `p${i}`)));
    longWav = await concatWithPauses(
      parts.map((p) => p.path),
      join(dir, 'long.wav'),
      1.5,
    );
    shortWav = await concatWithPauses(
      parts.slice(0, 4).map((p) => p.path),
      join(dir, 'short.wav'),
      1.5,
    );
  }, 60_000);
  afterAll(() => cleanup?.());

  test('findSilences finds the 1.5 s pauses between paragraphs', async () => {
    const { durationSec } = await readWavInfo(longWav);
    const long = (await findSilences(longWav, { durationMs: durationSec * 1000 })).filter((s) => s.endMs - s.startMs >= 1400);
    expect(long.length).toBe(PARAGRAPHS.length); // five between paragraphs and the padding after the last one
  });

  test('pieces recognised separately and stitched: continuous times, same text quality as one pass', async () => {
    const { durationSec } = await readWavInfo(shortWav);
    const pieces = await splitAtSilences(shortWav, { maxPieceMs: 20_000 });
    expectCovering(pieces, Math.round(durationSec * 1000), 20_000);
    expect(pieces.length).toBeGreaterThanOrEqual(3);

    // Whisper (the recognition worker's engine), one piece after the other: each run loads the model.
    const recognizer = new WhisperCliRecognizer();
    const recognized: { startMs: number; result: RecognitionResult }[] = [];
    for (const [i, p] of pieces.entries()) {
      const wav = await toRecognizerWav(shortWav, join(dir, `piece${i}.wav`), { startMs: p.startMs, durationMs: p.endMs - p.startMs });
      recognized.push({ startMs: p.startMs, result: await recognizeOrEmpty(recognizer, wav, { language: 'en' }) });
    }
    const stitched = stitch(recognized);
    for (let i = 1; i < stitched.words.length; i++) expect(stitched.words[i].start).toBeGreaterThanOrEqual(stitched.words[i - 1].end);
    expect(stitched.words[stitched.words.length - 1].end).toBeLessThanOrEqual(durationSec);
    // Every piece's words land inside that piece's stretch of the recording.
    recognized.forEach((r, i) => {
      for (const w of r.result.words) expect(w.start + r.startMs / 1000).toBeLessThan(pieces[i].endMs / 1000);
    });
    // Cuts in pauses lose nothing and double nothing: see WER_BOUND.
    const wer = wordErrorRate(shortText, stitched.text);
    console.log(`stitched Whisper on ${pieces.length} pieces of flite speech: WER ${(wer * 100).toFixed(1)} %`);
    expect(wer).toBeLessThan(WER_BOUND);
  }, 90_000);
});
