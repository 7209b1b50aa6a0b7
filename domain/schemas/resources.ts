import { MAX_BATCH_ITEMS } from '../../core/plans';
import type { Segment, Word } from '../../core/timing';
import { z } from './zod';
import { DateTime, ErrorObjectSchema, queryInteger, Uuid } from './common';
import { JobRequestSchema, MetadataSchema, PLATFORMS, RECOGNITION_PROFILES } from './jobs';
import { languageQualitySummary } from '../../integrations/recognizers/quality';
import { CHAPTER_ORIGINS } from '../transcripts/chapters';
import { TRANSLATION_ORIGINS } from '../transcripts/translation';
import { EXPORT_FORMATS } from '../transcripts/export';
import { WhisperRecognizer } from '../../integrations/recognizers/whisper';

// Transcripts, batches, uploads, discoveries and webhook endpoints.

const SpeakerId = z.string().nullable().openapi({
  description: 'Who speaks: "A", "B", … in order of first appearance when the job asked for `speaker_labels`; null otherwise.',
  example: 'A',
});
export const SegmentSchema = z
  .object({
    start: z.number(),
    end: z.number(),
    text: z.string(),
    speaker: SpeakerId,
    language: z.string().nullable().openapi({
      description: 'The language spoken in the segment (AI transcription detects it per region of speech; captions: the track language).',
    }),
    match: z.number().min(0).max(1).nullable().openapi({
      description:
        'Aligned transcripts (`word_timing`, `align_text`): whether the audio says this text, 0–1: the share of its words the recognizer hears, in order, within 2 s of the segment. Below `alignment.match_threshold` (0.3) the audio probably does not say it: a caption track of another language or another video, or text that was not spoken. Null for transcripts that were not aligned, and for a segment with no words.',
    }),
  })
  .openapi('Segment', { description: 'Never straddles a change of speaker or of language.' }) satisfies z.ZodType<Segment>;
export const WordSchema = z
  .object({ start: z.number(), end: z.number(), text: z.string(), confidence: z.number().min(0).max(1), speaker: SpeakerId })
  .openapi('Word') satisfies z.ZodType<Word>;
export const SpeakerSchema = z
  .object({
    id: z.string().openapi({ example: 'A' }),
    words: z.number().int().nonnegative(),
    seconds: z.number().nonnegative().openapi({ description: 'Seconds of speech attributed to the speaker (their segments).' }),
  })
  .openapi('Speaker');
export const LanguageSecondsSchema = z.object({ language: z.string(), seconds: z.number().nonnegative() }).openapi('LanguageSeconds');

export const ChapterSchema = z
  .object({
    start: z.number().nonnegative().openapi({ description: 'Seconds from the start of the media.' }),
    end: z.number().nonnegative(),
    title: z.string(),
    origin: z.enum(CHAPTER_ORIGINS).openapi({
      description: "`platform`: the video's own chapters, as the platform lists them. `computed`: found by the service from what is said.",
    }),
  })
  .openapi('Chapter');

