import { JOB_STAGES } from '../../workflows/definitions';
import { z } from './zod';
import { canonicalTag } from '../transcripts/translation';
import { primaryLanguage } from '../../integrations/recognizers/types';
import { PII_TYPES, RULE_PII_TYPES, type PiiType } from '../transcripts/redaction';
import { ErrorObjectSchema, queryInteger, Uuid, DateTime } from './common';
import { CAPTION_PREFERENCES, JOB_SPEC_DEFAULTS, JobSpecShape, MODES, RECOGNITION_PROFILES, type JobSpec } from '../../core/job-spec';
import { isHlsPlaylistLink } from '../../integrations/platforms/links';
import { DEFAULT_LIVE_DURATION_S, MAX_LIVE_DURATION_S, MIN_LIVE_DURATION_S } from '../jobs/live';

// Job request and job object: one schema validates POST /v1/jobs and each batch
// item, gives the handler its type and writes the OpenAPI component.

export { MODES, CAPTION_PREFERENCES, RECOGNITION_PROFILES, JOB_SPEC_DEFAULTS, type JobSpec };
export const MAX_VOCABULARY_TERMS = 100;
export const MAX_VOCABULARY_TERM_CHARS = 50;
export const MAX_SPEAKERS_EXPECTED = 10;
/** `align_text`: at most this many characters (Unicode code points, as JSON Schema's maxLength counts). */
export const MAX_ALIGN_TEXT_CHARS = 200_000;
/**
 * The body limit of the requests that create jobs (POST /v1/jobs, POST /v1/batches), above the 1 MiB of the rest:
 * the longest `align_text` must fit however the client's JSON encoder writes it. Python's json.dumps (and
 * requests' `json=`) escapes every non-ASCII character by default, an emoji as a surrogate pair of 12 bytes:
 * 200,000 of them are 2.4 MB, which a 1 MiB limit refused with 413 although the text is within its stated limit.
 */
export const JOB_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** The request fields that shape AI transcription only: refused with mode captions_only. */
export const RECOGNITION_FIELDS = ['profile', 'vocabulary', 'speaker_labels', 'speakers_expected'] as const;
/** The request fields of forced alignment: `word_timing` (caption modes) and `align_text` (transcribe). */
export const ALIGNMENT_FIELDS = ['word_timing', 'align_text'] as const;
/** What the service adds to the words, in any mode. */
export const TRANSCRIPT_EXTRA_FIELDS = [
  'chapters',
  'filter_profanity',
  'disfluencies',
  'redact_pii',
  'redact_pii_types',
  'redacted_audio',
  'translate_to',
  'summarize',
] as const;
/** The request fields of live streams (an HLS playlist link, or a videosite video on air). */
export const LIVE_FIELDS = ['max_duration_s'] as const;
/** The options the agents' `transcribe` tool takes as they are, each with the request's own schema and description. */
export const JOB_OPTION_FIELDS = [...RECOGNITION_FIELDS, ...ALIGNMENT_FIELDS, ...TRANSCRIPT_EXTRA_FIELDS, ...LIVE_FIELDS] as const;

/** `speakers_expected`: 1–10 (also the agents' `transcribe` tool). */
export const SpeakersExpected = z.number().int().min(1).max(MAX_SPEAKERS_EXPECTED);

export const Bcp47Tag = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag such as en or pt-BR')
  .max(35)
  .openapi({ example: 'en' });

export const MetadataSchema = z
  .record(z.string().min(1).max(64, 'keys are at most 64 characters'), z.string().max(256, 'values are at most 256 characters'))
  .refine((m) => Object.keys(m).length <= 10, { message: 'at most 10 metadata values' })
  .openapi('Metadata', {
    maxProperties: 10,
    ...({ propertyNames: { minLength: 1, maxLength: 64 } } as object),
    description: 'At most 10 string values; keys up to 64 characters, values up to 256. Echoed in webhook events; no effect on reuse.',
  });

export const JobSourceRequest = z
  .strictObject({
    url: z
      .string()
      .optional()
      .openapi({ description: 'https link, at most 2048 characters (422 INVALID_URL otherwise).', maxLength: 2048, format: 'uri' }),
    upload_id: Uuid.optional().openapi({ description: 'A completed upload. Always AI transcription.' }),
  })
  .refine((s) => (s.url === undefined) !== (s.upload_id === undefined), { message: 'give exactly one of source.url and source.upload_id' })
  .openapi('JobSourceRequest', {
    description: 'Exactly one of `url` and `upload_id`.',
    oneOf: [{ required: ['url'] }, { required: ['upload_id'] }],
  });

