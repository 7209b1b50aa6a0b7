import type { JobRequest, RECOGNITION_PROFILES } from '../schemas/jobs';

/** How AI transcription recognises a job's speech: the request's `profile`, `vocabulary`, `speaker_labels`, `speakers_expected`. */
export interface RecognitionOptions {
  profile: (typeof RECOGNITION_PROFILES)[number];
  vocabulary: string[];
  speakerLabels: boolean;
  speakersExpected: number | null;
}

export const DEFAULT_RECOGNITION: RecognitionOptions = {
  profile: 'standard',
  vocabulary: [],
  speakerLabels: false,
  speakersExpected: null,
};

/** The request's options, normalised: vocabulary terms trimmed (by the schema) and each kept once, in the order given. */
export function recognitionOptionsOf(
  req: Pick<JobRequest, 'profile' | 'vocabulary' | 'speaker_labels' | 'speakers_expected'>,
): RecognitionOptions {
  return {
    profile: req.profile ?? 'standard',
    vocabulary: [...new Set(req.vocabulary ?? [])],
    speakerLabels: req.speaker_labels ?? false,
    speakersExpected: req.speaker_labels ? (req.speakers_expected ?? null) : null,
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
  };
}

/** The options a stored job was accepted with. */
export function recognitionOptionsOfJob(job: {
  recognitionProfile: RecognitionOptions['profile'];
  vocabulary: string[];
  speakerLabels: boolean;
  speakersExpected: number | null;
}): RecognitionOptions {
  return {
    profile: job.recognitionProfile,
    vocabulary: job.vocabulary,
    speakerLabels: job.speakerLabels,
    speakersExpected: job.speakersExpected,
  };
}
