import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { JOB_SPEC_DEFAULTS, type JobSpec } from '../schemas/jobs';

/** The spec's fields the key spells out by mode, not by the default rule below. */
const KEYED_BY_MODE = new Set<keyof JobSpec>(['mode', 'language', 'caption_preference', 'caption_languages', 'align_text_chars']);

/**
 * The options beyond the source and mode that change what is recognised: every other field of the spec that
 * differs from its default, in the spec's order (so a request without them keeps the key it always had, and a
 * new option joins the key with no line here). The vocabulary is a set (its order and duplicates do not change
 * what is recognised enough to transcribe again). `speakers_expected` goes with `speaker_labels`, null or not,
 * as it always has. The text to align may be 200,000 characters: its hash decides.
 */
function recognitionOptions(spec: JobSpec, alignText: string | null): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const field of Object.keys(JOB_SPEC_DEFAULTS) as (keyof typeof JOB_SPEC_DEFAULTS)[]) {
    if (KEYED_BY_MODE.has(field)) continue;
    const value = spec[field];
    const tied = field === 'speakers_expected' && spec.speaker_labels;
    if (!tied && isDeepStrictEqual(value, JOB_SPEC_DEFAULTS[field])) continue;
    options[field] = Array.isArray(value) ? [...value].sort() : value;
  }
  if (alignText !== null) options.align_text = createHash('sha256').update(alignText).digest('hex');
  return options;
}

/**
 * Two requests are "the same" (and the second reuses the first's transcript for
 * free) when, in the same workspace, they name the same video — platform and
 * normalised media_id, whatever link form was used — with the same mode and the
 * same result-deciding options:
 *   captions_only / auto: caption_languages (order matters) and caption_preference;
 *   transcribe and auto: the language hint;
 *   every mode: the other options that differ from their defaults (word_timing, the recognition options,
 *   align_text among them).
 * metadata, max_credits and webhook_endpoint_id never affect reuse.
 */
export function reuseKey(input: { platform: string; mediaId: string; spec: JobSpec; alignText: string | null }): string {
  const { spec } = input;
  const recognition = recognitionOptions(spec, input.alignText);
  const language = spec.language?.toLowerCase() ?? null;
  const options =
    spec.mode === 'transcribe'
      ? { language, ...recognition }
      : {
          caption_languages: spec.caption_languages.map((l) => l.toLowerCase()),
          caption_preference: spec.caption_preference,
          ...(spec.mode === 'auto' ? { language } : {}),
          ...recognition,
        };
  return createHash('sha256')
    .update(JSON.stringify([input.platform, input.mediaId, spec.mode, options]))
    .digest('hex');
}
