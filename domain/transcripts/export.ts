// GET /v1/transcripts/{id}/export: turns a transcript into a downloadable
// txt, srt, vtt or json file. Pure and synchronous; the route only copies
// body, contentType and contentDisposition onto the response.
//
// The SRT/WebVTT writers are hand-written on purpose: the npm subtitle writers
// evaluated (subtitle, subsrt-ts, node-webvtt, webvtt-parser's serializer,
// srt-parser-2's toSrt) are plain string joins that leave timing repair,
// wrapping and escaping to the caller, and several format timestamps wrongly
// (see the export report in test/exports/README.md).

import { ServiceError } from '../errors';
import { buildCues, Cue, normaliseLine, normaliseText, SegmentInput, WordInput } from './segments';

export type ExportFormat = 'txt' | 'srt' | 'vtt' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['txt', 'srt', 'vtt', 'json'];

export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = Object.freeze({
  txt: 'text/plain; charset=utf-8',
  srt: 'text/srt; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
});

export type TimingGranularity = 'word' | 'segment' | 'none';

export interface TranscriptSegment extends SegmentInput {
  start: number;
  end: number;
  text: string;
}

export interface TranscriptWord extends WordInput {
  start: number;
  end: number;
  text: string;
  confidence: number;
}

/** The transcript object as the API returns it (spec: Transcript). */
export interface ExportableTranscript {
  id: string;
  source: { platform: string; media_id: string; canonical_url: string; title: string | null };
  source_origin: 'creator_captions' | 'platform_captions' | 'speech_recognition';
  language: string | null;
  text: string;
  segments: TranscriptSegment[];
  words: TranscriptWord[] | null;
  timing_granularity: TimingGranularity;
  duration_seconds: number | null;
  recognition: {
    model: string;
    profile: string;
    quality_status: 'validated_language' | 'provider_supported' | 'experimental_language';
  } | null;
  extraction_version: string;
  created_at: string;
}

export interface ExportResult {
  body: string;
  /** Content-Type header value. */
  contentType: string;
  /** ASCII download filename, e.g. "my-video-1a2b3c4d.srt". */
  filename: string;
  /** Content-Disposition header value: attachment; filename="…"[; filename*=UTF-8''…]. */
  contentDisposition: string;
}

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/**
 * Renders a transcript in one export format.
 * Throws ServiceError TIMESTAMPS_UNAVAILABLE for srt/vtt of an untimed transcript,
 * INVALID_REQUEST for an unknown format.
 */
export function exportTranscript(transcript: ExportableTranscript, format: ExportFormat): ExportResult {
  if (!isExportFormat(format)) throw new ServiceError('INVALID_REQUEST', 'format');
  let body: string;
  switch (format) {
    case 'txt':
      body = renderTxt(transcript);
      break;
    case 'json':
      body = renderJson(transcript);
      break;
    case 'srt':
    case 'vtt': {
      if (transcript.timing_granularity === 'none') throw new ServiceError('TIMESTAMPS_UNAVAILABLE', 'format');
      const cues = buildCues(transcript.segments ?? [], transcript.words);
      body = format === 'srt' ? serializeSrt(cues) : serializeVtt(cues);
      break;
    }
  }
  const names = exportFilenames(transcript, format);
  return {
    body,
    contentType: EXPORT_CONTENT_TYPES[format],
    filename: names.ascii,
    contentDisposition: contentDisposition(names.ascii, names.unicode),
  };
}

// ---------------------------------------------------------------------------
// txt / json

/** One segment per line (segment line breaks become spaces); the full text when there are no segments. */
export function renderTxt(transcript: Pick<ExportableTranscript, 'segments' | 'text'>): string {
  const segments = transcript.segments ?? [];
  let out = '';
  for (const seg of segments) {
    const line = normaliseLine(seg?.text ?? '');
    if (line !== '') out += line + '\n';
  }
  if (out === '' && segments.length === 0) {
    const text = normaliseText(transcript.text ?? '');
    if (text !== '') out = text + '\n';
  }
  return out;
}

/** The transcript object with exactly the API's fields (nothing internal leaks), pretty-printed. */
export function renderJson(t: ExportableTranscript): string {
  const obj: ExportableTranscript = {
    id: t.id,
    source: {
      platform: t.source.platform,
      media_id: t.source.media_id,
      canonical_url: t.source.canonical_url,
      title: t.source.title,
    },
    source_origin: t.source_origin,
    language: t.language,
    text: t.text,
    segments: t.segments,
    words: t.words,
    timing_granularity: t.timing_granularity,
    duration_seconds: t.duration_seconds,
    recognition: t.recognition,
    extraction_version: t.extraction_version,
    created_at: t.created_at,
  };
  return JSON.stringify(obj, null, 2) + '\n';
}

// ---------------------------------------------------------------------------
// SRT / WebVTT

function pad2(n: number): string {
  return n < 10 ? '0' + n : '' + n;
}

function pad3(n: number): string {
  return n < 10 ? '00' + n : n < 100 ? '0' + n : '' + n;
}

