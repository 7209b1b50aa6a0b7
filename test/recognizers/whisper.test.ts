import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceError } from '../../domain/errors';
import { toRecognizerWav } from '../../integrations/media/convert';
import { readWavInfo } from '../../integrations/media/wav';
import { readWhisperHparams } from '../../integrations/recognizers/ggml-header';
import { qualityStatus } from '../../integrations/recognizers/types';
import { WhisperRecognizer } from '../../integrations/recognizers/whisper';
import { PARAGRAPHS, audioDir, makeSpeech } from '../support/speech';
import { TINY, writeRandomTinyWhisperModel } from './random-whisper-model';

// NOT AN ACCURACY TEST. No real whisper weights can be downloaded on these
// machines, so this test writes a model file with the real `tiny`
// architecture and RANDOM weights, and runs it through our whole whisper path:
// ggml header check, the smart-whisper native addon (whisper.cpp compiled at
// install), language handling, token → word mapping and timestamps. What it
// "hears" is noise; only the shape of the result is checked, never its text.

let dir: string;
let cleanup: () => Promise<void>;
let modelPath: string;
let recognizer: WhisperRecognizer;
let wav: string;
let durationSec: number;

// Greedy decoding with no temperature fallback and short segments: a random
// model would otherwise decode the maximum context again and again.
const params = { strategy: 0, temperature_inc: 0, max_tokens: 8, beam_size: 1, best_of: 1 };

beforeAll(async () => {
  ({ dir, cleanup } = await audioDir('whisper-'));
  modelPath = join(dir, 'ggml-tiny-random.bin');
  writeRandomTinyWhisperModel(modelPath);
  recognizer = new WhisperRecognizer({ modelPath, threads: 2, params });
  const speech = await makeSpeech(PARAGRAPHS[1], dir, 'speech');
  wav = await toRecognizerWav(speech.path, join(dir, 'speech.16k.wav'));
  durationSec = (await readWavInfo(wav)).durationSec;
}, 60_000);

afterAll(async () => {
  await recognizer?.close();
  await cleanup?.();
});

test('the generated file has the real tiny hyper-parameters', () => {
  expect(readWhisperHparams(modelPath)).toEqual(TINY);
});

test('random-weight tiny model: loads, decodes, and the result is well-formed (not accuracy)', async () => {
  let result;
  try {
    result = await recognizer.recognize(wav, { language: 'en' });
  } catch (err) {
    // Random weights may well emit only special tokens: an empty decode is NO_SPEECH, also a valid outcome of the path.
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('NO_SPEECH');
    return;
  }
  expect(result.language).toBe('en');
  expect(result.words.length).toBeGreaterThan(0);
  let prevEnd = 0;
  for (const w of result.words) {
    expect(w.start).toBeGreaterThanOrEqual(prevEnd);
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(durationSec);
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    prevEnd = w.end;
  }
}, 120_000);

test('raw decode with automatic language detection returns whisper.cpp segments with token timings', async () => {
  const samples = new Float32Array(16000 * 3).map((_, i) => 0.1 * Math.sin(i / 8));
  const segments = await recognizer.decode(samples);
  expect(Array.isArray(segments)).toBe(true); // the addon reports a failure as an Error object, not an array
  for (const s of segments) {
    expect(typeof s.lang).toBe('string'); // detected by the random model: any of whisper's 99 languages
    for (const t of s.tokens) {
      expect(t.p).toBeGreaterThanOrEqual(0);
      expect(t.from).toBeGreaterThanOrEqual(0);
    }
  }
}, 120_000);

test('languages: the eight of the spec, Hindi experimental, none validated (no real weights measured)', async () => {
  expect(recognizer.languages()).toEqual({
    validated: [],
    supported: ['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko'],
    experimental: ['hi'],
  });
  expect(qualityStatus(recognizer, 'ja')).toBe('provider_supported');
  expect(qualityStatus(recognizer, 'hi')).toBe('experimental_language');
  await expect(recognizer.recognize(wav, { language: 'zh' })).rejects.toMatchObject({ code: 'LANGUAGE_UNSUPPORTED' });
});

test('a file that is not a whisper model is PROVIDER_UNAVAILABLE, refused before the native loader', async () => {
  const bogus = join(dir, 'not-a-model.bin');
  await writeFile(bogus, Buffer.alloc(4096, 7));
  const r = new WhisperRecognizer({ modelPath: bogus });
  await expect(r.recognize(wav)).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', detail: expect.stringContaining('bad magic') });
});

test('no model configured is PROVIDER_UNAVAILABLE naming WHISPER_MODEL_PATH', async () => {
  const saved = process.env.WHISPER_MODEL_PATH;
  delete process.env.WHISPER_MODEL_PATH;
  try {
    await expect(new WhisperRecognizer().recognize(wav)).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      detail: expect.stringContaining('WHISPER_MODEL_PATH'),
    });
  } finally {
    if (saved !== undefined) process.env.WHISPER_MODEL_PATH = saved;
  }
});
