import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { evalClips } from './asr-eval';

// English test speech with a known text, made on the spot by Debian's flite
// (voice slt). Not espeak-ng: its formant voice is so unlike real speech that
// recognizers stumble on it (shared/models/README.md), which would test the
// voice, not our code. Real human speech in the eight languages, with
// references, is in ../shared/asr-eval (test/support/asr-eval.ts).

const run = promisify(execFile);

/** Plain sentences of everyday words, no digits (each voice reads numbers its own way). */
export const PARAGRAPHS = [
  'The weather was bright and cold when the small boat left the harbor. Two children stood on the deck and watched the gulls follow the wake. Their father told them the island was only an hour away.',
  'Please remember to close the windows before you leave the office tonight. The cleaning team will arrive early tomorrow morning and they need the rooms to be quiet and ready.',
  'A good library is a place where people can read, think and meet their neighbors. Many towns have opened new reading rooms and study spaces for students during the long winter evenings.',
  'The museum will open a new exhibition about ancient maps next week. Visitors can see how sailors drew the coast of the known world and how those drawings changed over many centuries.',
  'When the train stopped at the station, the passengers picked up their bags and walked toward the exit. A man in a blue coat was selling hot coffee and fresh bread near the gate.',
  'Our team finished the garden project on time. We planted apple trees along the fence, built a wooden bench near the pond, and painted the shed a warm shade of green.',
];

export type Voice = 'flite-slt';

export interface Speech {
  path: string;
  text: string;
}

/** A folder for a test's audio; remove it with `cleanup()`. */
export async function audioDir(prefix = 'speech-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Speaks `text` into `<dir>/<name>.<format>` (wav straight from the voice; mp3/m4a/ogg through ffmpeg). */
export async function makeSpeech(
  text: string,
  dir: string,
  name: string,
  opts: { voice?: Voice; format?: 'wav' | 'mp3' | 'm4a' | 'ogg' } = {},
): Promise<Speech> {
  const format = opts.format ?? 'wav';
  const textFile = join(dir, `${name}.txt`);
  const wav = join(dir, `${name}.voice.wav`);
  await writeFile(textFile, text);
  await run('flite', ['-voice', 'slt', '-f', textFile, '-o', wav]);
  const path = join(dir, `${name}.${format}`);
  const codec = {
    wav: ['-c:a', 'pcm_s16le'],
    mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
    m4a: ['-c:a', 'aac', '-b:a', '64k'],
    ogg: ['-c:a', 'libvorbis'],
  }[format];
  await ffmpeg(['-i', wav, ...codec, path]);
  return { path, text };
}

/** `seconds` of digital silence as a 16 kHz mono wav. */
export async function makeSilence(path: string, seconds: number): Promise<string> {
  await ffmpeg(['-f', 'lavfi', '-i', `anullsrc=r=16000:cl=mono`, '-t', String(seconds), '-c:a', 'pcm_s16le', path]);
  return path;
}

/** Joins audio files into one 16 kHz mono wav with `gapSec` of silence between them (pauses to cut at). */
export async function concatWithPauses(inputs: readonly string[], output: string, gapSec = 1): Promise<string> {
  const args: string[] = [];
  const labels: string[] = [];
  inputs.forEach((input, i) => {
    args.push('-i', input);
    labels.push(`[${i}:a]aresample=16000,aformat=channel_layouts=mono,apad=pad_dur=${gapSec}[a${i}]`);
  });
  const filter = `${labels.join(';')};${inputs.map((_, i) => `[a${i}]`).join('')}concat=n=${inputs.length}:v=0:a=1[out]`;
  await ffmpeg([...args, '-filter_complex', filter, '-map', '[out]', '-c:a', 'pcm_s16le', output]);
  return output;
}

/**
 * Real English speech of some length: the English clips of the eval set, `times` over, joined with 1 s pauses
 * into `<dir>/<name>.wav`, with the reference text and the length in seconds (the pauses included).
 */
export async function englishTalk(
  dir: string,
  opts: { times?: number; name?: string } = {},
): Promise<{ file: string; reference: string; seconds: number }> {
  const en = evalClips().filter((c) => c.lang === 'en');
  const clips = Array.from({ length: opts.times ?? 1 }, () => en).flat();
  const file = await concatWithPauses(
    clips.map((c) => c.audio),
    join(dir, `${opts.name ?? 'talk'}.wav`),
    1,
  );
  return { file, reference: clips.map((c) => c.reference).join(' '), seconds: clips.reduce((s, c) => s + c.durationSec + 1, 0) };
}

export async function ffmpeg(args: readonly string[]): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], { maxBuffer: 16 * 1024 * 1024 });
}

/** Lower case, punctuation removed (apostrophes inside words kept), split on spaces. */
export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Word error rate: word-level Levenshtein distance (substitutions + deletions + insertions) over the reference length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normaliseWords(reference);
  const hyp = normaliseWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[hyp.length] / ref.length;
}
