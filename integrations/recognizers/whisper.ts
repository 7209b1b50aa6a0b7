import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { TranscribeDetailedResult, TranscribeParams, WhisperModel } from 'smart-whisper';
import { ServiceError } from '../../domain/errors';
import { readPcmFloat32 } from '../media/wav';
import { isMultilingual, readWhisperHparams, type WhisperHparams } from './ggml-header';
import { resultFromWords } from './result';
import {
  EXPERIMENTAL_LANGUAGE,
  TARGET_LANGUAGES,
  resolveLanguage,
  type LanguageSets,
  type RecognitionResult,
  type RecognizeOptions,
  type Recognizer,
  type Word,
} from './types';

// whisper.cpp through the `smart-whisper` addon (compiled from source at
// install time), for users who supply a ggml model file (WHISPER_MODEL_PATH):
// no whisper weights can be downloaded on the build machines, so the model
// is configuration, never part of the project.

export interface WhisperOptions {
  /** A whisper.cpp ggml model file (`ggml-base.bin`, …). Env WHISPER_MODEL_PATH. */
  modelPath?: string;
  /** Decoder threads. Env WHISPER_THREADS; default all cores (lower it when pieces run in parallel). */
  threads?: number;
  /** Extra whisper.cpp parameters (tests cap the decoding of a random-weight model with them). */
  params?: Partial<TranscribeParams<'detail', true>>;
}

type Detailed = TranscribeDetailedResult<true>;

export class WhisperRecognizer implements Recognizer {
  readonly name = 'whisper';
  readonly model: string;
  private readonly modelPath: string | undefined;
  private readonly threads: number;
  private readonly params: Partial<TranscribeParams<'detail', true>>;
  private hparams: WhisperHparams | undefined;

  constructor(opts: WhisperOptions = {}) {
    this.modelPath = opts.modelPath ?? process.env.WHISPER_MODEL_PATH;
    this.threads = opts.threads ?? (Number(process.env.WHISPER_THREADS) || availableParallelism());
    this.params = opts.params ?? {};
    this.model = `whisper/${this.modelPath ? basename(this.modelPath).replace(/\.bin$/, '') : 'unconfigured'}`;
  }

  languages(): LanguageSets {
    // No whisper weights exist on the build machines, so no language is validated for it.
    const h = this.header();
    if (!isMultilingual(h)) return { validated: [], supported: ['en'], experimental: [] };
    return { validated: [], supported: [...TARGET_LANGUAGES], experimental: [EXPERIMENTAL_LANGUAGE] };
  }

  async recognize(wavPath: string, opts: RecognizeOptions = {}): Promise<RecognitionResult> {
    this.header(); // a missing or foreign model file fails here, as PROVIDER_UNAVAILABLE
    const language = resolveLanguage(this, opts.language);
    const { samples } = await readPcmFloat32(wavPath);
    const durationSec = samples.length / 16000;
    const raw = await abortable(this.decode(samples, language), opts.signal);
    return resultFromSegments(raw, language ?? null, durationSec);
  }

  /** The raw whisper.cpp segments for 16 kHz mono samples; `language` undefined = detect. */
  async decode(samples: Float32Array, language?: string): Promise<Detailed[]> {
    this.header();
    const model = await loadModel(this.path());
    const { TranscribeTask } = bindings();
    const task = await TranscribeTask.run<'detail', true>(model, samples, {
      language: language ?? 'auto',
      format: 'detail',
      token_timestamps: true,
      n_threads: this.threads,
      suppress_non_speech_tokens: true, // no "(music)" or "[applause]" in a transcript
      ...this.params,
    });
    const result: unknown = await task.result;
    // smart-whisper resolves with an Error object (not a rejection) when whisper.cpp fails.
    if (!Array.isArray(result))
      throw new ServiceError('PROVIDER_REJECTED', `whisper.cpp failed: ${(result as Error)?.message ?? String(result)}`);
    return result as Detailed[];
  }

  /** Frees the model of this recognizer's file (the next recognize loads it again). */
  async close(): Promise<void> {
    if (!this.modelPath) return;
    const loaded = models.get(this.modelPath);
    models.delete(this.modelPath);
    if (loaded) await (await loaded).free();
  }

