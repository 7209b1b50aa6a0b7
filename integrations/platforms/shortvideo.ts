import { ServiceError } from '../../core/errors';
import { recognizeLink, shortvideoCanonicalUrl } from './links';
import type { Outbound } from '../outbound/http';
import { chooseCaptionTrack, type ChoosableTrack } from './caption-choice';
import { parseCaptionBody } from './caption-formats';
import { normaliseLanguageTag } from './language-tags';
import { isLoginUrl, looksBlocked, readVideoPage, type ShortvideoSubtitle } from './shortvideo-page';
import { sourceOriginOf, type CaptionOptions, type CaptionResult, type CaptionTrackInfo } from './types';

// Captions of one shortvideo post: share links are resolved to the numeric id
// first; the video page carries the subtitle list (video.subtitleInfos), the
// chosen subtitle URL gives WebVTT (or the creator_caption JSON). Nothing real
// was recorded for this platform: the shapes follow the protocol notes and are
// exercised with the hand-made fixtures in test/fixtures-handmade/shortvideo/.

export interface ShortvideoDeps {
  outbound: Outbound;
}

export interface ShortvideoSource {
  /** A vm./vt./www.tiktok.com/t/ share link to the numeric id and canonical URL; other video links are returned as recognised. */
  resolveShareLink(url: string, options?: { signal?: AbortSignal }): Promise<{ mediaId: string; canonicalUrl: string }>;
  fetchCaptions(videoId: string, options?: CaptionOptions): Promise<CaptionResult>;
  listCaptionTracks(videoId: string, options?: { signal?: AbortSignal }): Promise<CaptionTrackInfo[]>;
}

interface ShortvideoTrack extends ChoosableTrack {
  subtitle: ShortvideoSubtitle;
}

const MAX_SHARE_HOPS = 5;
const PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
// Same language and kind offered in several formats: the timed text formats first (yt-dlp prefers vtt too).
const FORMAT_ORDER = ['webvtt', 'srt', 'creator_caption'];

export function createShortvideoSource(deps: ShortvideoDeps): ShortvideoSource {
  const { outbound } = deps;

  async function loadItem(videoId: string, signal?: AbortSignal) {
    if (!/^\d{1,20}$/.test(videoId))
      throw new ServiceError('UNSUPPORTED_SOURCE', 'shortvideo: media id must be the numeric video id (resolve share links first)');
    const res = await outbound.fetchText('shortvideo', shortvideoCanonicalUrl(videoId), {
      headers: PAGE_HEADERS,
      redirect: 'follow',
      signal,
      isBlocked: looksBlocked,
    });
    const item = readVideoPage(res, videoId);
    return { ...item, tracks: toTracks(item.subtitles) };
  }

  return {
    async resolveShareLink(url, options = {}) {
      let link = recognizeLink(url);
      if (link.platform !== 'shortvideo') throw new ServiceError('UNSUPPORTED_SOURCE', 'source.url: not a shortvideo link');
      for (let hop = 0; link.needsResolve; hop++) {
        if (hop === MAX_SHARE_HOPS)
          throw new ServiceError('SOURCE_CHANGED', `shortvideo share link: more than ${MAX_SHARE_HOPS} redirects`);
        const res = await outbound.fetchText('shortvideo', link.canonicalUrl, { headers: PAGE_HEADERS, signal: options.signal });
        link = nextLink(res.status, res.headers.location, res.body, link.canonicalUrl);
      }
      return { mediaId: link.mediaId, canonicalUrl: link.canonicalUrl };
    },

    async fetchCaptions(videoId, options = {}) {
      const item = await loadItem(videoId, options.signal);
      const track = chooseCaptionTrack(item.tracks, { languages: options.captionLanguages, preference: options.captionPreference });
      const res = await outbound.fetchText('shortvideo', track.subtitle.url, {
        headers: { referer: 'https://www.tiktok.com/' },
        signal: options.signal,
      });
      if (res.status === 429) throw new ServiceError('SOURCE_RATE_LIMITED', 'shortvideo captions: HTTP 429');
      // Subtitle URLs are signed and expire; a fresh page gives fresh ones, so these are retryable.
      if (res.status === 403) throw new ServiceError('SOURCE_BLOCKED', 'shortvideo captions: HTTP 403');
      if (res.status < 200 || res.status > 299) throw new ServiceError('SOURCE_CHANGED', `shortvideo captions: HTTP ${res.status}`);
      if (res.body.trim() === '') throw new ServiceError('SOURCE_CHANGED', 'shortvideo captions: empty body');
      const parsed = parseCaptionBody(res.body);
      if (parsed.segments.length === 0) throw new ServiceError('NO_CAPTIONS', `captions: track ${track.language} has no text`);
      return {
        language: track.language,
        sourceOrigin: sourceOriginOf(track.kind),
        segments: parsed.segments,
        title: item.title,
        durationSeconds: item.durationSeconds,
        track: { ...trackInfo(track), format: parsed.format },
      };
    },

    async listCaptionTracks(videoId, options = {}) {
      const item = await loadItem(videoId, options.signal);
      // One entry per language and kind: the other formats of the same track are not separate tracks.
      const byKey = new Map<string, CaptionTrackInfo>();
      for (const track of item.tracks) {
        const key = `${track.language}|${track.kind}`;
        if (!byKey.has(key)) byKey.set(key, trackInfo(track));
      }
      return [...byKey.values()];
    },
  };
}

