import { SCOPES } from '../accounts/principal';
import { PLAN_IDS } from '../../core/plans';
import { z } from './zod';
import { DateTime, Uuid } from './common';
import { RECOGNITION_PROFILES } from './jobs';
import { EXPORT_FORMATS } from '../transcripts/export';
import { CHAPTER_ORIGINS } from '../transcripts/chapters';
import { PII_TYPES } from '../transcripts/redaction';
import { languageQualitySummary } from '../../integrations/recognizers/quality';
import { WhisperRecognizer } from '../../integrations/recognizers/whisper';

export const UsageSchema = z
  .object({
    plan: z.enum(PLAN_IDS),
    period_end: DateTime,
    credits_remaining: z.number().int().openapi({ description: 'Already excludes credits_reserved.' }),
    credits_total: z.number().int(),
    credits_reserved: z.number().int(),
    prepaid_credits: z.number().int(),
    transcribe_credits_per_minute: z.literal(2),
    minimum_billable_seconds: z.literal(60),
    subscription: z
      .object({
        status: z.string(),
        interval: z.enum(['monthly', 'yearly']),
        cancel_at_period_end: z.boolean(),
        current_period_end: DateTime,
      })
      .nullable(),
  })
  .openapi('Usage');

const SourceCapability = z.object({
  enabled: z.boolean(),
  captions_only: z.boolean(),
  auto: z.boolean(),
  transcribe: z.boolean(),
  social_acquisition_fee: z.boolean(),
});

