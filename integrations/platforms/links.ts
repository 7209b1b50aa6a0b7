import { createHash } from 'node:crypto';
import { ServiceError } from '../../core/errors';

// Turns a submitted link into the identity of what it points at. Every link
// form of one video must give the same mediaId and canonicalUrl: that pair is
// what result reuse ("a repeat of a video with the same options is free") and
// the job's `source` are built on.

export type LinkPlatform = 'videosite' | 'shortvideo' | 'photosocial' | 'direct' | 'hls';

export interface RecognizedLink {
  platform: LinkPlatform;
  /** videosite: 11-char id; shortvideo: numeric id, or `share:<code>` until resolved; photosocial: shortcode; direct and hls: sha256 hex of canonicalUrl. */
  mediaId: string;
  canonicalUrl: string;
  /** True for shortvideo share links: the numeric id is only known after following the redirect (integrations/platforms/shortvideo.ts). */
  needsResolve: boolean;
}

export const MAX_URL_LENGTH = 2048;

const VIDEOSITE_ID = /^[A-Za-z0-9_-]{11}$/;
// 64-bit ids, written in decimal (19 digits today).
const SHORTVIDEO_ID = /^\d{1,20}$/;
const SHARE_CODE = /^[A-Za-z0-9_-]{4,32}$/;
const PHOTOSOCIAL_CODE = /^[A-Za-z0-9_-]{5,64}$/;

const VIDEOSITE_HOSTS = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'music.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
]);
const VIDEOSITE_SHARE_HOSTS = new Set(['youtu.be', 'www.youtu.be']);
const SHORTVIDEO_HOSTS = new Set(['tiktok.com', 'www.tiktok.com', 'm.tiktok.com']);
const SHORTVIDEO_SHARE_HOSTS = new Set(['vm.tiktok.com', 'vt.tiktok.com']);
const PHOTOSOCIAL_HOSTS = new Set(['instagram.com', 'www.instagram.com', 'm.instagram.com']);
// Path prefixes that carry a videosite id as the next segment.
const VIDEOSITE_ID_PATHS = new Set(['shorts', 'live', 'embed', 'v', 'e']);
const PHOTOSOCIAL_KINDS = new Set(['p', 'reel', 'reels', 'tv']);

export function videositeCanonicalUrl(id: string): string {
  return `https://www.youtube.com/watch?v=${id}`;
}

/**
 * The user handle is not part of the identity: embed, mobile and share links
 * do not carry it and a creator can rename. The page answers for any handle
 * (cobalt fetches `/@i/video/<id>` in production, see shared PROVENANCE), so
 * one fixed placeholder keeps every link form of a video on one URL.
 */
export function shortvideoCanonicalUrl(id: string): string {
  return `https://www.tiktok.com/@i/video/${id}`;
}

export function recognizeLink(input: string): RecognizedLink {
  const url = parseHttpsUrl(input);
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const segments = url.pathname.split('/').filter((s) => s !== '');

  if (VIDEOSITE_HOSTS.has(host) || VIDEOSITE_SHARE_HOSTS.has(host)) return videositeLink(url, host, segments);
  if (isSubdomainOf(host, 'youtube.com')) throw unsupported(`source.url: ${host} links are not videos`);
  if (SHORTVIDEO_HOSTS.has(host) || SHORTVIDEO_SHARE_HOSTS.has(host)) return shortvideoLink(host, segments);
  if (isSubdomainOf(host, 'tiktok.com')) throw unsupported(`source.url: ${host} links are not videos`);
  if (PHOTOSOCIAL_HOSTS.has(host)) return photosocialLink(segments);
  return directLink(url);
}