export const TranscriptSchema = z
  .object({
    id: Uuid,
    source: z.object({
      platform: z.enum(PLATFORMS),
      media_id: z.string(),
      canonical_url: z.string().nullable(),
      title: z.string().nullable(),
    }),
    source_origin: z.enum(['creator_captions', 'platform_captions', 'speech_recognition', 'provided_text']).openapi({
      description: "`provided_text`: the job's own `align_text`, given word times.",
    }),
    language: z.string().nullable(),
    text: z.string(),
    segments: z.array(SegmentSchema),
    words: z.array(WordSchema).nullable(),
    timing_granularity: z.enum(['word', 'segment', 'none']),
    duration_seconds: z.number().nullable(),
    speakers: z.array(SpeakerSchema).nullable().openapi({
      description: 'With `speaker_labels`: every speaker found, in order of first appearance. Null when speaker labels were not asked for.',
    }),
    caption_language_check: z
      .object({
        label: z.string().nullable().openapi({ description: "The platform's language label of the caption track." }),
        detected: z.string().nullable().openapi({ description: 'The language of the text, by a language identifier; null when unsure.' }),
        matches: z.boolean().nullable().openapi({
          description: 'false: the text is not in the labelled language (`language` then gives the detected one); null: could not tell.',
        }),
      })
      .nullable()
      .openapi({
        description:
          "Caption transcripts: the platform's label checked against the text (a track uploaded under the wrong language, or belonging to another video, shows here). Null for AI transcription.",
      }),
    languages: z.array(LanguageSecondsSchema).openapi({
      description:
        'Every language spoken with its seconds, longest first; `language` is the first. AI transcription without a `language` hint detects the language of each region of speech and writes each in its own language (never translated).',
    }),
    recognition: z
      .object({
        model: z.string(),
        profile: z.enum(RECOGNITION_PROFILES),
        quality_status: z.enum(['validated_language', 'provider_supported', 'experimental_language']).openapi({
          description: `validated_language: quality measured on real speech of the language; provider_supported: the model lists the language, quality not measured or not good enough to validate; experimental_language: quality may vary. Measured table: ${languageQualitySummary(new WhisperRecognizer())}`,
        }),
        language_probability: z.number().min(0).max(1).nullable().optional().openapi({
          description: 'How sure the recognizer was of the language it detected; null when the job asked for a language.',
        }),
      })
      .nullable(),
    alignment: z
      .object({
        method: z.enum(['word_timing', 'align_text']),
        model: z.string(),
        match_threshold: z.number().openapi({ description: 'Segments whose `match` is below this are probably not what the audio says.' }),
        segments_below_threshold: z.number().int().nonnegative(),
      })
      .nullable()
      .openapi({
        description:
          'Aligned transcripts: a caption track given word times (`word_timing`) or a given text (`align_text`), by forced alignment with the recognition model; how many segments the audio does not seem to say. Null otherwise.',
      }),
    chapters: z.array(ChapterSchema).nullable().openapi({
      description:
        "With `chapters: true`: the chapters in order, each ending where the next starts. The platform's own where the video has them (they may start after 0, as the platform lists them), else computed for transcripts of 3 minutes or more ([] for shorter ones). Null when chapters were not asked for. Also the `chapters` export (WebVTT).",
    }),
    translation: z
      .object({
        language: z.string().openapi({ description: 'The language asked for with `translate_to` (canonical BCP 47).' }),
        origin: z.enum(TRANSLATION_ORIGINS).openapi({
          description:
            "`platform`: the video platform's own translation of its caption track. `machine`: the service's machine translation model. `provider`: the operator's translation provider.",
        }),
        segments: z
          .array(z.object({ start: z.number(), end: z.number(), text: z.string() }))
          .openapi({ description: "One for every segment, in order, with the segment's times: its text in `language`." }),
      })
      .nullable()
      .openapi('TranscriptTranslation', {
        description:
          'With `translate_to`: the transcript in that language, a text for every segment. Null when no translation was asked for. Also the txt, srt and vtt exports with `translated=true`.',
      }),
    summary: z
      .object({
        text: z.string().openapi({ description: "Two or three sentences, in the transcript's language." }),
        key_points: z.array(z.string()).openapi({ description: 'Three to five short points, in the order the model gave them.' }),
        chapters: z
          .array(
            z.object({
              start: z.number(),
              end: z.number(),
              title: z.string(),
              summary: z
                .string()
                .nullable()
                .openapi({ description: "A sentence on the chapter; null when the model's named what the transcript does not." }),
            }),
          )
          .openapi({ description: "With `chapters: true`: one for each of the transcript's chapters, in order; [] otherwise." }),
        model: z.string().openapi({ description: "The language model that wrote it (the deployment's LLM_MODEL)." }),
      })
      .nullable()
      .openapi('TranscriptSummary', {
        description:
          'With `summarize: true`: what the transcript says, in brief. Every sentence and point is checked against the transcript: one that names a name or a number the transcript does not hold is left out. Null when no summary was asked for.',
      }),
    redacted_audio: z
      .object({
        content_type: z.string().openapi({ description: '`audio/ogg` (Opus, 16 kHz mono).' }),
        bytes: z.number().int().nonnegative(),
        tone_spans: z.number().int().nonnegative().openapi({ description: 'How many stretches of audio the tone covers.' }),
      })
      .nullable()
      .openapi('TranscriptRedactedAudio', {
        description:
          'With `redacted_audio`: the audio with a tone over every redacted word, read with GET /v1/transcripts/{id}/redacted-audio. Null when not asked for.',
      }),
    extraction_version: z.string(),
    created_at: DateTime,
    expires_at: DateTime.openapi({ description: 'End of the retention window; the transcript is purged then.' }),
  })
  .openapi('Transcript');

export const ExportQuery = z
  .strictObject({
    format: z.enum(EXPORT_FORMATS).openapi({
      description: '`chapters`: the chapters as a WebVTT chapters track (422 `CHAPTERS_UNAVAILABLE` when the job did not ask for them).',
    }),
    max_line_length: queryInteger(z.number().int().min(20).max(80))
      .optional()
      .openapi({ description: 'srt and vtt: characters per caption line, 20–80 (wide characters count 2). Default 42.' }),
    max_lines: queryInteger(z.number().int().min(1).max(3))
      .optional()
      .openapi({ description: 'srt and vtt: lines per caption, 1–3. Default 2.' }),
    translated: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
      .openapi({
        description:
          "txt, srt and vtt: `true` gives the transcript's translation (`translate_to`), timed by its segments, the file named with its language (422 `TRANSLATION_UNAVAILABLE` naming `translated` when the job asked for none). Default false.",
      }),
  })
  .superRefine((q, ctx) => {
    if (q.translated !== undefined && (q.format === 'json' || q.format === 'chapters'))
      ctx.addIssue({
        code: 'custom',
        path: ['translated'],
        message: 'applies to the txt, srt and vtt formats (the json export holds the translation)',
      });
    if (q.format === 'srt' || q.format === 'vtt') return;
    for (const field of ['max_line_length', 'max_lines'] as const)
      if (q[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'applies to the srt and vtt formats only' });
  });
