import type { Segment } from '../../core/timing';
// Shapes shared by the platform caption sources (videosite, shortvideo) and
// handed to the Temporal activities that call them.

export type CaptionPreference = 'prefer_creator' | 'creator_only' | 'automatic_only';
export type CaptionKind = 'creator' | 'automatic';
export type SourceOrigin = 'creator_captions' | 'platform_captions';
export type CaptionFormat = 'json3' | 'srv3' | 'srv2' | 'srv1' | 'vtt' | 'srt' | 'utterances';

/** Caption segments: non-empty single-line text, starts never decreasing. */
export type { Segment } from '../../core/timing';

/** One caption track as the language discovery lists it. */
export interface CaptionTrackInfo {
  language_code: string;
  name: string;
  kind: CaptionKind;
  is_default: boolean;
}

export interface CaptionOptions {
  /** Up to 5 BCP 47 tags in order of preference; empty or absent = the video's default track. */
  captionLanguages?: readonly string[];
  /** Default prefer_creator. */
  captionPreference?: CaptionPreference;
  signal?: AbortSignal;
}

export interface CaptionResult {
  /** The chosen track's language (BCP 47). */
  language: string;
  sourceOrigin: SourceOrigin;
  segments: Segment[];
  title: string | null;
  durationSeconds: number | null;
  track: CaptionTrackInfo & { format: CaptionFormat };
}

export function sourceOriginOf(kind: CaptionKind): SourceOrigin {
  return kind === 'creator' ? 'creator_captions' : 'platform_captions';
}

/** The platform side the caption activities need (activities/captions.ts); the worker wires the real clients behind the outbound layer. */
export interface CaptionSources {
  fetchCaptions(platform: 'videosite' | 'shortvideo', mediaId: string, options: CaptionOptions): Promise<CaptionResult>;
  /** Follows a share link to the video it names. */
  resolveShareLink(platform: 'shortvideo', url: string): Promise<{ mediaId: string; canonicalUrl: string }>;
  /** The video's own chapters (start seconds, title), in order; [] where the platform has none. */
  fetchChapters(platform: string, mediaId: string): Promise<Array<{ start: number; title: string }>>;
  /**
   * The caption track fetchCaptions chooses with these options, in the platform's own translation into
   * `translateTo`; null where the platform does not translate it (and on platforms without translations).
   */
  fetchTranslatedCaptions(
    platform: string,
    mediaId: string,
    options: CaptionOptions & { translateTo: string },
  ): Promise<{ language: string; segments: Segment[] } | null>;
  /** The HLS manifest of a video on air now (a live job follows it); null for any other video, and on platforms without live streams. */
  findLiveManifest(platform: string, mediaId: string): Promise<string | null>;
}
