import { join } from 'node:path';
import { ServiceError } from '../../domain/errors';
import { ToolMissingError, runTool } from '../media/run-tool';
import { readWavInfo } from '../media/wav';
import { resultFromWords } from './result';
import { resolveLanguage, type LanguageSets, type RecognitionResult, type RecognizeOptions, type Recognizer, type Word } from './types';

// The embedded default recognizer: CMU pocketsphinx with its US-English
// model, from Debian's `pocketsphinx` and `pocketsphinx-en-us` packages
// (installed by stack/speech-setup.sh). It needs no model download and runs
// at about a quarter of real time on one core, but knows English only.

/** Where Debian's pocketsphinx-en-us puts the model. */
export const DEFAULT_POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PocketsphinxOptions {
  /** Folder holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. Env POCKETSPHINX_MODEL_DIR. */
  modelDir?: string;
  /** The decoder binary. Default `pocketsphinx_continuous`. */
  binary?: string;
}

export class PocketsphinxRecognizer implements Recognizer {
  readonly name = 'pocketsphinx';
  readonly model = 'pocketsphinx-en-us';
  private readonly modelDir: string;
  private readonly binary: string;

  constructor(opts: PocketsphinxOptions = {}) {
    this.modelDir = opts.modelDir ?? process.env.POCKETSPHINX_MODEL_DIR ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
    this.binary = opts.binary ?? 'pocketsphinx_continuous';
  }

  languages(): LanguageSets {
    // English is validated: test/recognizers/pocketsphinx.test.ts measures its WER.
    return { validated: ['en'], supported: [], experimental: [] };
  }

  async recognize(wavPath: string, opts: RecognizeOptions = {}): Promise<RecognitionResult> {
    resolveLanguage(this, opts.language);
    const { durationSec } = await readWavInfo(wavPath);
    const args = [
      '-infile',
      wavPath,
      '-hmm',
      join(this.modelDir, 'en-us'),
      '-lm',
      join(this.modelDir, 'en-us.lm.bin'),
      '-dict',
      join(this.modelDir, 'cmudict-en-us.dict'),
      '-time',
      'yes',
    ];
    let run;
    try {
      // Generous limit: a healthy run takes about 0.3 × the audio length plus 1 s to load.
      run = await runTool(this.binary, args, { signal: opts.signal, timeoutMs: 60_000 + durationSec * 3000 });
    } catch (err) {
      if (err instanceof ToolMissingError) throw new ServiceError('PROVIDER_UNAVAILABLE', err.message, { cause: err });
      throw err;
    }
    if (run.code !== 0) {
      const why =
        run.stderr
          .split('\n')
          .filter((l) => /ERROR|FATAL/.test(l))
          .pop()
          ?.trim() ?? `exit ${run.code ?? run.signal}`;
      throw new ServiceError('PROVIDER_REJECTED', `pocketsphinx failed: ${why.slice(0, 300)}`);
    }
    return resultFromWords('en', parsePocketsphinxWords(run.stdout), { durationSec, engine: 'pocketsphinx' });
  }
}

// `-time yes` prints, per utterance, the hypothesis line and then one line
// per word: "<word> <start s> <end s> <posterior>", times from the start of
// the file. Dictionary words never look like numbers, so a hypothesis line
// cannot be mistaken for a word line.
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;
// Sentence marks, silence, noise and filler entries of the noise dictionary: <s>, </s>, <sil>, [NOISE], [SPEECH], ++UH++.
const NOT_A_WORD = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;

export function parsePocketsphinxWords(stdout: string): Word[] {
  const words: Word[] = [];
  for (const line of stdout.split('\n')) {
    const m = WORD_LINE.exec(line.trim());
    if (!m || NOT_A_WORD.test(m[1])) continue;
    words.push({
      text: m[1].replace(/\(\d+\)$/, ''), // "and(2)": the second pronunciation of "and"
      start: Number(m[2]),
      end: Number(m[3]),
      confidence: Number(m[4]), // a posterior; reads 1.0001 at times, clamped by resultFromWords
    });
  }
  return words;
}