/** Integer ms -> HH:MM:SS<sep>mmm. Out-of-range input is clamped to 00:00:00.000..99:59:59.999. */
export function formatTimestamp(ms: number, separator: ',' | '.'): string {
  let t = Math.round(ms);
  if (!(t > 0)) t = 0; // also NaN
  if (t > 359_999_999) t = 359_999_999;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor(t / 60_000) % 60;
  const s = Math.floor(t / 1000) % 60;
  return pad2(h) + ':' + pad2(m) + ':' + pad2(s) + separator + pad3(t % 1000);
}

/** SubRip: numbered from 1, "HH:MM:SS,mmm --> HH:MM:SS,mmm", a blank line between cues, LF line endings. */
export function serializeSrt(cues: readonly Cue[]): string {
  let out = '';
  for (let i = 0; i < cues.length; i++) {
    const c = cues[i];
    if (i > 0) out += '\n';
    out += i + 1 + '\n' + formatTimestamp(c.start, ',') + ' --> ' + formatTimestamp(c.end, ',') + '\n' + c.lines.join('\n') + '\n';
  }
  return out;
}

const VTT_SPECIAL = /[&<>]/;
const VTT_AMP = /&/g;
const VTT_LT = /</g;
const VTT_GT = />/g;

/** Escapes WebVTT cue text: &, < and > become character references. */
export function escapeVttText(text: string): string {
  if (!VTT_SPECIAL.test(text)) return text;
  return text.replace(VTT_AMP, '&amp;').replace(VTT_LT, '&lt;').replace(VTT_GT, '&gt;');
}

/** WebVTT: "WEBVTT" header, blank line before every cue, "HH:MM:SS.mmm --> HH:MM:SS.mmm", escaped text. */
export function serializeVtt(cues: readonly Cue[]): string {
  let out = 'WEBVTT\n';
  for (const c of cues) {
    out += '\n' + formatTimestamp(c.start, '.') + ' --> ' + formatTimestamp(c.end, '.') + '\n';
    for (const line of c.lines) out += escapeVttText(line) + '\n';
  }
  return out;
}

// ---------------------------------------------------------------------------
// Download filename

const FOLD: Record<string, string> = {
  ß: 'ss', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  ł: 'l', Ł: 'L', þ: 'th', Þ: 'TH', ı: 'i', ħ: 'h', Ħ: 'H',
};
const FOLDABLE = /[ßæÆœŒøØđĐðÐłŁþÞıħĦ]/g;
const COMBINING = /[\u0300-\u036f]/g;
const SLUG_MAX = 60;

function trimSlug(slug: string): string {
  let s = slug;
  if (s.length > SLUG_MAX) {
    s = s.slice(0, SLUG_MAX);
    const cut = s.lastIndexOf('-');
    if (cut >= SLUG_MAX / 2) s = s.slice(0, cut);
  }
  return s.replace(/^-+|-+$/g, '');
}

/** Lowercase ASCII slug of a title: accents folded, anything else becomes "-". */
export function asciiSlug(title: string): string {
  const folded = title.normalize('NFKD').replace(COMBINING, '').replace(FOLDABLE, (c) => FOLD[c] ?? '');
  return trimSlug(folded.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, ''));
}

/** Lowercase Unicode slug: letters, marks and digits of any script kept, anything else becomes "-". */
export function unicodeSlug(title: string): string {
  const chars = Array.from(title.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{M}\p{N}]+/gu, '-').replace(/^-+/, ''));
  let s = chars.length > SLUG_MAX ? chars.slice(0, SLUG_MAX).join('') : chars.join('');
  if (chars.length > SLUG_MAX) {
    const cut = s.lastIndexOf('-');
    if (cut >= SLUG_MAX / 4) s = s.slice(0, cut);
  }
  return s.replace(/^-+|-+$/g, '').replace(/^\p{M}+/u, '');
}

/**
 * "<slug>-<id8>.<ext>" from the title (or "transcript-<id8>.<ext>" without a usable one).
 * `unicode` is set only when the title has non-ASCII letters worth keeping (for filename*).
 */
export function exportFilenames(
  transcript: Pick<ExportableTranscript, 'id' | 'source'>,
  format: ExportFormat,
): { ascii: string; unicode?: string } {
  const id8 = String(transcript.id ?? '').replace(/[^0-9A-Za-z]/g, '').slice(0, 8).toLowerCase();
  const suffix = (id8 ? '-' + id8 : '') + '.' + format;
  const title = typeof transcript.source?.title === 'string' ? transcript.source.title : '';
  const ascii = asciiSlug(title);
  const uni = unicodeSlug(title);
  const asciiName = (ascii || 'transcript') + suffix;
  if (uni === '' || uni === ascii) return { ascii: asciiName };
  return { ascii: asciiName, unicode: uni + suffix };
}

/** RFC 5987 ext-value encoding (attr-char stays, everything else is %XX of UTF-8). */
export function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Content-Disposition (RFC 6266): ASCII filename for every client, filename* (RFC 5987) for a non-ASCII name. */
export function contentDisposition(asciiFilename: string, unicodeFilename?: string): string {
  const safe = asciiFilename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  let header = `attachment; filename="${safe}"`;
  if (unicodeFilename && unicodeFilename !== asciiFilename) header += `; filename*=UTF-8''${encodeRfc5987(unicodeFilename)}`;
  return header;
}
