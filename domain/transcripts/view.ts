import type { Transcript } from '../../prisma/generated/client';
import { spokenSeconds } from '../../integrations/recognizers/result';
import type { Chapter } from './chapters';
import type { TranscriptSummary } from './summary';
import type { StoredRedactedAudio } from './redacted-audio';
import { translationView, type StoredTranslation } from './translation';

// The transcript as the API shows it (GET /v1/transcripts/{id}, the json export, the tools), and its
// rendering: the part known when the transcript is written, serialised once then
// (transcript_renderings), so that serving a two-hour word-timed transcript is a copy, not a
// serialisation of 1.8 MB.

type StoredSegment = { start: number; end: number; text: string; speaker?: string | null; language?: string | null; match?: number | null };
type StoredWord = { start: number; end: number; text: string; confidence: number; speaker?: string | null };

/** How an aligned transcript got its word times (transcripts.alignment). */
export interface TranscriptAlignment {
  method: 'word_timing' | 'align_text';
  model: string;
  match_threshold: number;
  segments_below_threshold: number;
}

/** The fields of a transcript's row that its view is made of, but its id and publication times (JSON columns as read). */
export type TranscriptFields = Pick<
  Transcript,
  'platform' | 'mediaId' | 'canonicalUrl' | 'title' | 'sourceOrigin' | 'language' | 'text' | 'timingGranularity' | 'durationSeconds'
> & {
  extractionVersion: string;
  segments: unknown;
  // Absent reads as null, as in a row: the draft step renders from its content before any row exists.
  words?: unknown;
  recognition?: unknown;
  speakers?: unknown;
  languages?: unknown;
  captionLanguageCheck?: unknown;
  alignment?: unknown;
  chapters?: unknown;
  translation?: unknown;
  summary?: unknown;
  redactedAudio?: unknown;
};

/**
 * The transcript as the API shows it, but for `id` (first) and `created_at` and `expires_at` (last): the
 * part that is known when the transcript is written, and so can be serialised once then (renderTranscriptBody).
 */
export function transcriptBody(t: TranscriptFields) {
  const stored = t.segments as StoredSegment[];
  const segments = stored.map((s) => ({
    start: s.start,
    end: s.end,
    text: s.text,
    speaker: s.speaker ?? null,
    language: s.language ?? t.language,
    match: s.match ?? null,
  }));
  const words = t.words as StoredWord[] | null | undefined;
  const check = t.captionLanguageCheck as { label: string | null; detected: string | null; matches: boolean | null } | null | undefined;
  const languages = t.languages as { language: string; seconds: number }[] | null | undefined;
  const recognition = t.recognition as
    | {
        model: string;
        profile: 'standard' | 'fast';
        quality_status: 'validated_language' | 'provider_supported' | 'experimental_language';
        language_probability?: number | null;
      }
    | null
    | undefined;
  const alignment = t.alignment as TranscriptAlignment | null | undefined;
  const chapters = t.chapters as Chapter[] | null | undefined;
  return {
    source: { platform: t.platform, media_id: t.mediaId, canonical_url: t.canonicalUrl, title: t.title },
    source_origin: t.sourceOrigin,
    language: t.language,
    text: t.text,
    segments,
    words: words?.map((w) => ({ start: w.start, end: w.end, text: w.text, confidence: w.confidence, speaker: w.speaker ?? null })) ?? null,
    timing_granularity: t.timingGranularity as 'word' | 'segment' | 'none',
    duration_seconds: t.durationSeconds,
    // The JSON columns are read back with jsonb's key order (shortest key first): each object is built
    // here in the documented order, so a row and its rendering serialise alike.
    speakers:
      (t.speakers as { id: string; words: number; seconds: number }[] | null | undefined)?.map((s) => ({
        id: s.id,
        words: s.words,
        seconds: s.seconds,
      })) ?? null,
    caption_language_check: check ? { label: check.label, detected: check.detected, matches: check.matches } : null,
    // Transcripts stored before languages were measured, and caption tracks: their one language over their segments.
    languages: languages
      ? languages.map((l) => ({ language: l.language, seconds: l.seconds }))
      : t.language
        ? [{ language: t.language, seconds: spokenSeconds(segments) }]
        : [],
    recognition: recognition
      ? {
          model: recognition.model,
          profile: recognition.profile,
          quality_status: recognition.quality_status,
          ...(recognition.language_probability !== undefined ? { language_probability: recognition.language_probability } : {}),
        }
      : null,
    alignment: alignment
      ? {
          method: alignment.method,
          model: alignment.model,
          match_threshold: alignment.match_threshold,
          segments_below_threshold: alignment.segments_below_threshold,
        }
      : null,
    chapters: chapters?.map((c) => ({ start: c.start, end: c.end, title: c.title, origin: c.origin })) ?? null,
    translation: translationView(t.translation as StoredTranslation | null | undefined, segments),
    summary: (t.summary as TranscriptSummary | null | undefined) ?? null,
    redacted_audio: redactedAudioView(t.redactedAudio as StoredRedactedAudio | null | undefined),
    extraction_version: t.extractionVersion,
  };
}

/** The fields the publication sets, which close the view. */
export type PublishedFields = Pick<Transcript, 'id' | 'publishedAt' | 'createdAt' | 'expiresAt'>;

export const publishedTimes = (t: PublishedFields) => ({
  created_at: (t.publishedAt ?? t.createdAt).toISOString(),
  expires_at: t.expiresAt.toISOString(),
});

export function toTranscriptView(t: Transcript) {
  return { id: t.id, ...transcriptBody(t), ...publishedTimes(t) };
}
export type TranscriptView = ReturnType<typeof toTranscriptView>;

/** The stored rendering: transcriptBody serialised, when the transcript is written. */
export function renderTranscriptBody(t: TranscriptFields): string {
  return JSON.stringify(transcriptBody(t));
}

/** The view's JSON from a stored rendering: byte for byte JSON.stringify(toTranscriptView(row)). */
export function transcriptJson(rendering: string, t: PublishedFields): string {
  const { created_at, expires_at } = publishedTimes(t);
  return `{"id":${JSON.stringify(t.id)},${rendering.slice(1, -1)},"created_at":"${created_at}","expires_at":"${expires_at}"}`;
}

/** The redacted copy of the audio as the transcript shows it: where to read it, not the object store's key. */
function redactedAudioView(a: StoredRedactedAudio | null | undefined) {
  return a ? { content_type: a.content_type, bytes: a.bytes, tone_spans: a.tone_spans } : null;
}
