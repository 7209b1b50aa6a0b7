import {
  FREE_CAPTION_CREDITS,
  MAX_DURATION_MS,
  MAX_MEDIA_BYTES,
  MINIMUM_BILLABLE_SECONDS,
  PLANS,
  PRICE_VERSION,
  TRANSCRIBE_CREDITS_PER_MINUTE,
  type PlanId,
} from '../core/plans';
import { languageQualityTable, profileQualityTable } from '../integrations/recognizers/quality';
import { RECOGNITION_PROFILES } from './schemas/jobs';
import type { Recognizer } from '../integrations/recognizers/types';
import type { ExportFormat } from './transcripts/export';
import { CHAPTER_ORIGINS, CHAPTERS_MIN_DURATION_SECONDS, MIN_CHAPTER_SECONDS } from './transcripts/chapters';
import { DISFLUENCY_LANGUAGES, PROFANITY_LANGUAGES } from './transcripts/cleanup';
import { MACHINE_TRANSLATION_MODEL, type TranslationSettings } from './transcripts/translation';
import { SUMMARY_PROMPT_WORDS } from './transcripts/summary';
import { PII_PLACEHOLDERS, PII_TYPES, type RedactionCoverage, RULE_PII_TYPES, SPOKEN_FORM_LANGUAGES } from './transcripts/redaction';

export interface CapabilitySettings {
  asrEnabled: boolean;
  photosocialEnabled: boolean;
  /** The recognizer jobs use: its languages and their measured quality are listed. */
  recognizer?: Recognizer;
  /** The sentence embedding model of computed chapters and search by meaning; null where none is installed. */
  embeddingModel: string | null;
  /** What translates (`translate_to`): the machine pairs and the operator's provider. */
  translation: TranslationSettings;
  /** The language model summaries come from (LLM_MODEL); null where none is configured. */
  summaryModel: string | null;
  /** What redaction covers here (the personal-data model's kinds and languages). */
  redaction: RedactionCoverage;
}

/**
 * What the caller's plan may do per source. Without a key the answer is the
 * trial's (what anyone can do after signing up). AI transcription needs a paid
 * plan and a configured recognizer.
 */
export function capabilitiesFor(plan: PlanId | null, settings: CapabilitySettings) {
  const paid = plan !== null && PLANS[plan].paid;
  const ai = paid && settings.asrEnabled;
  const video = (enabled: boolean) => ({
    enabled,
    captions_only: enabled,
    auto: enabled && ai,
    transcribe: enabled && ai,
    social_acquisition_fee: false,
  });
  const mediaOnly = { enabled: true, captions_only: false, auto: false, transcribe: ai, social_acquisition_fee: false };
  return {
    videosite: video(true),
    shortvideo: video(true),
    photosocial: { ...video(settings.photosocialEnabled), native_captions: 'unverified_disabled' },
    upload: mediaOnly,
    direct: mediaOnly,
    max_duration_ms: MAX_DURATION_MS,
    max_media_bytes: MAX_MEDIA_BYTES,
    // The order clients have always read, chapters last.
    export_formats: ['txt', 'json', 'srt', 'vtt', 'chapters'] as ExportFormat[],
    chapters: {
      available: settings.embeddingModel !== null,
      origins: [...CHAPTER_ORIGINS],
      computed_min_duration_seconds: CHAPTERS_MIN_DURATION_SECONDS,
      min_chapter_seconds: MIN_CHAPTER_SECONDS,
      model: settings.embeddingModel,
    },
    translation: {
      platform_languages: 'videosite caption tracks' as const,
      machine_pairs: settings.translation.machinePairs.map((p) => ({ source: p.source, target: p.target })),
      machine_model: settings.translation.machinePairs.length > 0 ? MACHINE_TRANSLATION_MODEL : null,
      provider: settings.translation.provider
        ? { name: settings.translation.provider.name, targets: [...settings.translation.provider.targets] }
        : null,
    },
    summaries: {
      available: settings.summaryModel !== null,
      model: settings.summaryModel,
      prompt_words: SUMMARY_PROMPT_WORDS,
    },
    redaction: {
      types: [...settings.redaction.types],
      default_types: [...RULE_PII_TYPES],
      person_languages: [...settings.redaction.languages.person],
      languages_by_type: {
        person: [...settings.redaction.languages.person],
        address: [...settings.redaction.languages.address],
        id: [...settings.redaction.languages.id],
      },
      model: settings.redaction.model,
      needs_model: PII_TYPES.filter((t) => !settings.redaction.types.includes(t)),
      spoken_form_languages: [...SPOKEN_FORM_LANGUAGES],
      placeholders: { ...PII_PLACEHOLDERS },
      redacted_audio_sources: ['upload', 'direct'] as Array<'upload' | 'direct'>,
    },
    cleanup: { profanity_languages: [...PROFANITY_LANGUAGES], disfluency_languages: [...DISFLUENCY_LANGUAGES] },
    recognition_profiles: [...RECOGNITION_PROFILES],
    recognition_profile_measurements: settings.recognizer ? profileQualityTable(settings.recognizer, RECOGNITION_PROFILES) : [],
    recognition_model: settings.recognizer?.model ?? null,
    transcription_languages: settings.recognizer ? languageQualityTable(settings.recognizer) : [],
    transcribe_credits_per_minute: TRANSCRIBE_CREDITS_PER_MINUTE,
    minimum_billable_seconds: MINIMUM_BILLABLE_SECONDS,
    price_version: PRICE_VERSION,
    asr_enabled: settings.asrEnabled,
    photosocial_enabled: settings.photosocialEnabled,
    free_caption_credits: FREE_CAPTION_CREDITS,
    free_caption_credits_period: 'month' as const,
    plan,
  };
}