export const JobRequestSchema = z
  .strictObject({
    source: JobSourceRequest,
    mode: z.enum(MODES),
    caption_languages: z.array(Bcp47Tag).max(5, 'at most 5 caption languages').optional(),
    caption_preference: z.enum(CAPTION_PREFERENCES).optional(),
    language: Bcp47Tag.optional().openapi({ description: 'Spoken-language hint for AI transcription. Default: automatic detection.' }),
    max_credits: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .openapi({ description: 'Spending cap for AI transcription and word timing. Default: enough for two hours (240 credits).' }),
    profile: z
      .enum(RECOGNITION_PROFILES)
      .optional()
      .describe(
        'AI transcription: `standard` (beam search, the default) or `fast` (beam search of 3, no fallback: quicker, a little less accurate; GET /v1/capabilities `recognition_profile_measurements` gives both measured). Same price.',
      ),
    vocabulary: z
      .array(
        z
          .string()
          .trim()
          .min(1, 'vocabulary terms are not empty')
          .max(MAX_VOCABULARY_TERM_CHARS, `vocabulary terms are at most ${MAX_VOCABULARY_TERM_CHARS} characters`)
          // The control characters (Unicode's Cc) as code point ranges, not \p{Cc}: read alike by every regex dialect
          // a client may validate the document's and the agent tool's pattern with (Python's re has no \p{…}).
          .regex(/^[^\u0000-\u001F\u007F-\u009F]*$/, 'vocabulary terms have no control characters'),
      )
      .max(MAX_VOCABULARY_TERMS, `at most ${MAX_VOCABULARY_TERMS} vocabulary terms`)
      .optional()
      .describe(
        'AI transcription: names, jargon and spellings the recognizer should prefer (at most 100 terms of at most 50 characters; duplicates count once). A term that is not said is not written. Free of charge.',
      ),
    speaker_labels: z
      .boolean()
      .optional()
      .describe(
        'AI transcription: label who speaks when. The transcript gets `speakers` and every segment and word a `speaker` ("A", "B", … in order of first appearance). Default false. Free of charge.',
      ),
    speakers_expected: SpeakersExpected.optional().describe(
      'With `speaker_labels`: how many speakers there are, when known (1–10). Default: found from the audio.',
    ),
    word_timing: z
      .boolean()
      .optional()
      .describe(
        'Caption transcripts (`captions_only`, `auto` when captions are found): also fetch the audio and align the caption text to it, so the transcript has `words` with times (`timing_granularity: "word"`) and every segment a `match` score (0–1: the share of the cue\'s words the recognizer hears near it; below 0.3 the cue is probably not what is spoken, e.g. a track of another language or video). Costs the AI transcription price of the audio on top of the caption credit. Default false: no audio is fetched. Captions in a language the recognizer does not know are returned without word times, at the caption price.',
      ),
    align_text: z
      .string()
      .refine((t) => t.trim().length > 0, 'align_text is not empty')
      .refine((t) => Array.from(t).length <= MAX_ALIGN_TEXT_CHARS, `align_text is at most ${MAX_ALIGN_TEXT_CHARS} characters`)
      .refine(
        (t) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(t),
        'align_text has no control characters but tab and line breaks',
      )
      .optional()
      .openapi({ maxLength: MAX_ALIGN_TEXT_CHARS })
      .describe(
        "Mode `transcribe`: the words said in the audio, known already (a script, a manuscript, your own transcript). Instead of recognising speech the service gives this text word times: the transcript's `text` is this text, its `segments` are its sentences (cut at line breaks and sentence ends, and where a sentence runs longer than 20 s) with a `match` score each, and `words` carry times. At most 200,000 characters, and at most as much text as the audio can say: 30 tokens of the recognition model's tokenizer per second of audio plus 400 (an English word is about 1.3 tokens, a Japanese character 1 to 2, an emoji 2 to 4; speech runs at up to 10 a second). A longer text is refused once the audio's duration is known: the job fails with 422 `INVALID_REQUEST` naming `align_text`, not retryable, nothing charged. Priced as AI transcription. Not with `profile`, `vocabulary` or `speaker_labels` (nothing is recognised); `language` names the text's language (default: detected from the audio).",
      ),
    chapters: z
      .boolean()
      .optional()
      .describe(
        'Any mode: the transcript gets `chapters` (`start`, `end`, `title`, `origin`) and the `chapters` export (a WebVTT chapters track). A videosite video that has chapters keeps its own (`origin: "platform"`); any other transcript of 3 minutes or more gets chapters computed from what is said (`origin: "computed"`: topic boundaries from what the sentences mean (embeddings) and the words each chapter uses, at least 60 s apart, each titled by its most central passage); a shorter one gets none (`[]`). Default false (`chapters: null`). Free of charge. Refused with 422 `CAPABILITY_UNAVAILABLE` naming `chapters` where the deployment has no embedding model.',
      ),
    filter_profanity: z
      .boolean()
      .optional()
      .describe(
        'Any mode: profanity in the transcript is masked, its first letter kept ("f***"), in the text, every segment, every word (times kept) and every export; the unmasked words are never stored. Word lists per language from naughty-words (the List of Dirty, Naughty, Obscene and Otherwise Bad Words; GET /v1/capabilities `cleanup.profanity_languages`), matched as whole words and phrases, inside the text for ja, ko and zh (there entries of two characters or more). The lists are broad: they also mask some words that are not profane in every context. Default false. Free of charge.',
      ),
    disfluencies: z
      .boolean()
      .optional()
      .describe(
        'Any mode: false drops hesitation fillers ("um", "uh", "euh", "äh", "えーと"; per language, `cleanup.disfluency_languages` of GET /v1/capabilities) and a word said twice in a row ("I I think") from the text, the segments, the words (each kept word keeps its times) and every export. Default true: the words as transcribed. Free of charge.',
      ),
    redact_pii: z
      .boolean()
      .optional()
      .describe(
        'Any mode: personal data in the transcript is replaced by its kind (`[EMAIL]`, `[PHONE]`, `[CARD]`, `[IBAN]`) in the text, every segment, every word (a redacted run of words becomes one word spanning their times) and every export, search and translation included; the unredacted text is never stored. Found by rules and checksums in every language: e-mail addresses (written, or spoken as "john at example dot com"), phone numbers (7 to 15 digits, written or read out one by one), payment card numbers (13 to 19 digits passing the Luhn check) and IBANs (mod-97 check); spoken forms in the languages of GET /v1/capabilities `redaction.spoken_form_languages`. Default false. Free of charge.',
      ),
    redact_pii_types: z
      .array(z.enum(PII_TYPES))
      .min(1)
      .optional()
      .describe(
        'With `redact_pii`: which kinds to redact. Default: `email`, `phone`, `card` and `iban`, found in every language. `person` (`[PERSON]`: names of people), `address` (`[ADDRESS]`: a street address with its number, city or postcode; a city or a street named alone is a place, not an address) and `id` (`[ID]`: passport, identity card, tax and social security numbers, driving licences, written or read out) are found by a personal-data model in the languages `redaction.languages_by_type` of GET /v1/capabilities lists (en, es, fr, de, it for names; those and pt for addresses and IDs). A kind asked with a `language` it does not cover is refused with 422 `CAPABILITY_UNAVAILABLE` naming `redact_pii_types`, and a transcript found to be in such a language fails with that error before anything is stored (nothing charged). A deployment without the model redacts names in English only and refuses `address` and `id` (`redaction.needs_model`).',
      ),
    redacted_audio: z
      .boolean()
      .optional()
      .describe(
        "With `redact_pii`, mode `transcribe`, for an upload or a direct link: the transcript also gets `redacted_audio`, a copy of the audio with a 1 kHz tone over every redacted word (by the word times of its placeholder, 80 ms either side), as Ogg Opus at 16 kHz mono (the audio as the recognizer heard it), read with GET /v1/transcripts/{id}/redacted-audio. Without `redact_pii` or in another mode: 422 `INVALID_REQUEST` naming `redacted_audio`; for a video platform's link (the service keeps no copy of its media): 422 `CAPABILITY_UNAVAILABLE`. Kept and deleted with the transcript. Default false. Free of charge.",
      ),
    translate_to: Bcp47Tag.optional().describe(
      'Any mode: the transcript also in this language (BCP 47, e.g. `pt` or `pt-BR`): `translation` holds a second text for every segment (`language`, `origin`, `segments`), and the txt, srt and vtt exports give it with `translated=true`. A videosite caption track the platform translates keeps the platform\'s own translation (`origin: "platform"`); any other transcript is translated by the machine translation model where it has the pair (`origin: "machine"`: English↔Portuguese), else by the operator\'s translation provider where one is configured (`origin: "provider"`). GET /v1/capabilities `translation` lists the pairs and where each comes from. A target that no route reaches from the transcript\'s language (or from any language, when `language` is not given) is refused with 422 `CAPABILITY_UNAVAILABLE` naming `translate_to` before anything is charged; a target in the language of `language` with 422 `INVALID_REQUEST`. When the spoken language is only known after recognition and no route reaches the target from it, the job fails with 422 `TRANSLATION_UNAVAILABLE` (nothing charged). Default: no translation (`translation: null`). Free of charge.',
    ),
    summarize: z
      .boolean()
      .optional()
      .describe(
        "Any mode: the transcript gets `summary`: a few sentences (`text`), `key_points`, and with `chapters: true` a sentence for each chapter, written in the transcript's language by a language model (the operator's OpenAI-compatible endpoint, or the embedded Qwen2.5-Coder-1.5B-Instruct on CPU). A summary says only what the transcript says: a sentence, point or chapter sentence that names a name or a number the transcript does not hold is dropped (a chapter's becomes null). Written from the stored transcript, so `redact_pii` and the clean-up options apply to what the model reads. About a minute for a 10-minute talk on the embedded model; transcripts longer than about 900 words are read by chapter (or by tenth), each from its start. Default false (`summary: null`). Free of charge. Refused with 422 `CAPABILITY_UNAVAILABLE` naming `summarize` where the deployment has no language model.",
      ),
    max_duration_s: z
      .number()
      .int()
      .min(MIN_LIVE_DURATION_S)
      .max(MAX_LIVE_DURATION_S)
      .optional()
      .describe(
        `A live stream (an HLS playlist link: a path ending in .m3u8, live or event): the job follows the playlist as it airs and ends when the playlist ends (EXT-X-ENDLIST), when it is cancelled, or after this many seconds of media, whichever comes first. ${MIN_LIVE_DURATION_S} to ${MAX_LIVE_DURATION_S}; default ${DEFAULT_LIVE_DURATION_S} (two hours, what the default max_credits pays for). A videosite link in mode transcribe (or auto without captions) whose video is on air when the job starts is followed the same way, through the platform's own HLS manifest, up to this many seconds (default the same). For any other source: 422 INVALID_REQUEST naming max_duration_s.`,
      ),
    webhook_endpoint_id: Uuid.optional().openapi({
      description:
        "An enabled webhook endpoint of this workspace; it receives `job.succeeded` or `job.failed` when the job finishes, also when a retained transcript answers the request at once (200, `billing.kind: cached`). A live job (an HLS playlist) also sends `job.live_started` once, when the first piece of its stream goes to the recognizer (`result_id` null); the job's end is its `job.succeeded` or `job.failed`.",
    }),
    metadata: MetadataSchema.optional(),
  })
  .superRefine((req, ctx) => {
    if (req.word_timing !== undefined && req.mode === 'transcribe')
      ctx.addIssue({
        code: 'custom',
        path: ['word_timing'],
        message: 'applies to caption transcripts: mode captions_only or auto (AI transcription always has word times)',
      });
    if (req.align_text !== undefined) {
      if (req.mode !== 'transcribe') ctx.addIssue({ code: 'custom', path: ['align_text'], message: 'needs mode transcribe' });
      for (const field of RECOGNITION_FIELDS) {
        if (req[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'not with align_text: the text is given, nothing is recognised' });
      }
    }
    if (req.mode === 'captions_only') {
      for (const field of RECOGNITION_FIELDS) {
        if (req[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'applies to AI transcription only: mode transcribe or auto' });
      }
    }
    if (req.translate_to !== undefined && req.language !== undefined && primaryLanguage(req.translate_to) === primaryLanguage(req.language))
      ctx.addIssue({ code: 'custom', path: ['translate_to'], message: 'is the language of the transcript already' });
    if (req.redact_pii_types !== undefined && req.redact_pii !== true)
      ctx.addIssue({ code: 'custom', path: ['redact_pii_types'], message: 'needs redact_pii: true' });
    if (req.redacted_audio === true && req.redact_pii !== true)
      ctx.addIssue({ code: 'custom', path: ['redacted_audio'], message: 'needs redact_pii: true' });
    if (req.redacted_audio === true && req.mode !== 'transcribe')
      ctx.addIssue({ code: 'custom', path: ['redacted_audio'], message: 'needs mode transcribe: the audio of an upload or a direct link' });
    if (req.speakers_expected !== undefined && req.speaker_labels !== true)
      ctx.addIssue({ code: 'custom', path: ['speakers_expected'], message: 'needs speaker_labels: true' });
  })
  .openapi('JobRequest');
