import { join } from 'node:path';
import { ServiceError } from '../../domain/errors';
import { toRecognizerWav } from '../../integrations/media/convert';
import { readWavInfo } from '../../integrations/media/wav';
import { PocketsphinxRecognizer, parsePocketsphinxWords } from '../../integrations/recognizers/pocketsphinx';
import { qualityStatus, type RecognitionResult } from '../../integrations/recognizers/types';
import { PARAGRAPHS, audioDir, concatWithPauses, ffmpeg, makeSilence, makeSpeech, wordErrorRate } from '../support/speech';
import { caughtServiceError } from '../support/service-errors';

// The embedded recognizer on synthetic English speech with a known text.
// WER bounds were measured on this machine (Debian 12, pocketsphinx
// 0.8+5prealpha-15, flite 2.2, festival 2.5 + festvox-us-slt-hts), with
// margin, and both engines are deterministic:
//   flite slt, paragraphs 0–2 in one mp3 with pauses: measured 0.23 → bound 0.32
//   festival slt-hts, paragraph 1:                   measured 0.03 → bound 0.12

let dir: string;
let cleanup: () => Promise<void>;
const recognizer = new PocketsphinxRecognizer();

beforeAll(async () => {
  ({ dir, cleanup } = await audioDir('sphinx-'));
}, 30_000);
afterAll(() => cleanup?.());

function expectWellFormed(result: RecognitionResult, durationSec: number) {
  expect(result.words.length).toBeGreaterThan(0);
  let prevEnd = 0;
  for (const w of result.words) {
    expect(w.start).toBeGreaterThanOrEqual(prevEnd); // monotonic, no overlap
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(durationSec); // inside the audio
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    expect(w.text).toMatch(/^[a-z']+$/); // no <s>, <sil>, [NOISE], no "(2)" alternates
    prevEnd = w.end;
  }
  // Segments: caption-sized, in order, made of exactly the words.
  expect(result.segments.map((s) => s.text).join(' ')).toBe(result.words.map((w) => w.text).join(' '));
  expect(result.text).toBe(result.words.map((w) => w.text).join(' '));
  for (let i = 0; i < result.segments.length; i++) {
    expect(result.segments[i].text.split(' ').length).toBeLessThanOrEqual(12);
    if (i > 0) expect(result.segments[i].start).toBeGreaterThanOrEqual(result.segments[i - 1].end);
  }
}

test('flite speech (mp3 → 16 kHz wav): WER under the measured bound, well-formed words and segments', async () => {
  const parts = await Promise.all(PARAGRAPHS.slice(0, 3).map((p, i) => makeSpeech(p, dir, `flite${i}`)));
  const joined = await concatWithPauses(
    parts.map((p) => p.path),
    join(dir, 'flite.wav'),
    0.8,
  );
  await ffmpeg(['-i', joined, '-c:a', 'libmp3lame', '-b:a', '64k', join(dir, 'flite.mp3')]);
  const wav = await toRecognizerWav(join(dir, 'flite.mp3'), join(dir, 'flite.16k.wav'));
  const { durationSec } = await readWavInfo(wav);

  const result = await recognizer.recognize(wav, { language: 'en-US' });
  const wer = wordErrorRate(PARAGRAPHS.slice(0, 3).join(' '), result.text);
  console.log(`pocketsphinx on flite slt, ${durationSec.toFixed(1)} s: WER ${(wer * 100).toFixed(1)} %`);
  expect(wer).toBeLessThan(0.32);
  expect(result.language).toBe('en');
  expectWellFormed(result, durationSec);
  // Three paragraphs with pauses between them make at least three segments.
  expect(result.segments.length).toBeGreaterThanOrEqual(3);
}, 90_000);

test('festival slt-hts speech: WER under the measured bound', async () => {
  const speech = await makeSpeech(PARAGRAPHS[1], dir, 'festival', { voice: 'festival-slt' });
  const wav = await toRecognizerWav(speech.path, join(dir, 'festival.16k.wav'));
  const result = await recognizer.recognize(wav);
  const wer = wordErrorRate(speech.text, result.text);
  console.log(`pocketsphinx on festival slt-hts: WER ${(wer * 100).toFixed(1)} %`);
  expect(wer).toBeLessThan(0.12);
  expectWellFormed(result, (await readWavInfo(wav)).durationSec);
}, 90_000);

test('silence is NO_SPEECH', async () => {
  const wav = await makeSilence(join(dir, 'silence.wav'), 4);
  expect((await caughtServiceError(recognizer.recognize(wav))).code).toBe('NO_SPEECH');
});

test('a language other than English is LANGUAGE_UNSUPPORTED, before any decoding', async () => {
  // The file does not exist: the language is refused first.
  expect((await caughtServiceError(recognizer.recognize(join(dir, 'never-made.wav'), { language: 'fr' }))).code).toBe(
    'LANGUAGE_UNSUPPORTED',
  );
});

test('quality status: English is validated (measured above), anything else unsupported', () => {
  expect(qualityStatus(recognizer, 'en')).toBe('validated_language');
  expect(qualityStatus(recognizer, 'en-GB')).toBe('validated_language');
  expect(() => qualityStatus(recognizer, 'de')).toThrow(ServiceError);
});

test('an abort kills the decoder', async () => {
  const speech = await makeSpeech(PARAGRAPHS[3], dir, 'abort');
  const ac = new AbortController();
  const run = recognizer.recognize(speech.path, { signal: ac.signal });
  setTimeout(() => ac.abort(new Error('cancelled')), 200);
  await expect(run).rejects.toThrow('cancelled');
});

test('parsePocketsphinxWords drops markers and fillers, strips alternates, keeps raw confidences', () => {
  const stdout = [
    'the quick brown',
    '<s> 0.100 0.150 0.998900',
    'the 0.160 0.280 0.586453',
    '[NOISE] 0.290 0.300 0.5',
    'and(2) 3.440 3.590 1.0001',
    '<sil> 3.600 3.700 0.9',
    '++UH++ 3.700 3.750 0.3',
    '</s> 6.600 6.690 1.000000',
    'quick 6.700 7.000 1.2e-05',
  ].join('\n');
  expect(parsePocketsphinxWords(stdout)).toEqual([
    { text: 'the', start: 0.16, end: 0.28, confidence: 0.586453 },
    { text: 'and', start: 3.44, end: 3.59, confidence: 1.0001 }, // clamped later, by resultFromWords
    { text: 'quick', start: 6.7, end: 7, confidence: 1.2e-5 },
  ]);
});
