import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LocalDiskObjectStore } from '../../integrations/storage';
import { ROOT } from '../../stack/proc';
import { RECOGNIZER_PYTHON, RECOGNIZER_VENV, startRecognizer } from '../../stack/recognizer';
import { evalClips } from '../support/asr-eval';
import { ffmpeg } from '../support/speech';

// The Python half of the embedded recognizer (recognizer/), without a job:
// its unit tests, the model check that refuses a file whose checksum differs,
// and the engine on real speech, silence and noise through the same code the
// worker runs (`python -m recognizer recognize`, which loads the model per
// call; the worker loads it once). Whole jobs: test/transcription.test.ts.

const run = promisify(execFile);
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
const BUNDLED_SHA256 = 'd01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9';
let tmp: string;

beforeAll(() => {
  if (!fs.existsSync(RECOGNIZER_PYTHON))
    throw new Error(`${RECOGNIZER_PYTHON} is missing: run bash stack/recognizer-setup.sh (npm test does)`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recognizer-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function recognize(file: string, language?: string): Promise<{ code: number; out: any }> {
  const args = ['-m', 'recognizer', 'recognize', file, ...(language ? ['--language', language] : [])];
  try {
    const { stdout } = await run(RECOGNIZER_PYTHON, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, out: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout ? JSON.parse(e.stdout) : e.stderr };
  }
}

/** A model folder like the bundled one whose model.bin is not the pinned file. */
function damagedModelDir(): string {
  const dir = path.join(tmp, 'whisper-base-damaged');
  fs.mkdirSync(dir, { recursive: true });
  const bundled = path.join(RECOGNIZER_VENV, 'models/whisper-base');
  for (const f of ['config.json', 'tokenizer.json', 'vocabulary.txt']) fs.copyFileSync(path.join(bundled, f), path.join(dir, f));
  // The right size, one byte changed in the middle.
  fs.copyFileSync(path.join(bundled, 'model.bin'), path.join(dir, 'model.bin'));
  const fd = fs.openSync(path.join(dir, 'model.bin'), 'r+');
  const b = Buffer.alloc(1);
  const at = Math.floor(fs.statSync(path.join(dir, 'model.bin')).size / 2);
  fs.readSync(fd, b, 0, 1, at);
  fs.writeSync(fd, Buffer.from([b[0]! ^ 0xff]), 0, 1, at);
  fs.closeSync(fd);
  return dir;
}

test('the Python unit tests pass (languages, error mapping, storage layout, model checks)', async () => {
  const { stderr } = await run(RECOGNIZER_PYTHON, ['-m', 'unittest', 'discover', '-s', 'recognizer/tests', '-t', '.'], { cwd: ROOT, env });
  expect(stderr).toMatch(/\nOK\s*$/);
  // About 35 s alone; the budget is for a machine busy with other suites beside it (a new machine's first run took
  // over 300 s while a test built MinIO next to it; tools are built in set-up now), not a speed check.
}, 900_000);

test('the installed model is the pinned one', async () => {
  const { stdout } = await run(RECOGNIZER_PYTHON, ['-m', 'recognizer', 'check'], { cwd: ROOT, env });
  expect(stdout).toContain(`whisper-base: ${path.join(RECOGNIZER_VENV, 'models/whisper-base')} (sha256 ${BUNDLED_SHA256}) ok`);
});

test('a model file whose checksum differs is refused: the worker does not start, and says why', async () => {
  const dir = damagedModelDir();
  const badEnv = { WHISPER_MODEL_DIR: dir, WHISPER_MODEL_SHA256: BUNDLED_SHA256 };
  const check = await run(RECOGNIZER_PYTHON, ['-m', 'recognizer', 'check'], { cwd: ROOT, env: { ...env, ...badEnv } }).catch((e) => e);
  expect(check.code).toBe(2);
  expect(check.stderr).toMatch(/has sha256 [0-9a-f]{64}, expected d01c3014.*refuses to start/);
  // The worker itself, as the stack starts it: it exits before it ever asks Temporal for work.
  const worker = spawn(RECOGNIZER_PYTHON, ['-m', 'recognizer', 'worker'], {
    cwd: ROOT,
    env: { ...env, ...badEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' },
  });
  let stderr = '';
  worker.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => worker.on('exit', r));
  expect(code).toBe(2);
  expect(stderr).toContain('the file is damaged or not the pinned model');
  // And the stack launcher (npm run dev, npm test) reports it instead of waiting.
  await expect(
    startRecognizer({ temporalAddress: '127.0.0.1:1', dataDir: tmp, env: { ...badEnv, LOG_LEVEL: 'error' }, prefix: '[bad-model] ' }),
  ).rejects.toThrow(/exited with code 2/);
}, 30_000);

test('unhinted real speech: the language is detected, with its probability; words timed inside the audio', async () => {
  const clip = evalClips().find((c) => c.file === 'de/leopard_test_de.wav')!;
  const { code, out } = await recognize(clip.audio);
  expect(code).toBe(0);
  expect(out).toMatchObject({ model: 'whisper-base', language: 'de', detected_language: 'de', no_speech: false });
  expect(out.language_probability).toBeGreaterThan(0.9);
  expect(out.words.length).toBeGreaterThan(5);
  let prev = 0;
  for (const w of out.words) {
    expect(w.start).toBeGreaterThanOrEqual(prev - 0.05);
    expect(w.end).toBeLessThanOrEqual(clip.durationSec + 0.05);
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    prev = w.start;
  }
}, 30_000);

test('silence and noise have no speech (voice-activity detection): an empty result, never invented words', async () => {
  const silence = path.join(tmp, 'silence.wav');
  const noise = path.join(tmp, 'noise.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '6', '-c:a', 'pcm_s16le', silence]);
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=r=16000:color=pink:amplitude=0.3:seed=7',
    '-t',
    '6',
    '-ac',
    '1',
    '-c:a',
    'pcm_s16le',
    noise,
  ]);
  for (const file of [silence, noise]) {
    const { code, out } = await recognize(file);
    expect(code).toBe(0);
    expect(out).toMatchObject({ no_speech: true, words: [], text: '', language: null });
  }
}, 30_000);

test('a language outside the eight and the experimental one is LANGUAGE_UNSUPPORTED', async () => {
  const { code, out } = await recognize(evalClips()[0]!.audio, 'nl');
  expect(code).toBe(3);
  expect(out.error).toMatchObject({ code: 'LANGUAGE_UNSUPPORTED', detail: expect.stringContaining('language=nl') });
}, 30_000);

test('what the Python store writes, the TypeScript local store reads (same layout, content type kept)', async () => {
  const root = path.join(tmp, 'objects');
  const script = `
from recognizer.storage import LocalStore
LocalStore(${JSON.stringify(root)}).put_bytes("work/job-9/result-0.json", b'{"ok": true}', "application/json")`;
  await run(RECOGNIZER_PYTHON, ['-c', script], { cwd: ROOT, env });
  const store = new LocalDiskObjectStore({ root, baseUrl: 'http://127.0.0.1', signingSecret: Buffer.alloc(32, 1) });
  expect(await store.stat('work/job-9/result-0.json')).toEqual({ size: 12, contentType: 'application/json' });
  expect((await store.readRange('work/job-9/result-0.json', 0, 100)).toString()).toBe('{"ok": true}');
});
