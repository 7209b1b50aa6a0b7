// GET /v1/transcripts/{id}/export: turns a transcript into a downloadable
// txt, srt, vtt or json file. Pure and synchronous; the route only copies
// body, contentType and contentDisposition onto the response.
//
// The SRT/WebVTT writers are hand-written on purpose. The npm subtitle writers
// evaluated are string joins that leave timing repair, wrapping and escaping
// to the caller, and several get timestamps wrong: subtitle 4.2.2 formats
// through a local-time Date (25 h -> "01:00:01,86400500") and does not escape
// WebVTT text; node-webvtt 1.9.4 writes 59.99996 s as "00:00:59.1000";
// webvtt-parser 2.2.0's serializer writes 59.9996 s as "00:59.000" (before the
// cue's start); srt-parser-2's toSrt takes preformatted times and converts only
// the first "\n"; subsrt-ts is ESM-only (no require() under jest). The tests
// check this output with webvtt-parser (W3C parsing algorithm) and srt-parser-2.

import { ServiceError } from '../../core/errors';
import { Cue, CueBuilder, MAX_TIMESTAMP_MS, SegmentInput, WordInput } from './cues';
import { normaliseLine, normaliseText } from '../../core/text';
import type { Chapter } from './chapters';

/** `chapters`: the transcript's chapters as a WebVTT chapters track (a job that asked for `chapters`). */
export const EXPORT_FORMATS = ['txt', 'srt', 'vtt', 'json', 'chapters'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = Object.freeze({
  txt: 'text/plain; charset=utf-8',
  srt: 'text/srt; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
  chapters: 'text/vtt; charset=utf-8',
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

/**
 * The transcript object as the API returns it (spec: Transcript). The json
 * export serialises the object it is given, so pass the API view (any further
 * fields of that view, such as expires_at, appear in the file too).
 */
export interface ExportableTranscript {
  id: string;
  source: { platform: string; media_id: string | null; canonical_url: string | null; title: string | null };
  source_origin: 'creator_captions' | 'platform_captions' | 'speech_recognition' | 'provided_text';
  language: string | null;
  text: string;
  segments: TranscriptSegment[];
  words: TranscriptWord[] | null;
  /** Present and not null when speaker labels were asked for (srt/vtt then name the speaker at each change). */
  speakers?: { id: string }[] | null;
  timing_granularity: TimingGranularity;
  duration_seconds: number | null;
  recognition: {
    model: string;
    profile: string;
    quality_status: 'validated_language' | 'provider_supported' | 'experimental_language';
  } | null;
  extraction_version: string;
  /** Null when the job did not ask for chapters. */
  chapters?: Chapter[] | null;
  /** Null when the job did not ask for a translation (`translate_to`). */
  translation?: { language: string; origin: string; segments: Array<{ start: number; end: number; text: string }> } | null;
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

// One for every export: a word-timed transcript's times need ~400 KB of
// buffers, reused rather than allocated per export (exports are synchronous).
const cueBuilder = new CueBuilder();

/** Caption layout of the srt and vtt exports (the export's `max_line_length` and `max_lines`). */
export interface CaptionLayout {
  maxLineLength?: number;
  maxLines?: number;
  /** txt, srt and vtt: the translation's text instead of the transcript's (`translated=true`). */
  translated?: boolean;
}

/**
 * Renders a transcript in one export format.
 * Throws ServiceError TIMESTAMPS_UNAVAILABLE for srt/vtt of an untimed transcript,
 * INVALID_REQUEST for an unknown format.
 */
export function exportTranscript(transcript: ExportableTranscript, format: ExportFormat, layout: CaptionLayout = {}): ExportResult {
  if (!isExportFormat(format)) throw new ServiceError('INVALID_REQUEST', 'format');
  if (layout.translated && format !== 'json' && format !== 'chapters') {
    const translated = translatedTranscript(transcript);
    return exportFile(exportBody(translated, format, layout), translated, format, translated.language);
  }
  return exportFile(exportBody(transcript, format, layout), transcript, format);
}

/** What a transcript needs to be shown as its translation (the export's and the agents' view alike). */
interface Translatable {
  language: string | null;
  text: string;
  segments: ReadonlyArray<{ text: string; language?: string | null }>;
  words: unknown[] | null;
  timing_granularity: TimingGranularity;
  translation?: { language: string; segments: ReadonlyArray<{ text: string }> } | null;
}

/**
 * The transcript as its translation (`translate_to`): every segment with the translation's text and language,
 * timed by the segments (the words are the original language's, so none are kept), each keeping its speaker; a
 * segment with no translated text is left out. TRANSLATION_UNAVAILABLE naming `translated` without one.
 */
export function translatedTranscript<T extends Translatable>(transcript: T): T & { language: string } {
  const translation = transcript.translation;
  if (!translation)
    throw new ServiceError('TRANSLATION_UNAVAILABLE', 'translated', {
      message: 'The transcript was made without a translation: ask for translate_to when creating the job.',
    });
  const segments = transcript.segments
    .map((s, i) => ({ ...s, text: translation.segments[i]?.text ?? '', language: translation.language }))
    .filter((s) => s.text.trim() !== '');
  return {
    ...transcript,
    language: translation.language,
    text: segments.map((s) => s.text).join(' '),
    segments,
    words: null,
    timing_granularity: transcript.timing_granularity === 'none' ? 'none' : 'segment',
  };
}

function exportBody(transcript: ExportableTranscript, format: ExportFormat, layout: CaptionLayout): string {
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
      const cues = cueBuilder.build(speakerPrefixed(transcript), transcript.words, {
        ...(layout.maxLineLength !== undefined ? { maxLineWidth: layout.maxLineLength } : {}),
        ...(layout.maxLines !== undefined ? { maxLines: layout.maxLines } : {}),
      });
      body = format === 'srt' ? serializeSrt(cues) : serializeVtt(cues);
      break;
    }
    case 'chapters':
      if (!transcript.chapters) throw new ServiceError('CHAPTERS_UNAVAILABLE', 'format');
      body = chaptersWebVtt(transcript.chapters);
      break;
  }
  return body;
}

/**
 * The json export of a transcript whose JSON is at hand already (its stored rendering, view.ts): the same
 * file as exportTranscript(view, 'json') without serialising the transcript again.
 */
export function exportServedJson(json: string, transcript: ExportNaming): ExportResult {
  return exportFile(`${json}\n`, transcript, 'json');
}

/** What names an export file. */
export type ExportNaming = { id: string; source: { title: string | null } };

function exportFile(body: string, transcript: ExportNaming, format: ExportFormat, language?: string): ExportResult {
  const names = exportFilenames(transcript, format, language);
  return {
    body,
    contentType: EXPORT_CONTENT_TYPES[format],
    filename: names.ascii,
    contentDisposition: contentDisposition(names.ascii, names.unicode),
  };
}

/**
 * With speaker labels, a caption says who speaks where the speaker changes ("B: …"), as the line a reader
 * needs; the segments of one speaker in a row carry no prefix. Segments never straddle a change of speaker.
 * The prefix is part of the text, so the line breaking counts it and word timing still finds the words.
 */
function speakerPrefixed(t: Pick<ExportableTranscript, 'segments' | 'speakers'>): TranscriptSegment[] {
  const segments = t.segments ?? [];
  if (!t.speakers) return segments;
  let previous: string | null = null;
  return segments.map((s) => {
    const speaker = s.speaker ?? null;
    const changed = speaker !== null && speaker !== previous;
    previous = speaker;
    return changed ? { ...s, text: `${speaker}: ${s.text}` } : s;
  });
}

/**
 * A WebVTT chapters track (the `chapters` export, for a <track kind="chapters">): a numbered cue per chapter, its
 * title the cue's text on one line, escaped as every cue's text is (so no "-->" can occur in it, WebVTT 4.1).
 */
export function chaptersWebVtt(chapters: readonly Chapter[]): string {
  let out = 'WEBVTT\n';
  chapters.forEach((c, i) => {
    const title = escapeVttText(c.title.replace(/\s+/g, ' ').trim());
    out += `\n${i + 1}\n${formatTimestamp(c.start * 1000, '.')} --> ${formatTimestamp(Math.max(c.start, c.end) * 1000, '.')}\n${title}\n`;
  });
  return out;
}

// ---------------------------------------------------------------------------
// txt / json

/**
 * One segment per line (segment line breaks become spaces), "B: " where the speaker changes when speakers
 * were labelled; the full text when there are no segments.
 */
export function renderTxt(transcript: Pick<ExportableTranscript, 'segments' | 'text' | 'speakers'>): string {
  const segments = speakerPrefixed(transcript);
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

/**
 * The transcript object exactly as given (the API's transcript view), as
 * compact JSON: the same document GET /v1/transcripts/{id} returns.
 */
export function renderJson(t: ExportableTranscript): string {
  return JSON.stringify(t) + '\n';
}

// ---------------------------------------------------------------------------
// SRT / WebVTT

const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const PAD2 = PAD3.slice(0, 100).map((s) => s.slice(1));

/** Integer ms -> HH:MM:SS<sep>mmm. Out-of-range input is clamped to 00:00:00.000..99:59:59.999. */
export function formatTimestamp(ms: number, separator: ',' | '.'): string {
  let t = Math.round(ms);
  if (!(t > 0)) t = 0; // also NaN
  if (t > MAX_TIMESTAMP_MS) t = MAX_TIMESTAMP_MS;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor(t / 60_000) % 60;
  const s = Math.floor(t / 1000) % 60;
  return PAD2[h] + ':' + PAD2[m] + ':' + PAD2[s] + separator + PAD3[t % 1000];
}

const SRT_TAG_LIKE = /<([^<>]*)>/g;

/**
 * SubRip has no escaping, and players read "<...>" as formatting tags (ffmpeg,
 * and so mpv, drops "<welcome>" and turns "<br>" into a line break). Text that
 * looks like a tag is shown with the look-alike brackets ‹ › instead.
 */
export function escapeSrtText(text: string): string {
  if (text.indexOf('<') === -1 || text.indexOf('>') === -1) return text;
  return text.replace(SRT_TAG_LIKE, '\u2039$1\u203a');
}

/** SubRip: numbered from 1, "HH:MM:SS,mmm --> HH:MM:SS,mmm", a blank line between cues, LF line endings. */
export function serializeSrt(cues: readonly Cue[]): string {
  let out = '';
  for (let i = 0; i < cues.length; i++) {
    const c = cues[i];
    if (i > 0) out += '\n';
    out +=
      i +
      1 +
      '\n' +
      formatTimestamp(c.start, ',') +
      ' --> ' +
      formatTimestamp(c.end, ',') +
      '\n' +
      escapeSrtText(c.lines.join('\n')) +
      '\n';
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
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
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
  const folded = title
    .normalize('NFKD')
    .replace(COMBINING, '')
    .replace(FOLDABLE, (c) => FOLD[c] ?? '');
  return trimSlug(
    folded
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+/, ''),
  );
}

/** Lowercase Unicode slug: letters, marks and digits of any script kept, anything else becomes "-". */
export function unicodeSlug(title: string): string {
  const chars = Array.from(
    title
      .normalize('NFC')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
      .replace(/^-+/, ''),
  );
  let s = chars.length > SLUG_MAX ? chars.slice(0, SLUG_MAX).join('') : chars.join('');
  if (chars.length > SLUG_MAX) {
    const cut = s.lastIndexOf('-');
    if (cut >= SLUG_MAX / 4) s = s.slice(0, cut);
  }
  return s.replace(/^-+|-+$/g, '').replace(/^\p{M}+/u, '');
}

/**
 * "<slug>-<id8>[.<language>].<ext>" from the title (or "transcript-<id8>.<ext>" without a usable one).
 * `unicode` is set only when the title has non-ASCII letters worth keeping (for filename*).
 */
export function exportFilenames(transcript: ExportNaming, format: ExportFormat, language?: string): { ascii: string; unicode?: string } {
  const id8 = String(transcript.id ?? '')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 8)
    .toLowerCase();
  // A translation's file names its language ("…-1a2b3c4d.pt-BR.srt"), as players pick a subtitle file's language.
  const tag = language ? '.' + language.replace(/[^0-9A-Za-z-]/g, '') : '';
  const suffix = (id8 ? '-' + id8 : '') + tag + '.' + (format === 'chapters' ? 'chapters.vtt' : format);
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
