import { createHash } from 'node:crypto';
import type { JobRequest, RECOGNITION_PROFILES } from '../schemas/jobs';

/**
 * How a job's audio is turned into words: the request's `profile`, `vocabulary`, `speaker_labels`,
 * `speakers_expected` (AI transcription), `word_timing` (captions aligned to the audio) and `align_text`
 * (a given text aligned instead of recognising).
 */
export interface RecognitionOptions {
  profile: (typeof RECOGNITION_PROFILES)[number];
  vocabulary: string[];
  speakerLabels: boolean;
  speakersExpected: number | null;
  wordTiming: boolean;
  alignText: string | null;
}

export const DEFAULT_RECOGNITION: RecognitionOptions = {
  profile: 'standard',
  vocabulary: [],
  speakerLabels: false,
  speakersExpected: null,
  wordTiming: false,
  alignText: null,
};

/** The request's options, normalised: vocabulary terms trimmed (by the schema) and each kept once, in the order given. */
export function recognitionOptionsOf(
  req: Pick<JobRequest, 'profile' | 'vocabulary' | 'speaker_labels' | 'speakers_expected' | 'word_timing' | 'align_text'>,
): RecognitionOptions {
  return {
    profile: req.profile ?? 'standard',
    vocabulary: [...new Set(req.vocabulary ?? [])],
    speakerLabels: req.speaker_labels ?? false,
    speakersExpected: req.speaker_labels ? (req.speakers_expected ?? null) : null,
    wordTiming: req.word_timing ?? false,
    alignText: req.align_text ?? null,
  };
}

/**
 * The options that change a transcript, for the reuse key: only those that differ from the defaults, so
 * a request without them keeps the key it always had. The vocabulary is a set (its order and case-exact
 * duplicates do not change what is recognised enough to transcribe again).
 */
export function reuseRelevant(o: RecognitionOptions): Record<string, unknown> {
  return {
    ...(o.profile !== 'standard' ? { profile: o.profile } : {}),
    ...(o.vocabulary.length > 0 ? { vocabulary: [...o.vocabulary].sort() } : {}),
    ...(o.speakerLabels ? { speaker_labels: true, speakers_expected: o.speakersExpected } : {}),
    ...(o.wordTiming ? { word_timing: true } : {}),
    // The text itself may be 200,000 characters: its hash decides.
    ...(o.alignText !== null ? { align_text: createHash('sha256').update(o.alignText).digest('hex') } : {}),
  };
}

/** The options a stored job was accepted with (its `align_text` read from its own table). */
export function recognitionOptionsOfJob(
  job: {
    recognitionProfile: RecognitionOptions['profile'];
    vocabulary: string[];
    speakerLabels: boolean;
    speakersExpected: number | null;
    wordTiming: boolean;
  },
  alignText: string | null,
): RecognitionOptions {
  return {
    profile: job.recognitionProfile,
    vocabulary: job.vocabulary,
    speakerLabels: job.speakerLabels,
    speakersExpected: job.speakersExpected,
    wordTiming: job.wordTiming,
    alignText,
  };
}