export const CapabilitiesSchema = z
  .object({
    videosite: SourceCapability,
    shortvideo: SourceCapability,
    photosocial: SourceCapability.extend({ native_captions: z.string() }),
    upload: SourceCapability,
    direct: SourceCapability,
    max_duration_ms: z.number().int(),
    max_media_bytes: z.number().int(),
    export_formats: z.array(z.enum(EXPORT_FORMATS)),
    chapters: z
      .object({
        available: z.boolean().openapi({ description: 'Whether a job may ask for `chapters: true` here.' }),
        origins: z.array(z.enum(CHAPTER_ORIGINS)),
        computed_min_duration_seconds: z
          .number()
          .int()
          .openapi({ description: 'Shorter transcripts get no computed chapters (an empty list).' }),
        min_chapter_seconds: z.number().int().openapi({ description: 'No computed chapter is shorter.' }),
        model: z.string().nullable().openapi({ description: 'The sentence embedding model computed chapters come from.' }),
      })
      .openapi({
        description: "Chapters (the job request field `chapters`): a video's own, or computed from what is said. Free of charge.",
      }),
    translation: z
      .object({
        platform_languages: z.literal('videosite caption tracks').openapi({
          description:
            'Where the platform\'s own translation is used (`origin: "platform"`): a videosite caption track the platform marks translatable, into any language its player lists.',
        }),
        machine_pairs: z
          .array(z.object({ source: z.string(), target: z.string() }))
          .openapi({ description: 'The language pairs the machine translation model translates (`origin: "machine"`).' }),
        machine_model: z.string().nullable().openapi({ description: 'The machine translation model; null where none runs.' }),
        provider: z
          .object({ name: z.string(), targets: z.array(z.string()) })
          .nullable()
          .openapi({
            description:
              'The operator\'s translation provider and the languages it translates into, from any language (`origin: "provider"`); null where none is configured.',
          }),
      })
      .openapi({
        description:
          'Translation (the job request field `translate_to`): the first of the platform, the machine model and the provider that reaches the target. Free of charge.',
      }),
    summaries: z
      .object({
        available: z.boolean().openapi({ description: 'Whether `summarize` is accepted: a language model is configured.' }),
        model: z.string().nullable().openapi({ description: 'The language model that writes summaries; null where none is configured.' }),
        prompt_words: z.number().int().openapi({
          description:
            "The transcript's words the model reads at most; a longer transcript is read by chapter (or by tenth), each from its start.",
        }),
      })
      .openapi({ description: 'Summaries (the job request field `summarize`). Free of charge.' }),
    redaction: z
      .object({
        types: z.array(z.enum(PII_TYPES)).openapi({ description: 'The kinds `redact_pii_types` may name here.' }),
        default_types: z
          .array(z.enum(PII_TYPES))
          .openapi({ description: 'What `redact_pii` redacts when `redact_pii_types` is left out: the kinds found in every language.' }),
        person_languages: z.array(z.string()).openapi({
          description:
            'Languages whose names of people `person` finds (the same as `languages_by_type.person`); a transcript in another language that asked for `person` fails before anything is stored.',
        }),
        languages_by_type: z
          .object({
            person: z.array(z.string()),
            address: z.array(z.string()),
            id: z.array(z.string()),
          })
          .openapi({
            description:
              'The languages each kind found in some languages only is redacted in: names of people, street addresses and ID numbers, by the personal-data model (empty: not redacted here). Asked with a `language` outside its list, or found in a transcript of another language, the kind is refused (422 `CAPABILITY_UNAVAILABLE` naming `redact_pii_types`, nothing stored or charged).',
          }),
        model: z.string().nullable().openapi({
          description:
            'The personal-data model that finds names, addresses and IDs; null where none is installed (names in English only, by rules and a lexicon).',
        }),
        needs_model: z
          .array(z.enum(PII_TYPES))
          .openapi({ description: 'Kinds that need a personal-data model this deployment does not run: refused in `redact_pii_types`.' }),
        spoken_form_languages: z
          .array(z.string())
          .openapi({ description: 'Languages whose spoken forms are found too ("john at example dot com", digits read out one by one).' }),
        placeholders: z.record(z.enum(PII_TYPES), z.string()).openapi({ description: 'What replaces each kind in the transcript.' }),
        redacted_audio_sources: z
          .array(z.enum(['upload', 'direct']))
          .openapi({ description: 'The sources whose audio `redacted_audio` copies with a tone over the redacted words.' }),
      })
      .openapi({ description: 'Redaction of personal data (the job request fields `redact_pii` and `redact_pii_types`). Free of charge.' }),
    cleanup: z
      .object({
        profanity_languages: z.array(z.string()).openapi({ description: 'Languages `filter_profanity` has a word list for.' }),
        disfluency_languages: z
          .array(z.string())
          .openapi({ description: 'Languages whose hesitation fillers `disfluencies: false` drops (repeated words: every language).' }),
      })
      .openapi({ description: 'The clean-up request fields `filter_profanity` and `disfluencies`. Free of charge.' }),
    recognition_profiles: z.array(z.enum(RECOGNITION_PROFILES)).openapi({
      description:
        "`standard` (beam search of 5 with Whisper's fallback temperatures, the default) and `fast` (beam search of 3, no fallback); the job request field `profile` chooses.",
    }),
    recognition_profile_measurements: z
      .array(
        z.object({
          profile: z.enum(RECOGNITION_PROFILES),
          real_time_factor: z.number().nullable().openapi({
            description: "Seconds of computing per second of long speech on the service's recognizer hardware; null when not measured.",
          }),
          languages: z.array(z.object({ language: z.string(), metric: z.enum(['wer', 'cer']), error_rate: z.number() })),
        }),
      )
      .openapi({ description: 'Each profile measured by `npm run eval:asr` on real speech: its speed and its error rate per language.' }),
    recognition_model: z
      .string()
      .nullable()
      .openapi({ description: 'The model AI transcription uses (recognition.model of its transcripts).' }),
    transcription_languages: z
      .array(
        z.object({
          language: z.string(),
          quality_status: z.enum(['validated_language', 'provider_supported', 'experimental_language']),
          metric: z.enum(['wer', 'cer']).nullable().openapi({ description: 'wer: word error rate; cer: character error rate (ja, ko).' }),
          error_rate: z
            .number()
            .nullable()
            .openapi({ description: 'Measured on real speech through the whole job pipeline; null when not measured.' }),
          clips: z.number().int().openapi({ description: 'Recordings the error rate was measured on.' }),
        }),
      )
      .openapi({
        description: `The AI-transcription languages and the quality status each gets, from measurements. ${languageQualitySummary(new WhisperRecognizer())}`,
      }),
    transcribe_credits_per_minute: z.number().int(),
    minimum_billable_seconds: z.number().int(),
    price_version: z.string().openapi({ example: '2026-11-01' }),
    asr_enabled: z.boolean(),
    photosocial_enabled: z.boolean(),
    free_caption_credits: z.number().int(),
    free_caption_credits_period: z.literal('month'),
    plan: z
      .enum(PLAN_IDS)
      .nullable()
      .openapi({ description: "The caller's plan; null without a key (then the answer shows what a trial may do)." }),
  })
  .openapi('Capabilities');

