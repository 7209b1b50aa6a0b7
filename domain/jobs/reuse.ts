import { createHash } from 'node:crypto';
import { DEFAULT_RECOGNITION, reuseRelevant, type RecognitionOptions } from './recognition';

/**
 * Two requests are "the same" (and the second reuses the first's transcript for
 * free) when, in the same workspace, they name the same video — platform and
 * normalised media_id, whatever link form was used — with the same mode and the
 * same result-deciding options:
 *   captions_only / auto: caption_languages (order matters), caption_preference and word_timing;
 *   transcribe: the language hint;
 *   transcribe and auto: the recognition options that differ from the defaults (recognition.ts),
 *   align_text among them.
 * metadata, max_credits and webhook_endpoint_id never affect reuse.
 */
export function reuseKey(input: {
  platform: string;
  mediaId: string;
  mode: string;
  captionLanguages: string[];
  captionPreference: string;
  language: string | null;
  recognition?: RecognitionOptions;
}): string {
  const chosen = input.recognition ?? DEFAULT_RECOGNITION;
  const recognition = input.mode === 'captions_only' ? (chosen.wordTiming ? { word_timing: true } : {}) : reuseRelevant(chosen);
  const options =
    input.mode === 'transcribe'
      ? { language: input.language?.toLowerCase() ?? null, ...recognition }
      : {
          caption_languages: input.captionLanguages.map((l) => l.toLowerCase()),
          caption_preference: input.captionPreference,
          ...(input.mode === 'auto' ? { language: input.language?.toLowerCase() ?? null } : {}),
          ...recognition,
        };
  return createHash('sha256')
    .update(JSON.stringify([input.platform, input.mediaId, input.mode, options]))
    .digest('hex');
}