export type JobRequest = z.infer<typeof JobRequestSchema>;

/** The request's option fields (JOB_OPTION_FIELDS) as a shape of their own, for the agents' `transcribe` tool. */
export const jobOptionShape = Object.fromEntries(JOB_OPTION_FIELDS.map((field) => [field, JobRequestSchema.shape[field]])) as {
  [F in (typeof JOB_OPTION_FIELDS)[number]]: (typeof JobRequestSchema.shape)[F];
};

/** The spec (core/job-spec.ts) as the OpenAPI document names it: the job's `options`. */
export const JobSpecSchema = JobSpecShape.openapi('JobOptions', {
  description: 'The options the job was accepted with, every default written out.',
});

/** The request's options as a job's spec: what it gave, the defaults for the rest; vocabulary terms (trimmed by the schema) kept once each, in the order given. */
export function jobSpecOf(req: JobRequest): JobSpec {
  const given = Object.fromEntries(
    Object.keys(JobSpecSchema.shape)
      .filter((field) => field in req && (req as Record<string, unknown>)[field] !== undefined)
      .map((field) => [field, (req as Record<string, unknown>)[field]]),
  );
  return JobSpecSchema.parse({
    ...JOB_SPEC_DEFAULTS,
    ...given,
    vocabulary: [...new Set(req.vocabulary ?? [])],
    align_text_chars: req.align_text === undefined ? null : Array.from(req.align_text).length,
    // Written out for a live stream only: no other job has a duration to stop at.
    max_duration_s:
      req.max_duration_s ?? (req.source.url !== undefined && isHlsPlaylistLink(req.source.url) ? DEFAULT_LIVE_DURATION_S : null),
    translate_to: req.translate_to === undefined ? null : canonicalTag(req.translate_to),
    // In one order, so the same kinds are the same spec (and reuse key) however they were listed.
    redact_pii_types: req.redact_pii
      ? PII_TYPES.filter((t) => (req.redact_pii_types ?? (RULE_PII_TYPES as readonly PiiType[])).includes(t))
      : [],
  });
}

