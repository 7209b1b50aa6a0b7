import { ServiceError } from '../../core/errors';
import type { Outbound } from '../outbound/http';
import { assemblePage, type PlatformPage } from './discovery-paging';
import type { DiscoveryPage, DiscoveryPosition, DiscoveryProfile, VideoDiscoveryInput } from './discovery-types';
import { isObject } from './json-shapes';
import { webRequest } from './videosite-clients';
import { alertError, parseChannelProfile, parseListing } from './videosite-listing';
import { checkPlayability } from './videosite-playability';
import { httpRefusal, isHtml, looksBlocked, pageRefusal } from './videosite';

// The videosite kinds of video discovery, as the web client asks for them
// (requests as recorded, shared PROVENANCE "paging with continuation tokens"):
//
//   search          POST /search {query, params: videos only}
//   channel videos  [POST /navigation/resolve_url {url}] → POST /browse {browseId, params: Videos tab}
//   channel search  [resolve] → POST /browse {browseId, params: Search tab, query}
//   playlist        POST /browse {browseId: 'VL' + id}
//   next pages      POST /search or /browse {continuation}
//
// The channel of the channel kinds is on every page (profile, and the channel
// of each video, which the channel's own tab does not repeat): a first page
// carries it; a page that starts at a continuation reads it with a small
// browse restricted to header and metadata, in parallel with the listing.

// Request parameters as the 2026 recordings send them (URL-encoded base64 protobuf, as the web client writes them).
const SEARCH_VIDEOS_ONLY = 'EgIQAfABAQ%3D%3D';
const CHANNEL_VIDEOS_TAB = 'EgZ2aWRlb3PyBgQKAjoA';
const CHANNEL_SEARCH_TAB = 'EgZzZWFyY2jyBgQKAloA';
const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;

type Endpoint = 'search' | 'browse' | 'navigation/resolve_url';

export interface VideositeLister {
  page(input: VideoDiscoveryInput, position: DiscoveryPosition | null, limit: number, signal?: AbortSignal): Promise<DiscoveryPage>;
}

export function createVideositeLister(outbound: Outbound): VideositeLister {
  /** One web-client call; every refusal the answer can state becomes its ServiceError. */
  async function call(endpoint: Endpoint, body: Record<string, unknown>, signal?: AbortSignal, fields?: string) {
    const request = webRequest(endpoint, body, fields);
    const what = `videosite ${endpoint}`;
    const res = await outbound.fetchJson('videosite', request.url, {
      method: 'POST',
      headers: request.headers,
      json: request.json,
      signal,
      isBlocked: looksBlocked,
    });
    // The consent page comes with any status: it is a refusal of our address, whatever the status says.
    if (isHtml(res.body) && /consent\.youtube\.com/.test(res.body)) throw pageRefusal(res.body, what).error;
    // INVALID_ARGUMENT (a malformed browseId) and NOT_FOUND (resolve_url of an unknown handle): nothing there.
    const refused = httpRefusal(res, what, { missing: [400, 404] });
    if (refused) throw refused.error;
    if (!isObject(res.json)) throw pageRefusal(res.body, what).error;
    // A bot check can come as a player-style refusal.
    if (res.json.playabilityStatus !== undefined) {
      const refusal = checkPlayability(res.json);
      if (refusal) throw refusal.error;
    }
    return res.json;
  }

  /** The browseId (UC…) of a normalised channel: as is, or resolved from @handle, /c/ or /user/. */
  async function channelId(channel: string, signal?: AbortSignal): Promise<string> {
    if (CHANNEL_ID.test(channel)) return channel;
    const url = channel.startsWith('@') ? `https://www.youtube.com/${encodeURI(channel)}` : channel;
    const json = await call('navigation/resolve_url', { url }, signal);
    const endpoint = isObject(json.endpoint) ? json.endpoint : {};
    const browse = isObject(endpoint.browseEndpoint) ? endpoint.browseEndpoint : {};
    if (typeof browse.browseId !== 'string' || !CHANNEL_ID.test(browse.browseId)) {
      throw new ServiceError('SOURCE_NOT_FOUND', `videosite: ${channel} does not lead to a channel`);
    }
    return browse.browseId;
  }

  /** The channel's header and metadata only. */
  async function channelProfile(browseId: string, signal?: AbortSignal): Promise<DiscoveryProfile> {
    const json = await call('browse', { browseId, params: CHANNEL_VIDEOS_TAB }, signal, 'header,metadata,alerts');
    const alert = alertError(json.alerts);
    if (alert) throw alert;
    const profile = parseChannelProfile(json);
    if (profile === null) throw new ServiceError('SOURCE_CHANGED', `videosite: no channel metadata for ${browseId}`);
    return profile;
  }

  /** The first request of a listing. */
  async function firstRequest(input: VideoDiscoveryInput, browseId: () => Promise<string>): Promise<Record<string, unknown>> {
    switch (input.kind) {
      case 'videosite_search':
        return { query: required(input.query, 'query'), params: SEARCH_VIDEOS_ONLY };
      case 'videosite_channel_videos':
        return { browseId: await browseId(), params: CHANNEL_VIDEOS_TAB };
      case 'videosite_channel_search':
        return { browseId: await browseId(), params: CHANNEL_SEARCH_TAB, query: required(input.query, 'query') };
      case 'videosite_playlist_videos':
        return { browseId: `VL${required(input.playlist, 'playlist')}` };
      default:
        throw new Error(`videosite lister: not a videosite kind: ${input.kind}`);
    }
  }

  return {
    async page(input, position, limit, signal) {
      const isChannel = input.kind === 'videosite_channel_videos' || input.kind === 'videosite_channel_search';
      const endpoint = input.kind === 'videosite_search' ? 'search' : 'browse';
      // Resolved at most once per page, and only when needed.
      let resolving: Promise<string> | null = null;
      const browseId = () => (resolving ??= channelId(required(input.channel, 'channel'), signal));

      let profile: Promise<DiscoveryProfile> | null = null;
      if (isChannel && position !== null && position.continuation !== null) {
        // Starting at a continuation: the channel comes from its own small request, alongside.
        profile = settledLater(browseId().then((id) => channelProfile(id, signal)));
      }

      const fetch = async (token: string | null): Promise<PlatformPage> => {
        if (token !== null) return parseListing(await call(endpoint, { continuation: token }, signal));
        const listing = parseListing(await call(endpoint, await firstRequest(input, browseId), signal));
        if (isChannel && profile === null) {
          profile =
            listing.profile !== null ? Promise.resolve(listing.profile) : settledLater(browseId().then((id) => channelProfile(id, signal)));
        }
        return listing;
      };

      const assembled = await assemblePage(fetch, position, limit);
      const channel = profile === null ? null : await profile;
      // The channel's own tabs do not name the channel on each video.
      const videos =
        channel === null
          ? assembled.videos
          : assembled.videos.map((v) =>
              v.channel_id === null ? { ...v, channel_id: channel.id, channel_title: v.channel_title ?? channel.title } : v,
            );
      return { videos, profile: channel, next: assembled.next };
    },
  };
}

/** A promise awaited only after other work: its failure must not count as unhandled meanwhile (it is rethrown when awaited). */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

function required(value: string | undefined, field: string): string {
  if (value === undefined) throw new ServiceError('INVALID_REQUEST', field, { message: `${field}: required` });
  return value;
}

/** `: INVALID_ARGUMENT` from the platform's JSON error body, for the detail. */