/**
 * The e-mail rule, stated as the pattern it is: a dot-atom local part, then a
 * domain of dot-separated labels (no hyphen at either end) ending in a 2+
 * letter top-level label. Published as the pattern itself: `format: email`
 * means something different to every validator.
 */
export const EMAIL_PATTERN = "^[A-Za-z0-9_'+-]+(\\.[A-Za-z0-9_'+-]+)*@([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z]{2,}$";
export const EmailSchema = z
  .string()
  .max(254)
  .regex(new RegExp(EMAIL_PATTERN), 'must be an e-mail address such as name@example.com')
  .openapi({
    pattern: EMAIL_PATTERN,
    maxLength: 254,
    example: 'name@example.com',
    description:
      'An e-mail address matching the pattern (dot-atom local part, letters-digits-hyphens domain labels, a 2+ letter top-level label).',
  });

export const SignUpRequest = z
  .strictObject({
    email: EmailSchema,
    password: z.string().min(12, 'at least 12 characters').max(256),
    display_name: z.string().min(1).max(100),
    workspace_name: z.string().min(1).max(100).optional(),
  })
  .openapi('SignUpRequest');

export const SignInRequest = z
  .strictObject({ email: z.string().min(1).max(254), password: z.string().min(1).max(256) })
  .openapi('SignInRequest');
export const VerifyEmailRequest = z.strictObject({ token: z.string().min(10).max(200) }).openapi('VerifyEmailRequest');

export const SessionSchema = z
  .object({
    user: z.object({ id: Uuid, email: z.string(), display_name: z.string(), email_verified: z.boolean() }),
    workspace_id: Uuid,
    csrf_token: z.string().openapi({ description: 'Send as X-CSRF-Token on every cookie-authenticated write.' }),
    expires_at: DateTime,
  })
  .openapi('Session');

export const ApiKeySchema = z
  .object({
    id: Uuid,
    name: z.string(),
    prefix: z.string().openapi({ description: 'The first characters of the key, to recognise it. The stored hash is never returned.' }),
    scopes: z.array(z.enum(SCOPES)),
    created_at: DateTime,
    last_used_at: DateTime.nullable(),
    revoked_at: DateTime.nullable(),
  })
  .openapi('ApiKey');

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  secret: z.string().openapi({ description: 'The raw key (fixed prefix `tsk_`), shown only in this response.' }),
}).openapi('ApiKeyCreated');

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) }).openapi('ApiKeyList');

export const CreateApiKeyRequest = z
  .strictObject({
    name: z.string().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1, 'choose at least one scope'),
  })
  .openapi('CreateApiKeyRequest');

export const ProfileSchema = z
  .object({
    display_name: z.string(),
    email: z.string(),
    email_verified: z.boolean(),
    workspace_id: Uuid,
    workspace_name: z.string(),
    plan: z.enum(PLAN_IDS),
    retention_days: z.number().int(),
    max_retention_days: z.number().int(),
  })
  .openapi('Profile');

export const UpdateProfileRequest = z
  .strictObject({
    display_name: z.string().min(1).max(100).optional(),
    retention_days: z.number().int().min(1).max(90).optional().openapi({ description: "At most the plan's retention (7/30/90/90 days)." }),
  })
  .refine((b) => b.display_name !== undefined || b.retention_days !== undefined, { message: 'give display_name or retention_days' })
  .openapi('UpdateProfileRequest', { anyOf: [{ required: ['display_name'] }, { required: ['retention_days'] }] });

export const DeleteAccountRequest = z
  .strictObject({ confirm: z.literal('DELETE', { message: 'type DELETE to confirm' }) })
  .openapi('DeleteAccountRequest');

// Checkout, portal and credit quote schemas: domain/schemas/billing.ts.
