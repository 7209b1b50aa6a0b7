import fs from 'node:fs/promises';
import path from 'node:path';
import { parse, types } from 'hls-parser';
import { ServiceError } from '../../core/errors';
import { safeFetch, type SafeFetchOptions } from '../fetch';
import type { Outbound, OutboundPlatform, OutboundResponse } from '../outbound/http';
import { httpRefusal } from '../platforms/videosite';
import { isHlsPlaylistHead } from '../storage/sniff-media';

// HLS (RFC 8216) as a live job reads it: the playlist fetched through the outbound rules like any direct link,
// parsed by hls-parser, and the media segments after a sequence number listed with their absolute URLs.

/** A playlist is text of a few kilobytes; a megabyte is far more than any real one. */
const MAX_PLAYLIST_BYTES = 1024 * 1024;
/** A media segment of a few seconds of audio and video; bounded well above what a 10 s segment of HD video weighs. */
export const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;

export interface HlsSegment {
  /** The media sequence number (EXT-X-MEDIA-SEQUENCE plus the segment's place). */
  seq: number;
  url: string;
  durationMs: number;
  /** The segment's media initialization section (EXT-X-MAP), for fragmented MP4; null for transport streams. */
  initUrl: string | null;
}

export interface HlsMediaPlaylist {
  /** The media playlist's own URL (a multivariant playlist's choice, or the URL given). */
  url: string;
  targetDurationMs: number;
  /** EXT-X-ENDLIST: nothing will be added. */
  ended: boolean;
  /** EXT-X-PLAYLIST-TYPE: EVENT and VOD playlists keep every segment from the first; a live one slides. */
  type: 'live' | 'event' | 'vod';
  segments: HlsSegment[];
}

/**
 * How a live job reaches its stream: a direct link through the outbound rules for customers' links (safeFetch:
 * the SSRF guard on every hop), a platform's stream through the outbound layer of its platform (its proxies and
 * limits, the test origin override).
 */
export interface HlsFetcher {
  /** The playlist's text and the URL that answered (after redirects). */
  playlist(url: string): Promise<{ text: string; finalUrl: string }>;
  /** A media segment (or initialization section) into `file`. */
  media(url: string, file: string): Promise<void>;
}

type FetchPolicy = Omit<SafeFetchOptions, 'toFile' | 'playlist'>;

/** A customer's link: safeFetch with the direct-link policy, files in `dir`. */
export function directHlsFetcher(dir: string, policy: FetchPolicy): HlsFetcher {
  let n = 0;
  return {
    async playlist(url) {
      const file = path.join(dir, `playlist-${n++}.m3u8`);
      const got = await safeFetch(url, { ...policy, toFile: file, playlist: true, maxBytes: MAX_PLAYLIST_BYTES, timeoutMs: 15_000 });
      try {
        return { text: await fs.readFile(got.file, 'utf8'), finalUrl: got.finalUrl };
      } finally {
        await fs.rm(got.file, { force: true });
      }
    },
    async media(url, file) {
      await safeFetch(url, { ...policy, toFile: file, maxBytes: MAX_SEGMENT_BYTES, timeoutMs: 60_000 });
    },
  };
}

/** A platform's stream (the videosite's live manifest and its segments) through that platform's outbound layer. */
export function platformHlsFetcher(outbound: Outbound, platform: OutboundPlatform): HlsFetcher {
  // The platform's own reading of an answer's status: 429 rate-limited, 403 blocked, 404 and 410 a stream gone.
  const refused = (res: OutboundResponse, what: string) => httpRefusal(res, what, { missing: [404, 410] })?.error;
  return {
    async playlist(url) {
      const res = await outbound.fetchText(platform, url, { redirect: 'follow' });
      const error = refused(res, 'live manifest');
      if (error) throw error;
      if (!isHlsPlaylistHead(Buffer.from(res.body.slice(0, 16))))
        throw new ServiceError('SOURCE_CHANGED', `${new URL(url).host} answered something other than an HLS playlist`);
      return { text: res.body, finalUrl: res.url };
    },
    async media(url, file) {
      const res = await outbound.fetchText(platform, url, { redirect: 'follow', binary: true, timeoutMs: 60_000 });
      const error = refused(res, 'live segment');
      if (error) throw error;
      await fs.writeFile(file, res.bytes ?? Buffer.alloc(0));
    },
  };
}

function parsePlaylist(text: string, url: string): types.MasterPlaylist | types.MediaPlaylist {
  try {
    return parse(text);
  } catch (err) {
    throw new ServiceError('UNSUPPORTED_MEDIA', `the HLS playlist at ${new URL(url).host} cannot be read: ${(err as Error).message}`);
  }
}

