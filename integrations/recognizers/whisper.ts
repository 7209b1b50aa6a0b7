import { z } from 'zod';
import { ServiceError } from '../../core/errors';
import { validatedLanguages } from './quality';
import { cleanWords, isCjk, joinWords, segmentsFromWords } from './result';
import {
  EXPERIMENTAL_LANGUAGE,
  TARGET_LANGUAGES,
  type LanguageSeconds,
  type LanguageSets,
  type RecognitionResult,
  type Recognizer,
  type Word,
} from './types';

// The embedded recognizer: Whisper through faster-whisper (CTranslate2) in
// the Python recognition worker (recognizer/), which loads the model once and
// serves the `recognizePiece` activity on its own task queue. The default
// model is Whisper base (multilingual), installed from hash-pinned packages
// by stack/recognizer-setup.sh; WHISPER_MODEL_DIR names an operator's own
// CTranslate2 Whisper model (its folder name is the model name).
//
// This side knows the model's name and languages (for LANGUAGE_UNSUPPORTED at
// submit and for quality_status, from the measurements in quality.ts) and
// finishes the raw result each piece's activity stores.

/** The bundled model's name (recognizer/model.py BUNDLED_NAME). */
export const DEFAULT_WHISPER_MODEL = 'whisper-base';

export class WhisperRecognizer implements Recognizer {
  readonly name = 'whisper';

  /** `model`: the name the recognition worker reports (the model folder's name). */
  constructor(readonly model: string = DEFAULT_WHISPER_MODEL) {}

  languages(): LanguageSets {
    const validated = validatedLanguages(this.model);
    return {
      validated,
      supported: TARGET_LANGUAGES.filter((l) => !validated.includes(l)),
      experimental: [EXPERIMENTAL_LANGUAGE],
    };
  }
}

/** The model name of a WHISPER_MODEL_DIR setting, as the worker reports it: the folder's name. */
export function whisperModelName(modelDir: string | undefined): string {
  const trimmed = (modelDir ?? '').trim().replace(/[/\\]+$/, '');
  if (trimmed === '') return DEFAULT_WHISPER_MODEL;
  return trimmed.split(/[/\\]/).pop()!;
}

/** What recognizer/engine.py writes for one piece (times in seconds from the piece's start). */
const PieceResultSchema = z.object({
  model: z.string().min(1),
  language: z.string().nullable(),
  language_probability: z.number().nullable(),
  duration: z.number().nonnegative(),
  no_speech: z.boolean(),
  text: z.string(),
  words: z.array(
    z.object({
      start: z.number(),
      end: z.number(),
      text: z.string(),
      confidence: z.number(),
      language: z.string().nullish(),
      speaker: z.string().nullish(),
    }),
  ),
  languages: z.array(z.object({ language: z.string(), seconds: z.number().nonnegative() })).optional(),
});

/** What labelSpeakers writes (recognizer/worker.py): the speaker of every word of every piece, in order. */
export const SpeakerLabelsSchema = z.object({ speakers: z.number().int().nonnegative(), pieces: z.array(z.array(z.string().min(1))) });

/** A piece's raw result, with the speaker of each word when labelSpeakers gave them (in the result's word order). */
export function withSpeakers(raw: unknown, speakers: readonly string[] | undefined): unknown {
  if (!speakers || typeof raw !== 'object' || raw === null || !Array.isArray((raw as { words?: unknown }).words)) return raw;
  const words = (raw as { words: object[] }).words;
  if (words.length !== speakers.length)
    throw new ServiceError('PROVIDER_REJECTED', `speaker labels for ${speakers.length} words, the piece has ${words.length}`);
  return { ...raw, words: words.map((w, i) => ({ ...w, speaker: speakers[i] })) };
}

export interface FinishedPiece {
  result: RecognitionResult;
  model: string;
  /** Probability of the detected language; null when the language was asked for or nothing was heard. */
  languageProbability: number | null;
  /** Seconds of speech per language (the recognizer's regions); empty from recognizers that do not say. */
  languages: LanguageSeconds[];
}

/**
 * One piece's raw result made to obey the service's rules (result.ts): words
 * trimmed, confidences in 0..1, times monotonic and inside the piece,
 * caption-sized segments, text made of exactly the words. A piece with no
 * speech is an empty result (stitch decides NO_SPEECH for the recording).
 */
export function finishWhisperPiece(raw: unknown): FinishedPiece {
  const parsed = PieceResultSchema.safeParse(raw);
  if (!parsed.success) throw new ServiceError('PROVIDER_REJECTED', `recognizer result malformed: ${parsed.error.message.slice(0, 200)}`);
  const r = parsed.data;
  const words = cleanWords(attachContinuations(r.words), r.duration);
  if (words.length === 0)
    return { result: { language: null, text: '', segments: [], words: [] }, model: r.model, languageProbability: null, languages: [] };
  return {
    result: { language: r.language, text: joinWords(words.map((w) => w.text)), segments: segmentsFromWords(words), words },
    model: r.model,
    languageProbability: r.language_probability,
    languages: r.languages ?? [],
  };
}

/** A piece's finished result with its languages, as stitch takes it. */
export function pieceResult(piece: FinishedPiece): RecognitionResult {
  return { ...piece.result, languages: piece.languages };
}

/**
 * Whisper's words keep their leading space: a word without one continues the
 * previous word in writing (French `d'` + `'abord` after its apostrophe
 * rule, `l'` + `'homme`), so the two become one word, spanning both. Words of
 * scripts written without spaces (Japanese) never have one and stay apart.
 */
function attachContinuations(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    const attached = prev && w.text !== '' && !/^\s/.test(w.text) && !isCjk(w.text[0]) && !isCjk(prev.text[prev.text.length - 1]);
    if (attached) {
      prev.text += w.text;
      prev.end = Math.max(prev.end, w.end);
      prev.confidence = (prev.confidence + w.confidence) / 2;
    } else out.push({ ...w });
  }
  return out;
}