export const JOB_STATUSES = ['queued', 'processing', 'awaiting_provider', 'succeeded', 'failed', 'cancelled'] as const;
export const STAGES = JOB_STAGES;
export const PLATFORMS = ['videosite', 'shortvideo', 'photosocial', 'upload', 'direct', 'hls'] as const;

export const JobProgressSchema = z
  .object({
    transcribed_seconds: z.number().nonnegative().openapi({ description: 'Media seconds from the start whose segments are published.' }),
    total_seconds: z.number().nonnegative().openapi({ description: 'The measured length of the media.' }),
  })
  .openapi('JobProgress');

export const JobSchema = z
  .object({
    id: Uuid,
    status: z.enum(JOB_STATUSES),
    stage: z.enum(STAGES).nullable(),
    result_id: Uuid.nullable(),
    error: ErrorObjectSchema.nullable(),
    billing: z.object({
      credits_reserved: z.number().int(),
      credits_charged: z.number().int(),
      kind: z.enum(['captions', 'ai_transcription', 'cached']),
    }),
    source: z.object({
      platform: z.enum(PLATFORMS).openapi({
        description:
          '`upload` for an uploaded file; `direct` for any other https link to a media file; `hls` for a link to an HLS playlist (a path ending in .m3u8): a live job, followed as it airs (`max_duration_s`).',
      }),
      media_id: z.string(),
      canonical_url: z.string().nullable(),
      title: z.string().nullable(),
      upload_id: Uuid.nullable(),
    }),
    options: JobSpecSchema,
    metadata: z.record(z.string(), z.string()),
    batch_id: Uuid.nullable(),
    progress: JobProgressSchema.nullable().openapi({
      description:
        'How much of the media is transcribed, from its start: null until the media is measured (captions jobs never measure it). A running AI job advances as each piece of the recording is recognised, earliest first; its segments so far are at `GET /v1/jobs/{id}/segments` and `/events`. A succeeded job has all of it. A running live job (`source.platform` `hls`) counts the media heard so far as its total.',
    }),
    retry: z.object({ attempt: z.number().int(), last_error: ErrorObjectSchema }).nullable().openapi({
      description:
        'Set while the job is being retried automatically after a retryable error: the status stays `processing` and this shows the attempt and the error being retried. Null otherwise.',
    }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .openapi('Job');
export type JobView = z.infer<typeof JobSchema>;

export const JobListSchema = z
  .object({
    jobs: z.array(JobSchema),
    next_cursor: z.string().nullable().openapi({ description: 'Opaque, tamper-proof; null on the last page.' }),
  })
  .openapi('JobList', { description: 'A page of jobs, newest first by created_at and id. The array is named `jobs`.' });

export const JobListQuery = z
  .strictObject({
    cursor: z.string().max(512).optional(),
    limit: queryInteger(z.number().int().min(1).max(100)).default(20),
    platform: z.enum(PLATFORMS).optional().openapi({ description: 'Given together with `source_id` or not at all.' }),
    source_id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .openapi({ description: 'The `source.media_id` of a job; given together with `platform` or not at all.' }),
  })
  .refine((q) => (q.platform === undefined) === (q.source_id === undefined), {
    message: 'platform and source_id must be given together or not at all',
    path: ['platform'],
  });

export const JobIdParams = z.strictObject({ id: Uuid });
export const WaitQuery = z.strictObject({
  wait: queryInteger(z.number().int().min(0).max(25))
    .default(0)
    .openapi({ description: 'Hold the request up to this many seconds; returns as soon as the job is final.' }),
});
export const RetryRequestSchema = z
  .strictObject({ max_credits: z.number().int().min(1).max(1_000_000).optional() })
  .openapi('RetryRequest');

export const PartialSegmentSchema = z
  .object({
    seq: z.number().int().min(1).openapi({ description: "Position in the job's growing transcript: 1, 2, … in time order, never reused." }),
    start: z.number(),
    end: z.number(),
    text: z.string().openapi({ description: 'Cleaned and redacted as the job asked, like the transcript.' }),
    speaker: z.string().nullable().openapi({
      description:
        'Always null while the job runs: voices are clustered over the whole recording when it ends, and the transcript carries the speakers.',
    }),
    language: z.string().nullable().openapi({
      description:
        "The language the segment's piece was heard in (the job's language when given). Per-region languages settle in the transcript.",
    }),
  })
  .openapi('PartialSegment', { description: 'A segment of a running AI job, published before the job ends.' });

export const JobSegmentsSchema = z
  .object({
    job_id: Uuid,
    status: z.enum(JOB_STATUSES),
    result_id: Uuid.nullable().openapi({ description: 'The transcript, once the job succeeded: the settled answer.' }),
    progress: JobProgressSchema.nullable(),
    segments: z.array(PartialSegmentSchema),
    next_after: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'The `after` of the next read: the last seq answered, or the `after` given.' }),
  })
  .openapi('JobSegments', {
    description:
      'The segments of a running job after `after`, at most 500 per answer, earliest first. Once the job is final the list is empty: the transcript (`result_id`) holds every segment with speakers and per-region languages settled, exactly as it would without this view.',
  });

const SeqQuery = queryInteger(z.number().int().min(0).max(2_147_483_647));

export const JobSegmentsQuery = z.strictObject({
  after: SeqQuery.default(0).openapi({ description: 'Answer segments with a seq above this (0: from the first).' }),
  wait: queryInteger(z.number().int().min(0).max(25)).default(0).openapi({
    description:
      'With no segment after `after` yet, hold the request up to this many seconds; it returns as soon as the next piece is published or the job is final.',
  }),
});

export const JobEventsQuery = z.strictObject({
  after: SeqQuery.optional().openapi({
    description: 'Send segments with a seq above this; the `Last-Event-ID` header of a reconnecting EventSource takes precedence.',
  }),
});