export const DeletionSchema = z
  .object({ id: Uuid, status: z.literal('deletion_scheduled'), purge_after: DateTime })
  .openapi('TranscriptDeletion', {
    description: 'The transcript is hidden at once and its reuse entry dropped; the stored text is purged by purge_after.',
  });

export const BATCH_STATUSES = ['queued', 'processing', 'succeeded', 'partial_success', 'failed', 'cancelled'] as const;
export const BatchRequestSchema = z
  .strictObject({
    items: z.array(JobRequestSchema).min(1, 'at least one item').max(MAX_BATCH_ITEMS, `at most ${MAX_BATCH_ITEMS} items`),
    webhook_endpoint_id: Uuid.optional(),
    metadata: MetadataSchema.optional(),
  })
  .openapi('BatchRequest');

export const BatchSchema = z
  .object({
    id: Uuid,
    status: z.enum(BATCH_STATUSES),
    total_items: z.number().int(),
    succeeded_items: z.number().int(),
    failed_items: z.number().int(),
    cancelled_items: z.number().int(),
    items: z.array(z.object({ job_id: Uuid, item_index: z.number().int(), status: z.string() })),
    metadata: z.record(z.string(), z.string()),
    created_at: DateTime,
  })
  .openapi('Batch', {
    description:
      'Status rule: `queued` while no item has started; `processing` while any item is not final; once all are final: `succeeded` if all succeeded, `failed` if none succeeded and at least one failed, `cancelled` if all were cancelled, otherwise `partial_success`.',
  });

export const UPLOAD_CONTENT_TYPES = [
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mp4',
  'audio/x-m4a',
  'audio/m4a',
  'audio/ogg',
  'audio/aac',
  'audio/x-aac',
  'video/mp4',
  'video/webm',
  'audio/webm',
] as const;

export const UploadRequestSchema = z
  .strictObject({
    filename: z.string().min(1).max(255, 'at most 255 characters'),
    content_type: z.enum(UPLOAD_CONTENT_TYPES, { message: 'must be an mp3, wav, m4a, ogg, aac, mp4 or webm media type' }),
    bytes: z.number().int().min(1).max(262_144_000, 'at most 262144000 bytes (250 MB)'),
  })
  .openapi('UploadRequest');

export const UploadSchema = z
  .object({
    id: Uuid,
    status: z.enum(['pending', 'verifying', 'ready', 'failed', 'expired']),
    filename: z.string(),
    content_type: z.string(),
    bytes: z.number().int(),
    signed_upload_url: z.string().nullable(),
    expires_at: DateTime,
    duration_ms: z.number().int().nullable(),
    error: ErrorObjectSchema.nullable(),
    created_at: DateTime,
    completed_at: DateTime.nullable(),
  })
  .openapi('Upload', {
    description:
      '`pending` until completed; `verifying` while a worker checks the file after completion; `ready` once verified (usable as a job source); `failed` when verification failed; `expired` when the 24-hour slot lapsed unused.',
  });

export const WebhookEndpointRequestSchema = z
  .strictObject({ url: z.string().max(2048).openapi({ format: 'uri' }), description: z.string().max(500).optional() })
  .openapi('WebhookEndpointRequest');
export const WebhookEndpointSchema = z
  .object({
    id: Uuid,
    url: z.string(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    created_at: DateTime,
    disabled_at: DateTime.nullable(),
  })
  .openapi('WebhookEndpoint');
export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ description: 'Signing secret, returned exactly once.' }),
}).openapi('WebhookEndpointCreated');
export const WebhookEndpointListSchema = z.object({ endpoints: z.array(WebhookEndpointSchema) }).openapi('WebhookEndpointList');

export const DeliveryQuery = z.strictObject({ limit: queryInteger(z.number().int().min(1).max(100)).default(20) });
export const WebhookDeliverySchema = z
  .object({
    id: Uuid,
    event_id: Uuid,
    event_type: z.string(),
    endpoint_id: Uuid,
    url: z.string().openapi({ description: 'Redacted: scheme and host only.' }),
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    succeeded: z.boolean(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    created_at: DateTime,
  })
  .openapi('WebhookDelivery');