/**
 * `Format: creator_caption` or `Source: LC` are taken as the creator's own
 * captions, everything else (ASR, MT) as automatic. An assumption from the
 * protocol notes, not checked against a recording. Machine translations come
 * after the original-language tracks; the default track is the first creator
 * track, else the first automatic one that is not a translation.
 */
function toTracks(subtitles: ShortvideoSubtitle[]): ShortvideoTrack[] {
  const formatRank = (format: string) => (FORMAT_ORDER.includes(format) ? FORMAT_ORDER.indexOf(format) : FORMAT_ORDER.length);
  const rank = (s: ShortvideoSubtitle) => (s.source === 'MT' ? 10 : 0) + formatRank(s.format);
  const tracks = [...subtitles]
    .sort((a, b) => rank(a) - rank(b))
    .map((subtitle): ShortvideoTrack => ({
      subtitle,
      language: normaliseLanguageTag(subtitle.languageCodeName) || 'und',
      kind: subtitle.format === 'creator_caption' || subtitle.source === 'LC' ? 'creator' : 'automatic',
      isDefault: false,
    }));
  const byDefault = tracks.find((t) => t.kind === 'creator') ?? tracks.find((t) => t.subtitle.source !== 'MT') ?? tracks[0];
  if (byDefault) byDefault.isDefault = true;
  return tracks;
}

/** The languages a caption job can ask for on a post (video discovery's caption_languages), default track's first, each once. */
export function captionLanguagesOf(subtitles: ShortvideoSubtitle[]): string[] {
  const tracks = toTracks(subtitles);
  const languages = [...tracks.filter((t) => t.isDefault), ...tracks].map((t) => t.language);
  return [...new Set(languages)];
}

function trackInfo(track: ShortvideoTrack): CaptionTrackInfo {
  return { language_code: track.language, name: track.subtitle.languageCodeName, kind: track.kind, is_default: track.isDefault };
}

/** One hop of a share link: a redirect to the video page, or (seen with vt. links) a page that links to it. */
function nextLink(status: number, location: string | undefined, body: string, from: string): ReturnType<typeof recognizeLink> {
  if (status === 429) throw new ServiceError('SOURCE_RATE_LIMITED', 'shortvideo share link: HTTP 429');
  if (status === 404 || status === 410) throw new ServiceError('SOURCE_NOT_FOUND', `shortvideo share link: HTTP ${status}`);
  let target: string | undefined;
  if (status >= 300 && status <= 399 && location) target = new URL(location, from).href;
  else if (status >= 200 && status <= 299)
    target = /https:\/\/(?:www\.|m\.)?tiktok\.com\/(?:@[^/"'?\s<>]+\/video|v)\/\d+[^"'\s<>]*/.exec(body.replace(/\\\//g, '/'))?.[0];
  else throw new ServiceError('SOURCE_CHANGED', `shortvideo share link: HTTP ${status}`);
  if (target === undefined) throw new ServiceError('SOURCE_NOT_FOUND', 'shortvideo share link: leads to no video');
  if (isLoginUrl(target)) throw new ServiceError('SOURCE_AUTH_REQUIRED', 'shortvideo share link: redirects to the login page');
  try {
    const link = recognizeLink(target.replace(/&amp;/g, '&'));
    if (link.platform === 'shortvideo') return link;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
  }
  // The app sends dead share codes to the home page or a "not found" page.
  throw new ServiceError('SOURCE_NOT_FOUND', `shortvideo share link: leads to ${new URL(target).pathname}, not a video`);
}
