import { ServiceError } from '../../core/errors';
import { normaliseLanguageTag } from '../platforms/language-tags';
import type { Segment, Word } from '../../core/timing';

export type { Segment, Word };

// The one shape every speech recognizer here answers in, and the language
// rules that decide `recognition.quality_status`. Times are seconds from the
// start of the audio given to `recognize`; a caller that cut the audio into
// pieces offsets them back (media/split.ts `stitch`).

export interface RecognitionResult {
  /** BCP 47 tag the recognizer reports (detected or as asked); null when it says nothing. */
  language: string | null;
  text: string;
  segments: Segment[];
  /** Monotonic: each word starts at or after the end of the previous one. */
  words: Word[];
  /** Seconds of speech per language, longest first, where the recognizer tells them (the embedded one does). */
  languages?: LanguageSeconds[];
}

export interface LanguageSeconds {
  language: string;
  seconds: number;
}

/** A speaker of a labelled transcript: its id ("A", …), how many words and seconds of speech are theirs. */
export interface SpeakerSummary {
  id: string;
  words: number;
  seconds: number;
}

export interface RecognizeOptions {
  /** BCP 47 hint; absent means automatic detection where the recognizer can detect. */
  language?: string;
  signal?: AbortSignal;
}

/** Primary language subtags, lower case. A language in none of the three lists is unsupported. */
export interface LanguageSets {
  /** Quality measured here with this recognizer's model (integrations/recognizers/quality.ts). */
  validated: string[];
  /** Listed by the model or provider, quality not measured here. */
  supported: string[];
  /** Listed, but its output failed the readiness review. */
  experimental: string[];
}

/** What the rest of the service knows of a recognizer: its name, its model and the languages it takes. */
export interface Recognizer {
  /** Engine id: `whisper`, `assemblyai`. */
  readonly name: string;
  /** The model as it goes into `recognition.model`. */
  readonly model: string;
  languages(): LanguageSets;
}

/**
 * A recognizer that can be called in this process on one file. The embedded
 * Whisper recognizer is not one: it runs in its own Python worker
 * (recognizer/, reached through Temporal by workflows/job.ts).
 */
export interface SpeechRecognizer extends Recognizer {
  /** Throws LANGUAGE_UNSUPPORTED, NO_SPEECH, PROVIDER_UNAVAILABLE or PROVIDER_REJECTED. */
  recognize(wavPath: string, opts?: RecognizeOptions): Promise<RecognitionResult>;
}

export type QualityStatus = 'validated_language' | 'provider_supported' | 'experimental_language';

/** The spec's AI transcription languages. */
export const TARGET_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'ja', 'ko'] as const;

/**
 * The one language flagged experimental: Hindi. Recognizers trained on web
 * audio write Hindi speech in a mix of Devanagari, romanised Latin (for the
 * English words of everyday Hinglish) and sometimes Urdu script, within one
 * transcript: the "mixed-script output" of the spec's readiness review.
 */
export const EXPERIMENTAL_LANGUAGE = 'hi';

/** `en-US`, `EN_us`, `eng` → `en`. */
export function primaryLanguage(tag: string): string {
  return normaliseLanguageTag(tag).split('-')[0].toLowerCase();
}

/** The asked language as its primary subtag, or undefined for auto-detection; LANGUAGE_UNSUPPORTED when the recognizer lists it nowhere. */
export function resolveLanguage(recognizer: Recognizer, language: string | undefined | null): string | undefined {
  if (language === undefined || language === null || language.trim() === '') return undefined;
  const primary = primaryLanguage(language);
  const sets = recognizer.languages();
  if (![...sets.validated, ...sets.supported, ...sets.experimental].includes(primary)) {
    const all = [...sets.validated, ...sets.supported, ...sets.experimental].join(', ');
    throw new ServiceError('LANGUAGE_UNSUPPORTED', `language=${language} is not supported by ${recognizer.model} (supported: ${all})`);
  }
  return primary;
}

/**
 * `recognition.quality_status` for a transcript in `language` (the language
 * the recognizer reported, else the one asked for). A language the
 * recognizer cannot do throws LANGUAGE_UNSUPPORTED.
 */
export function qualityStatus(recognizer: Recognizer, language: string | null): QualityStatus {
  // No language reported or asked: nothing was measured for it.
  if (language === null || language.trim() === '') return 'provider_supported';
  const primary = resolveLanguage(recognizer, language)!;
  const sets = recognizer.languages();
  if (sets.validated.includes(primary)) return 'validated_language';
  if (sets.experimental.includes(primary)) return 'experimental_language';
  return 'provider_supported';
}

/**
 * For one piece of a longer recording: a piece with no speech (a pause cut
 * out on its own) is an empty result, not a failed job; stitch() decides
 * NO_SPEECH for the whole recording.
 */
export async function recognizeOrEmpty(
  recognizer: SpeechRecognizer,
  wavPath: string,
  opts: RecognizeOptions = {},
): Promise<RecognitionResult> {
  try {
    return await recognizer.recognize(wavPath, opts);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'NO_SPEECH') return { language: null, text: '', segments: [], words: [] };
    throw err;
  }
}