function parseHttpsUrl(input: string): URL {
  if (typeof input !== 'string' || input.trim() === '') throw new ServiceError('INVALID_URL', 'source.url: empty');
  const raw = input.trim();
  if (raw.length > MAX_URL_LENGTH) throw new ServiceError('INVALID_URL', `source.url: longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServiceError('INVALID_URL', 'source.url: not a parseable URL');
  }
  if (url.protocol !== 'https:') throw new ServiceError('INVALID_URL', 'source.url: must use https');
  // Credentials would be sent to the platform and stored in canonical_url.
  if (url.username !== '' || url.password !== '') throw new ServiceError('INVALID_URL', 'source.url: must not contain credentials');
  if (url.hostname === '') throw new ServiceError('INVALID_URL', 'source.url: no host');
  return url;
}

function videositeLink(url: URL, host: string, segments: string[]): RecognizedLink {
  let id: string | null = null;
  if (VIDEOSITE_SHARE_HOSTS.has(host)) {
    if (segments.length === 1) id = segments[0];
  } else if (segments.length === 1 && segments[0] === 'watch') {
    id = url.searchParams.get('v');
  } else if (segments.length === 2 && VIDEOSITE_ID_PATHS.has(segments[0])) {
    id = segments[1];
  }
  // /embed/videoseries?list=... is a playlist player whose name happens to be 11 characters long.
  if (id === null || id === 'videoseries') throw unsupported(`source.url: not a video link (${host}${url.pathname})`);
  if (!VIDEOSITE_ID.test(id)) throw unsupported('source.url: video id must be 11 characters of A-Z a-z 0-9 _ -');
  return { platform: 'videosite', mediaId: id, canonicalUrl: videositeCanonicalUrl(id), needsResolve: false };
}

function shortvideoLink(host: string, segments: string[]): RecognizedLink {
  if (SHORTVIDEO_SHARE_HOSTS.has(host)) {
    if (segments.length === 1 && SHARE_CODE.test(segments[0])) return shareLink(host, segments[0]);
    throw unsupported(`source.url: not a share link (${host})`);
  }
  // www.tiktok.com/t/<code> is the in-app share form of vm./vt. links.
  if (segments.length === 2 && segments[0] === 't' && SHARE_CODE.test(segments[1])) return shareLink(host, segments[1], '/t');

  let id: string | null = null;
  if (segments.length === 3 && segments[0].startsWith('@') && segments[1] === 'video') id = segments[2];
  else if (segments.length === 2 && segments[0] === 'v' && segments[1].endsWith('.html')) id = segments[1].slice(0, -'.html'.length);
  else if (segments.length === 3 && segments[0] === 'embed' && segments[1] === 'v2') id = segments[2];
  else if (segments.length === 2 && segments[0] === 'embed') id = segments[1];
  else if (segments.length === 3 && segments[0] === 'player' && segments[1] === 'v1') id = segments[2];
  if (id === null) throw unsupported(`source.url: not a video link (${host}/${segments.join('/')})`);
  if (!SHORTVIDEO_ID.test(id)) throw unsupported('source.url: video id must be numeric');
  return { platform: 'shortvideo', mediaId: id, canonicalUrl: shortvideoCanonicalUrl(id), needsResolve: false };
}

function shareLink(host: string, code: string, prefix = ''): RecognizedLink {
  // Share codes are case-sensitive; the trailing slash is how the app writes them.
  const canonicalHost = host === 'tiktok.com' || host === 'm.tiktok.com' ? 'www.tiktok.com' : host;
  return {
    platform: 'shortvideo',
    mediaId: `share:${code}`,
    canonicalUrl: `https://${canonicalHost}${prefix}/${code}/`,
    needsResolve: true,
  };
}

function photosocialLink(segments: string[]): RecognizedLink {
  // /p/<code>, /reel/<code>, and the newer /<user>/p/<code> form.
  const at = PHOTOSOCIAL_KINDS.has(segments[0] ?? '') ? 0 : PHOTOSOCIAL_KINDS.has(segments[1] ?? '') ? 1 : -1;
  const code = at >= 0 ? segments[at + 1] : undefined;
  if (code === undefined || segments.length > at + 2) throw unsupported('source.url: not a post or reel link');
  if (!PHOTOSOCIAL_CODE.test(code)) throw unsupported('source.url: malformed post code');
  // One shortcode names one media item whichever path shows it.
  return { platform: 'photosocial', mediaId: code, canonicalUrl: `https://www.instagram.com/p/${code}/`, needsResolve: false };
}

/** An HLS playlist link: its path ends in .m3u8 (or .m3u), the names RFC 8216 §4 gives playlists. */
export function isHlsPlaylistPath(url: URL): boolean {
  return /\.m3u8?$/i.test(url.pathname);
}

/** Whether `input` is an https link to an HLS playlist (a live job's source); false for anything else, even invalid links. */
export function isHlsPlaylistLink(input: string): boolean {
  try {
    return recognizeLink(input).platform === 'hls';
  } catch {
    return false;
  }
}

function directLink(url: URL): RecognizedLink {
  // The fragment never reaches the server; everything else (including query
  // order, which signed media URLs depend on) is kept as given.
  const normalised = new URL(url.href);
  normalised.hash = '';
  normalised.hostname = normalised.hostname.replace(/\.$/, '');
  const canonicalUrl = normalised.href;
  const mediaId = createHash('sha256').update(canonicalUrl).digest('hex');
  // A playlist is followed as a live stream (a live job), not fetched as one file.
  return { platform: isHlsPlaylistPath(normalised) ? 'hls' : 'direct', mediaId, canonicalUrl, needsResolve: false };
}

function isSubdomainOf(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function unsupported(detail: string): ServiceError {
  return new ServiceError('UNSUPPORTED_SOURCE', detail);
}