/**
 * The media playlist to follow for `url`. A multivariant playlist names its renditions: an audio-only rendition
 * (EXT-X-MEDIA TYPE=AUDIO with a URI, the default one first) is taken when there is one, since only the sound is
 * transcribed; otherwise the variant of the lowest bandwidth, whose audio is as good for speech and whose segments
 * are the lightest to fetch.
 */
export async function readMediaPlaylist(url: string, fetcher: HlsFetcher): Promise<HlsMediaPlaylist> {
  let { text, finalUrl } = await fetcher.playlist(url);
  let playlist = parsePlaylist(text, finalUrl);
  if (playlist.isMasterPlaylist) {
    const chosen = mediaPlaylistOf(playlist, finalUrl);
    ({ text, finalUrl } = await fetcher.playlist(chosen));
    playlist = parsePlaylist(text, finalUrl);
    if (playlist.isMasterPlaylist)
      throw new ServiceError('UNSUPPORTED_MEDIA', `the HLS playlist at ${new URL(finalUrl).host} names another multivariant playlist`);
  }
  return mediaPlaylist(playlist, finalUrl);
}

/** The URL of the rendition to follow in a multivariant playlist (see readMediaPlaylist). */
export function mediaPlaylistOf(playlist: types.MasterPlaylist, base: string): string {
  const audio = playlist.variants
    .flatMap((v) => v.audio)
    .filter((r) => r.uri)
    .sort((a, b) => Number(b.isDefault ?? false) - Number(a.isDefault ?? false));
  if (audio[0]?.uri) return new URL(audio[0].uri, base).href;
  const variants = playlist.variants.filter((v) => !v.isIFrameOnly).sort((a, b) => a.bandwidth - b.bandwidth);
  if (!variants[0]) throw new ServiceError('UNSUPPORTED_MEDIA', `the HLS playlist at ${new URL(base).host} lists no media playlist`);
  return new URL(variants[0].uri, base).href;
}

/** The segments of a parsed media playlist, with absolute URLs; encrypted media is refused (no keys are fetched). */
export function mediaPlaylist(playlist: types.MediaPlaylist, url: string): HlsMediaPlaylist {
  const host = new URL(url).host;
  const segments: HlsSegment[] = [];
  for (const s of playlist.segments) {
    if (s.key && s.key.method !== 'NONE')
      throw new ServiceError(
        'UNSUPPORTED_MEDIA',
        `the HLS stream at ${host} is encrypted (${s.key.method}); only clear media is transcribed`,
      );
    if (s.byterange) throw new ServiceError('UNSUPPORTED_MEDIA', `the HLS stream at ${host} uses byte ranges (EXT-X-BYTERANGE)`);
    // A gap (EXT-X-GAP) has no media: it is heard as nothing and its time passes.
    segments.push({
      seq: s.mediaSequenceNumber,
      url: new URL(s.uri, url).href,
      durationMs: Math.round(s.duration * 1000),
      initUrl: s.map?.uri ? new URL(s.map.uri, url).href : null,
    });
  }
  return {
    url,
    targetDurationMs: Math.round(playlist.targetDuration * 1000),
    ended: playlist.endlist,
    type: playlist.playlistType === 'EVENT' ? 'event' : playlist.playlistType === 'VOD' || playlist.endlist ? 'vod' : 'live',
    segments,
  };
}

/** How far back a live playlist is followed from where it stands when the job starts. */
export const LIVE_BACKLOG_MS = 30_000;

/**
 * Where a job starts following a playlist. An event or finished playlist is read from its first segment: all of
 * it is the recording. A live one slides: the job starts with what it still lists of the last LIVE_BACKLOG_MS
 * (a playlist keeps a few segments, so usually all of them), so the words that brought the user to the stream
 * are in the transcript, and a long time-shift window is not read from hours back.
 */
export function firstSegmentToFollow(playlist: HlsMediaPlaylist): number | null {
  const { segments } = playlist;
  if (segments.length === 0) return null;
  if (playlist.type !== 'live') return segments[0]!.seq;
  let fromEnd = 0;
  let first = segments.at(-1)!.seq;
  for (let i = segments.length - 1; i >= 0; i--) {
    fromEnd += segments[i]!.durationMs;
    if (fromEnd > LIVE_BACKLOG_MS) break;
    first = segments[i]!.seq;
  }
  return first;
}

/** Fetches one media segment (and its initialization section, when it has one) into `file`. */
export async function fetchSegment(segment: HlsSegment, file: string, fetcher: HlsFetcher): Promise<void> {
  if (!segment.initUrl) return fetcher.media(segment.url, file);
  // fMP4: the initialization section and the fragment read as one file.
  await fetcher.media(segment.initUrl, `${file}.init`);
  await fetcher.media(segment.url, `${file}.body`);
  await fs.writeFile(file, Buffer.concat([await fs.readFile(`${file}.init`), await fs.readFile(`${file}.body`)]));
  await fs.rm(`${file}.init`, { force: true });
  await fs.rm(`${file}.body`, { force: true });
}