  private path(): string {
    if (!this.modelPath)
      throw new ServiceError('PROVIDER_UNAVAILABLE', 'WHISPER_MODEL_PATH is not set: the whisper recognizer needs a ggml model file');
    return this.modelPath;
  }

  private header(): WhisperHparams {
    if (!this.hparams) {
      try {
        this.hparams = readWhisperHparams(this.path());
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        throw new ServiceError('PROVIDER_UNAVAILABLE', `whisper model ${this.modelPath}: ${(err as Error).message}`, { cause: err });
      }
    }
    return this.hparams;
  }
}

// One loaded model per file in this process, shared by every recognizer and
// every parallel piece (whisper.cpp gives each transcription its own state).
const models = new Map<string, Promise<WhisperModel>>();

/** Only for a file whose header was checked (WhisperRecognizer.header): the native loader crashes the process on a bad one. */
function loadModel(path: string): Promise<WhisperModel> {
  let loading = models.get(path);
  if (!loading) {
    loading = bindings().WhisperModel.load(path, false);
    loading.catch(() => models.delete(path));
    models.set(path, loading);
  }
  return loading.catch((err) => {
    throw new ServiceError('PROVIDER_UNAVAILABLE', `whisper model ${path} could not be loaded: ${(err as Error).message}`, { cause: err });
  });
}

// Loaded on first use: a worker without the compiled addon still runs every other recognizer.
function bindings(): typeof import('smart-whisper') {
  try {
    return require('smart-whisper') as typeof import('smart-whisper');
  } catch (err) {
    throw new ServiceError('PROVIDER_UNAVAILABLE', `smart-whisper native addon not available: ${(err as Error).message}`, { cause: err });
  }
}

/** whisper.cpp cannot be interrupted through smart-whisper: an abort stops waiting, the native decode finishes in the background. */
function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

// Bracketed or parenthesised whole segments are whisper's non-speech captions ([BLANK_AUDIO], (music)).
const NON_SPEECH_SEGMENT = /^\s*[[(][^\])]*[\])]\s*$/;

/** Words from whisper's tokens: a token starting with a space starts a word, the others continue it. */
export function resultFromSegments(segments: readonly Detailed[], asked: string | null, durationSec: number): RecognitionResult {
  const words: Word[] = [];
  let language = asked;
  for (const seg of segments) {
    if (NON_SPEECH_SEGMENT.test(seg.text) || seg.text.trim() === '') continue;
    language ??= seg.lang || null;
    // Special tokens ([_BEG_], timestamps, [_EOT_]) have their text in brackets.
    const tokens = seg.tokens.filter((t) => !/^\[_.*\]$/.test(t.text) && t.text !== '');
    if (tokens.some((t) => t.text.includes('\uFFFD'))) {
      // A multi-byte character split across tokens (CJK) arrives as U+FFFD: take the words from the segment text.
      words.push(...spreadOverSegment(seg));
      continue;
    }
    let current: { texts: string[]; start: number; end: number; ps: number[] } | null = null;
    const flush = () => {
      if (current)
        words.push({
          text: current.texts.join('').trim(),
          start: current.start / 1000,
          end: current.end / 1000,
          confidence: mean(current.ps),
        });
      current = null;
    };
    for (const t of tokens) {
      const from = t.from ?? seg.from;
      const to = t.to ?? seg.to;
      if (current === null || /^\s/.test(t.text)) {
        flush();
        current = { texts: [t.text], start: from, end: to, ps: [t.p] };
      } else {
        current.texts.push(t.text);
        current.end = Math.max(current.end, to);
        current.ps.push(t.p);
      }
    }
    flush();
  }
  return resultFromWords(language, words, { durationSec, engine: 'whisper' });
}

/** Whitespace-separated words of the segment text, the segment's time shared out by length. */
function spreadOverSegment(seg: Detailed): Word[] {
  const parts = seg.text
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  const total = parts.reduce((n, p) => n + p.length, 0);
  const confidence = seg.confidence;
  const out: Word[] = [];
  let t = seg.from;
  for (const p of parts) {
    const len = ((seg.to - seg.from) * p.length) / Math.max(1, total);
    out.push({ text: p, start: t / 1000, end: (t + len) / 1000, confidence });
    t += len;
  }
  return out;
}

function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}
