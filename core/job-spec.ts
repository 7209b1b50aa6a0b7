import { z } from 'zod';
import { PII_TYPE_NAMES } from './pii-types';

// A job's options as accepted: the one shape a job's choices travel in, from the request to the recognizer
// (docs/architecture.md, "A job's options: one spec"). Here in the kernel because every layer reads it, the
// workflows included (by type); the request that produces it and its OpenAPI name are in domain/schemas/jobs.ts.

export const MODES = ['captions_only', 'auto', 'transcribe'] as const;
export const CAPTION_PREFERENCES = ['prefer_creator', 'creator_only', 'automatic_only'] as const;
export const RECOGNITION_PROFILES = ['standard', 'fast'] as const;

/**
 * Normalised from the request (domain/schemas/jobs.ts jobSpecOf: every default written out, the vocabulary's
 * duplicates dropped), stored whole (jobs.spec, checked on read), carried as the workflow plan's `spec`, read by
 * the Python recognizer through a model generated from its JSON Schema (recognizer/job_spec.py), replayed
 * verbatim by retry and echoed as the job's `options`. A new option is a field here with its default in
 * JOB_SPEC_DEFAULTS, and its request field; the reuse key takes it in when it differs from its default.
 */
export const JobSpecShape = z.object({
  mode: z.enum(MODES),
  language: z.string().nullable(),
  caption_preference: z.enum(CAPTION_PREFERENCES),
  caption_languages: z.array(z.string()),
  profile: z.enum(RECOGNITION_PROFILES),
  vocabulary: z.array(z.string()),
  speaker_labels: z.boolean(),
  speakers_expected: z.number().int().nullable(),
  word_timing: z.boolean(),
  align_text_chars: z
    .number()
    .int()
    .nullable()
    .describe("The length of the `align_text` given (the text itself is the transcript's text); null when none was."),
  chapters: z.boolean(),
  filter_profanity: z.boolean(),
  disfluencies: z.boolean(),
  redact_pii: z.boolean(),
  redacted_audio: z.boolean(),
  redact_pii_types: z
    .array(z.enum(PII_TYPE_NAMES))
    .describe('The kinds of personal data redacted, in the list order of PII_TYPE_NAMES; [] when `redact_pii` is false.'),
  translate_to: z
    .string()
    .nullable()
    .describe('The language the transcript is translated into (a canonical BCP 47 tag); null when none was asked for.'),
  summarize: z.boolean(),
  max_duration_s: z
    .number()
    .int()
    .nullable()
    .describe('A live job (an HLS playlist): the most media seconds followed before it ends; null for any other source.'),
});
export type JobSpec = z.infer<typeof JobSpecShape>;

/** What a request that leaves an option out asks for. */
export const JOB_SPEC_DEFAULTS: Omit<JobSpec, 'mode'> = {
  language: null,
  caption_preference: 'prefer_creator',
  caption_languages: [],
  profile: 'standard',
  vocabulary: [],
  speaker_labels: false,
  speakers_expected: null,
  word_timing: false,
  align_text_chars: null,
  chapters: false,
  filter_profanity: false,
  disfluencies: true,
  redact_pii: false,
  redact_pii_types: [],
  redacted_audio: false,
  translate_to: null,
  summarize: false,
  max_duration_s: null,
};
