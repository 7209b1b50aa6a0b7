// Shapes of video and language discoveries as the platform layer hands them
// out (integrations/platforms/discovery.ts builds them; activities and domain
// store and show them). Field names are the API's, so a page can be stored and
// served as it is.

export type VideoDiscoveryKind =
  'videosite_search' | 'videosite_channel_videos' | 'videosite_channel_search' | 'videosite_playlist_videos' | 'shortvideo_user_videos';

/**
 * What to list. After normalizeDiscoveryInput: `query` trimmed with inner
 * whitespace collapsed; `channel` one of `@handle` (lower case),
 * `UC…` (24 characters), `https://www.youtube.com/c/<name>` or
 * `https://www.youtube.com/user/<name>`; `playlist` the bare list id; `user`
 * `@name` (lower case); `includeDetails` a boolean for the shortvideo kind and
 * absent otherwise. Only the fields of the kind are present.
 */
export interface VideoDiscoveryInput {
  kind: VideoDiscoveryKind;
  query?: string;
  channel?: string;
  playlist?: string;
  user?: string;
  includeDetails?: boolean;
}

/** Per-video details of `shortvideo_user_videos` with `includeDetails` (read from each video's page). */
export interface ShortvideoVideoDetails {
  like_count: number | null;
  comment_count: number | null;
  share_count: number | null;
  /** Without the `#`, in the order the description uses them, each once. */
  hashtags: string[];
  /** BCP 47 tags of the video's subtitle tracks (what `caption_languages` of a job can ask for), each once. */
  caption_languages: string[];
}

export interface DiscoveredVideo {
  platform: 'videosite' | 'shortvideo';
  video_id: string;
  /** Canonical watch URL (links.ts videositeCanonicalUrl / shortvideoCanonicalUrl). */
  url: string;
  title: string | null;
  /** videosite: the channel id (UC…); shortvideo: the author's secUid. */
  channel_id: string | null;
  channel_title: string | null;
  /** Whole seconds from the shown length ("12:34", "1:02:03"); null for live, upcoming or unknown. */
  duration_s: number | null;
  /**
   * ISO 8601, only when the platform gives an absolute date: shortvideo's
   * createTime; a videosite text such as "Premiered Mar 3, 2024" (a date
   * without time reads as midnight UTC). Relative texts ("3 weeks ago") leave it null.
   */
  published_at: string | null;
  /** As the platform shows it ("3 weeks ago", "Streamed 2 hours ago"); null when it shows none. */
  published_text: string | null;
  /**
   * Views. Exact from "1,234,567 views"; "No views" is 0. An abbreviated figure
   * ("1.2M views", "266m views", "390K views") is the shown number times its
   * unit (K/k = 10^3, M/m = 10^6, B/b/bn = 10^9): 1.2M → 1200000, so it is only
   * as precise as the platform's rounding. Null when the text is not a view
   * count (live "1,234 watching", absent). shortvideo: the play count.
   */
  view_count: number | null;
  /** The view text as shown (the fullest form the page gives); null when none is shown (shortvideo gives numbers only). */
  view_count_text: string | null;
  /** The largest thumbnail offered (https). */
  thumbnail_url: string | null;
  /** shortvideo with includeDetails; null otherwise. */
  shortvideo: ShortvideoVideoDetails | null;
}

/**
 * The channel (videosite channel kinds, on every page) or the user
 * (shortvideo) a listing belongs to.
 */
export interface DiscoveryProfile {
  platform: 'videosite' | 'shortvideo';
  /** videosite: channel id (UC…); shortvideo: the user's secUid (the id the platform's list API takes; handles can be renamed). */
  id: string;
  /** `@handle` / `@user`; null when the platform shows none. */
  handle: string | null;
  /** Channel title or the user's nickname. */
  title: string | null;
  /** https://www.youtube.com/channel/UC… or https://www.tiktok.com/@user. */
  url: string;
  /** Subscribers as the channel page shows them ("8.84K subscribers"); shortvideo: "<followerCount> followers". */
  subscriber_count_text: string | null;
  /** The largest avatar offered. */
  avatar_url: string | null;
  /** The channel description or the user's bio; null when empty. Always set by this layer (optional only for hand-built profiles). */
  description?: string | null;
}

/** Where a listing continues: the platform continuation token of the platform page being read (null = the first platform page) and how many of that page's videos were already handed out. */
export interface DiscoveryPosition {
  continuation: string | null;
  skip: number;
}

export interface DiscoveryPage {
  videos: DiscoveredVideo[];
  profile: DiscoveryProfile | null;
  next: DiscoveryPosition | null;
}

export interface CaptionTrackListing {
  /**
   * The tag to pass in `caption_languages` (with caption_preference
   * creator_only / automatic_only matching `kind`) to get exactly this track.
   * The platform's language code, except where one language has several
   * tracks of one kind (named creator tracks): those get a private-use
   * subtag, `<lang>-x-<name>` (caption-codes.ts).
   */
  language_code: string;
  /** Display name as the platform shows it ("English (auto-generated)"). */
  name: string;
  kind: 'creator' | 'automatic';
  /** The track a job without caption_languages gets. */
  is_default: boolean;
  /** The platform can machine-translate this track into other languages (this service never asks it to). */
  is_translatable: boolean;
}

export interface LanguageDiscoveryResult {
  video: { video_id: string; url: string; title: string | null; duration_s: number | null };
  /** In the platform's order; [] when the video has no captions. */
  tracks: CaptionTrackListing[];
}

export interface DiscoverySources {
  /** One page of exactly `limit` videos (fewer only on the last page), assembled from as many platform pages as needed, starting at `position` (null = start). No duplicate video ids within the page and none against the videos skipped at `position`; a continuation token the platform repeats ends the listing (next = null). */
  videoPage(input: VideoDiscoveryInput, position: DiscoveryPosition | null, limit: number, signal?: AbortSignal): Promise<DiscoveryPage>;
  /** The caption tracks of a videosite video. */
  captionLanguages(videoId: string, signal?: AbortSignal): Promise<LanguageDiscoveryResult>;
}
