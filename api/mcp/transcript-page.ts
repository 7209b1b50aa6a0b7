import { exportTranscript } from '../../domain/transcripts/export';
import type { TranscriptView } from '../../domain/transcripts/read';

// Agent-sized transcript output: one page of a rendering at a time, never the
// whole of a long transcript. A page is at most `max_chars` characters (default
// 40,000, about 10,000 tokens: well under 25,000), cut at a line or cue
// boundary; `next_offset` continues it and `total_chars` tells the whole size.

export const TRANSCRIPT_FORMATS = ['text', 'srt', 'vtt', 'segments', 'words'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];
export const DEFAULT_PAGE_CHARS = 40_000;
export const MIN_PAGE_CHARS = 1_000;
export const MAX_PAGE_CHARS = 100_000;

export interface TranscriptPage {
  format: TranscriptFormat;
  /** Where this page starts: a character offset (text, srt, vtt) or a segment index (segments). */
  offset: number;
  /** Pass as `offset` for the next page; null on the last page. */
  next_offset: number | null;
  /** The page (text, srt, vtt). */
  content?: string;
  /** The page (segments). */
  segments?: { start: number; end: number; text: string; speaker: string | null; language: string | null; match: number | null }[];
  /** The page (words), compact: [start, end, text] or, with speaker labels, [start, end, text, speaker]. */
  words?: WordTuple[];
  returned_chars: number;
  /** Size of the whole rendering in characters (segments: of the JSON array). */
  total_chars: number;
  total_segments: number;
  /** Words of the transcript (words format; 0 when it has no word times). */
  total_words?: number;
}

export type WordTuple = [number, number, string] | [number, number, string, string];

/** Transcript fields an agent needs next to a page (no text, segments or words: those are paged). */
export function transcriptSummary(t: TranscriptView) {
  return {
    id: t.id,
    source: t.source,
    source_origin: t.source_origin,
    language: t.language,
    languages: t.languages,
    speakers: t.speakers,
    timing_granularity: t.timing_granularity,
    duration_seconds: t.duration_seconds,
    recognition: t.recognition,
    alignment: t.alignment,
    chapters: t.chapters,
    // The translation's language and origin; its text is read with get_transcript's `translated`.
    translation: t.translation ? { language: t.translation.language, origin: t.translation.origin } : null,
    // Whole: a few sentences, points and a sentence per chapter are far under a page.
    summary: t.summary,
    redacted_audio: t.redacted_audio,
    created_at: t.created_at,
    expires_at: t.expires_at,
  };
}

/** One page of the rendering. text, srt and vtt are the export renderings (txt: one segment per line). */
export function transcriptPage(t: TranscriptView, format: TranscriptFormat, offset: number, maxChars: number): TranscriptPage {
  const total_segments = t.segments.length;
  if (format === 'words') {
    // Word times as tuples: a third of the JSON of word objects, so an agent gets three times the words per page.
    const all: WordTuple[] = (t.words ?? []).map((w) => (w.speaker ? [w.start, w.end, w.text, w.speaker] : [w.start, w.end, w.text]));
    const start = Math.min(offset, all.length);
    const page: WordTuple[] = [];
    let chars = 2;
    let i = start;
    for (; i < all.length; i++) {
      const size = JSON.stringify(all[i]).length + 1;
      if (page.length > 0 && chars + size > maxChars) break;
      page.push(all[i]!);
      chars += size;
    }
    return {
      format,
      offset: start,
      next_offset: i < all.length ? i : null,
      words: page,
      returned_chars: chars,
      total_chars: JSON.stringify(all).length,
      total_segments,
      total_words: all.length,
    };
  }
  if (format === 'segments') {
    const total_chars = JSON.stringify(t.segments).length;
    const start = Math.min(offset, total_segments);
    const page: TranscriptPage['segments'] = [];
    let chars = 2;
    let i = start;
    for (; i < total_segments; i++) {
      const size = JSON.stringify(t.segments[i]).length + 1;
      if (page.length > 0 && chars + size > maxChars) break;
      page.push(t.segments[i]!);
      chars += size;
    }
    return {
      format,
      offset: start,
      next_offset: i < total_segments ? i : null,
      segments: page,
      returned_chars: chars,
      total_chars,
      total_segments,
    };
  }
  const body = exportTranscript(t, format === 'text' ? 'txt' : format).body;
  const start = Math.min(offset, body.length);
  let end = Math.min(body.length, start + maxChars);
  if (end < body.length) {
    // Cut at a cue (srt, vtt) or line boundary, else at a space, when one lies in the second half of the page.
    const window = body.slice(start, end);
    const boundary = format === 'text' ? window.lastIndexOf('\n') : window.lastIndexOf('\n\n');
    const cut = boundary >= maxChars / 2 ? boundary + (format === 'text' ? 1 : 2) : window.lastIndexOf(' ') + 1;
    if (cut >= maxChars / 2) end = start + cut;
  }
  const content = body.slice(start, end);
  return {
    format,
    offset: start,
    next_offset: end < body.length ? end : null,
    content,
    returned_chars: content.length,
    total_chars: body.length,
    total_segments,
  };
}
