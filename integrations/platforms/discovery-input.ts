import { ServiceError } from '../../core/errors';
import type { VideoDiscoveryInput, VideoDiscoveryKind } from './discovery-types';

// A discovery request's listing fields, checked and written one way before any
// network call: the API answers a malformed value with 422 at POST, and the
// canonical form is what the short cache and the cursor binding compare, so
// every spelling of one channel, playlist or user must come out the same.

type Field = 'query' | 'channel' | 'playlist' | 'user';

const FIELDS: Record<VideoDiscoveryKind, readonly Field[]> = {
  videosite_search: ['query'],
  videosite_channel_videos: ['channel'],
  videosite_channel_search: ['channel', 'query'],
  videosite_playlist_videos: ['playlist'],
  shortvideo_user_videos: ['user'],
};

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
// Handles: 3–30 characters of letters (any script), digits, `_`, `-`, `.`. Checked loosely
// (1–100, no URL syntax or spaces) so that a rule change on the platform does not turn into 422s.
const HANDLE = /^[^\s/?#&%@:]{1,100}$/u;
// Legacy /c/<name> and /user/<name> names.
const LEGACY_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
// Playlist ids: PL…, UU…, OLAK5uy_…, RD…, FL…, LL, WL: base64url characters.
const PLAYLIST_ID = /^[A-Za-z0-9_-]{2,64}$/;
// Shortvideo user names: letters, digits, `_` and `.` (old accounts may also be all digits); a little looser.
const USER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const VIDEOSITE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com']);
const PLAYLIST_HOSTS = new Set([...VIDEOSITE_HOSTS, 'youtu.be', 'www.youtu.be', 'youtube-nocookie.com', 'www.youtube-nocookie.com']);
const SHORTVIDEO_HOSTS = new Set(['tiktok.com', 'www.tiktok.com', 'm.tiktok.com']);

/** The kinds' fields checked and canonicalised; throws INVALID_REQUEST naming the field (details.detail) for anything recognisably malformed. */
export function normalizeDiscoveryInput(input: VideoDiscoveryInput): VideoDiscoveryInput {
  const fields = FIELDS[input.kind];
  if (fields === undefined) throw invalid('kind', `unknown kind ${String(input.kind)}`);
  for (const field of ['query', 'channel', 'playlist', 'user'] as const) {
    const value = input[field];
    if (value === undefined) {
      if (fields.includes(field)) throw invalid(field, `required for kind ${input.kind}`);
    } else if (!fields.includes(field)) {
      throw invalid(field, `does not apply to kind ${input.kind}`);
    } else if (typeof value !== 'string') {
      throw invalid(field, 'must be a string');
    }
  }
  const shortvideo = input.kind === 'shortvideo_user_videos';
  if (input.includeDetails !== undefined && (!shortvideo || typeof input.includeDetails !== 'boolean')) {
    throw invalid('include_details', shortvideo ? 'must be a boolean' : 'applies to shortvideo_user_videos only');
  }

  const out: VideoDiscoveryInput = { kind: input.kind };
  if (input.query !== undefined) out.query = normalizeQuery(input.query);
  if (input.channel !== undefined) out.channel = normalizeChannel(input.channel);
  if (input.playlist !== undefined) out.playlist = normalizePlaylist(input.playlist);
  if (input.user !== undefined) out.user = normalizeUser(input.user);
  if (shortvideo) out.includeDetails = input.includeDetails === true;
  return out;
}

/** Trimmed, runs of white space as one space: the platform searches them alike. */
export function normalizeQuery(raw: string): string {
  const query = raw.replace(/\s+/gu, ' ').trim();
  if (query === '') throw invalid('query', 'empty');
  return query;
}

/**
 * `@handle` (lower case: handles are case-insensitive), a `UC…` id as is, and
 * the legacy custom and user names as their URL (they need resolving and are
 * not handles). Links: youtube.com/@h, /channel/UC…, /c/<name>, /user/<name>,
 * with or without a tab (/videos) or query after them.
 */
export function normalizeChannel(raw: string): string {
  const value = raw.trim();
  if (value === '') throw invalid('channel', 'empty');
  if (CHANNEL_ID.test(value)) return value;
  if (value.startsWith('@')) return handle(value.slice(1));
  const url = parseLink(value, 'channel');
  if (url === null || !VIDEOSITE_HOSTS.has(url.host)) {
    throw invalid('channel', 'expected an @handle, a channel id (UC + 22 characters) or a channel URL');
  }
  const [first, second] = url.segments;
  if (first?.startsWith('@')) return handle(first.slice(1));
  if (first === 'channel' && second !== undefined) {
    if (!CHANNEL_ID.test(second)) throw invalid('channel', 'a channel id is UC followed by 22 characters of A-Z a-z 0-9 _ -');
    return second;
  }
  if ((first === 'c' || first === 'user') && second !== undefined) {
    if (!LEGACY_NAME.test(second)) throw invalid('channel', `malformed /${first}/ name`);
    return `https://www.youtube.com/${first}/${second}`;
  }
  throw invalid('channel', 'not a channel URL (expected /@handle, /channel/UC…, /c/<name> or /user/<name>)');
}

/** The list id, from the id itself or from `list=` of any videosite URL. */
export function normalizePlaylist(raw: string): string {
  const value = raw.trim();
  if (value === '') throw invalid('playlist', 'empty');
  let id = value;
  if (!PLAYLIST_ID.test(value)) {
    const url = parseLink(value, 'playlist');
    if (url === null) throw invalid('playlist', 'a playlist id has only A-Z a-z 0-9 _ - (or give a URL with list=)');
    if (!PLAYLIST_HOSTS.has(url.host)) throw invalid('playlist', `${url.host} is not a videosite host`);
    const list = url.searchParams.get('list');
    if (list === null || list === '') throw invalid('playlist', 'the URL has no list= parameter');
    id = list;
  }
  if (!PLAYLIST_ID.test(id)) throw invalid('playlist', 'a playlist id has only A-Z a-z 0-9 _ - (2 to 64 characters)');
  return id;
}

/** `@name` in lower case (user names are case-insensitive), from `@name`, `name` or a profile URL. */
export function normalizeUser(raw: string): string {
  const value = raw.trim();
  if (value === '') throw invalid('user', 'empty');
  let name: string;
  if (value.startsWith('@')) name = value.slice(1);
  else if (USER_NAME.test(value) && !value.includes('.com')) name = value;
  else {
    const url = parseLink(value, 'user');
    if (url === null || !SHORTVIDEO_HOSTS.has(url.host)) throw invalid('user', 'expected @user or a profile URL (tiktok.com/@user)');
    const first = url.segments[0];
    if (first === undefined || !first.startsWith('@') || url.segments.length > 1) {
      throw invalid('user', 'not a profile URL (expected tiktok.com/@user)');
    }
    name = first.slice(1);
  }
  if (!USER_NAME.test(name)) throw invalid('user', 'a user name has only A-Z a-z 0-9 _ . (up to 64 characters)');
  return `@${name.toLowerCase()}`;
}

function handle(name: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    throw invalid('channel', 'malformed @handle');
  }
  if (!HANDLE.test(decoded)) throw invalid('channel', 'malformed @handle');
  return `@${decoded.toLowerCase()}`;
}

interface Link {
  host: string;
  segments: string[];
  searchParams: URLSearchParams;
}

/** An http(s) URL, or one written without its scheme ("youtube.com/@h"); null when the text is no URL. */
function parseLink(value: string, field: Field): Link | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : /^[\w-]+(\.[\w-]+)+\//.test(value) ? `https://${value}` : null;
  if (withScheme === null) return null;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(field, 'only http(s) links');
  return {
    host: url.hostname.toLowerCase().replace(/\.$/, ''),
    segments: url.pathname.split('/').filter((s) => s !== ''),
    searchParams: url.searchParams,
  };
}

function invalid(field: string, why: string): ServiceError {
  // As api/http/envelope.ts does for schema failures: the field in details.detail, the reason in the message.
  return new ServiceError('INVALID_REQUEST', field, { message: `${field}: ${why}` });
}
