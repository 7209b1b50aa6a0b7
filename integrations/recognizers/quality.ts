import { z } from 'zod';
import measured from './measured-quality.json';
import { EXPERIMENTAL_LANGUAGE, TARGET_LANGUAGES, qualityStatus, type QualityStatus, type Recognizer } from './types';

// `recognition.quality_status` from measurements, not claims (issue 50: at
// least 15 clips of a language before it is called validated). `npm run
// eval:asr` (bench/asr-eval.ts) runs the real speech of ../shared/asr-eval
// through the whole job pipeline and writes, per model and language, how many
// clips were measured and the error rate (WER; CER for ja and ko) into
// measured-quality.json beside this file, and the same table into
// bench/RESULTS.md. The rule below turns a measurement into a status; a model
// nobody measured (an operator's own WHISPER_MODEL_DIR) has no validated
// language.

/** At least this many clips of a language measured, and an error rate at most this: `validated_language`. */
export const VALIDATION_RULE = { minClips: 15, maxErrorRate: 0.2 } as const;

const LanguageMeasurementSchema = z.object({
  /** `wer` (words) or `cer` (characters, spaces removed: ja, ko). */
  metric: z.enum(['wer', 'cer']),
  clips: z.number().int(),
  /** Edits over reference units, all clips of the language together. */
  error_rate: z.number(),
  /** Reference words (wer) or characters (cer) over all clips. */
  reference_units: z.number(),
  /** Clips whose language was detected right when no language was given (of `clips`). */
  detected_correctly: z.number().int().optional(),
});

/** One recognition profile measured (bench/sets/evaluate.py, run by `npm run eval:asr`). */
const ProfileMeasurementSchema = z.object({
  /** Seconds of computing per second of audio, on long speech (each language's clips joined), this machine's cores. */
  real_time_factor: z.number(),
  /** Error rate per language on its clips, decoded one by one with the language given. */
  languages: z.record(z.string(), z.object({ metric: z.enum(['wer', 'cer']), error_rate: z.number(), reference_units: z.number() })),
});

const ModelMeasurementsSchema = z.object({
  measured_at: z.string(),
  /** How the figures were made (command, settings). */
  method: z.string(),
  languages: z.record(z.string(), LanguageMeasurementSchema),
  profiles: z.record(z.string(), ProfileMeasurementSchema).optional(),
});

export type LanguageMeasurement = z.infer<typeof LanguageMeasurementSchema>;
export type ModelMeasurements = z.infer<typeof ModelMeasurementsSchema>;

/** The file as the eval wrote it, checked once at load (a malformed file stops the process with a message naming the field). */
const table = z.record(z.string(), ModelMeasurementsSchema).parse(measured);

export function measurementsFor(model: string): ModelMeasurements | null {
  return table[model] ?? null;
}

export function meetsValidationRule(m: LanguageMeasurement | undefined): boolean {
  return !!m && m.clips >= VALIDATION_RULE.minClips && m.error_rate <= VALIDATION_RULE.maxErrorRate;
}

/** The target languages the model's measurements validate. */
export function validatedLanguages(model: string): string[] {
  const m = measurementsFor(model);
  return m ? TARGET_LANGUAGES.filter((lang) => meetsValidationRule(m.languages[lang])) : [];
}

export interface LanguageQuality {
  language: string;
  quality_status: QualityStatus;
  metric: 'wer' | 'cer' | null;
  error_rate: number | null;
  clips: number;
}

/** One row per AI-transcription language (the eight, then the experimental one), as capabilities and the docs show them. */
export function languageQualityTable(recognizer: Recognizer): LanguageQuality[] {
  const m = measurementsFor(recognizer.model);
  return [...TARGET_LANGUAGES, EXPERIMENTAL_LANGUAGE].map((language) => {
    const row = m?.languages[language];
    return {
      language,
      quality_status: qualityStatus(recognizer, language),
      metric: row?.metric ?? null,
      error_rate: row ? Math.round(row.error_rate * 1000) / 1000 : null,
      clips: row?.clips ?? 0,
    };
  });
}

export interface ProfileQuality {
  profile: string;
  real_time_factor: number | null;
  languages: { language: string; metric: 'wer' | 'cer'; error_rate: number }[];
}

/** Each recognition profile as measured for the recognizer's model (null figures: not measured). */
export function profileQualityTable(recognizer: Recognizer, profiles: readonly string[]): ProfileQuality[] {
  const m = measurementsFor(recognizer.model)?.profiles;
  return profiles.map((profile) => {
    const row = m?.[profile];
    return {
      profile,
      real_time_factor: row ? Math.round(row.real_time_factor * 1000) / 1000 : null,
      languages: row
        ? Object.entries(row.languages).map(([language, l]) => ({
            language,
            metric: l.metric,
            error_rate: Math.round(l.error_rate * 1000) / 1000,
          }))
        : [],
    };
  });
}

/** The table in one line of prose, for OpenAPI descriptions: `en 5.1 % WER (4 clips, validated)`, …. */
export function languageQualitySummary(recognizer: Recognizer): string {
  const m = measurementsFor(recognizer.model);
  const rows = languageQualityTable(recognizer).map((r) => {
    if (r.quality_status === 'experimental_language') return `${r.language} experimental`;
    if (r.error_rate === null) return `${r.language} not measured (provider_supported)`;
    const status = r.quality_status === 'validated_language' ? 'validated' : 'provider_supported';
    return `${r.language} ${(r.error_rate * 100).toFixed(1)} % ${r.metric!.toUpperCase()} (${r.clips} clip${r.clips === 1 ? '' : 's'}, ${status})`;
  });
  const when = m ? `measured ${m.measured_at.slice(0, 10)} by \`npm run eval:asr\`` : 'not measured';
  return `${recognizer.model}, ${when}: ${rows.join('; ')}. Rule: validated_language when at least ${VALIDATION_RULE.minClips} clips were measured and the error rate is at most ${VALIDATION_RULE.maxErrorRate * 100} %.`;
}
