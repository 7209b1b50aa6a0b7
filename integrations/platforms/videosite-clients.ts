// The innertube clients asked for a video's player response, in order. Each
// one is a different app the platform serves; a video refused to one (bot
// check, an age gate, a track that needs a PO token) is often fine on another.
// Versions and device fields follow the clients NewPipeExtractor recorded on
// 2026-06-07 (shared fixtures, PROVENANCE "Protocol notes").

export interface InnertubeClient {
  /** For logs and the result's track.client. */
  id: string;
  /**
   * `player`: POST /youtubei/v1/player {videoId}. `reel_item_watch`: the ANDROID
   * app's short-form endpoint, same player response wrapped in {playerResponse}
   * (NewPipe's first choice in 2026; answers a nonexistent id with `{}`).
   */
  endpoint: 'player' | 'reel_item_watch';
  userAgent: string;
  /** `context.client` of the request body. */
  client: Record<string, string | number>;
}

export const INNERTUBE_HOST = 'https://youtubei.googleapis.com';

const ANDROID_CONTEXT = {
  clientName: 'ANDROID',
  clientVersion: '21.03.36',
  clientScreen: 'WATCH',
  platform: 'MOBILE',
  osName: 'Android',
  osVersion: '16',
  androidSdkVersion: 36,
  hl: 'en',
  gl: 'US',
  utcOffsetMinutes: 0,
};
const ANDROID_UA = 'com.google.android.youtube/21.03.36 (Linux; U; Android 16; US) gzip';

export const ANDROID_REEL: InnertubeClient = {
  id: 'ANDROID_REEL',
  endpoint: 'reel_item_watch',
  userAgent: ANDROID_UA,
  client: ANDROID_CONTEXT,
};

export const ANDROID_PLAYER: InnertubeClient = { id: 'ANDROID', endpoint: 'player', userAgent: ANDROID_UA, client: ANDROID_CONTEXT };

export const VISIONOS_PLAYER: InnertubeClient = {
  id: 'VISIONOS',
  endpoint: 'player',
  userAgent: 'com.google.visionos.youtube/1.02(RealityDevice14,1; U; CPU visionOS 25_6_0 like Mac OS X; US)',
  client: {
    clientName: 'VISIONOS',
    clientVersion: '1.02',
    clientScreen: 'WATCH',
    platform: 'MOBILE',
    deviceMake: 'Apple',
    deviceModel: 'RealityDevice14,1',
    osName: 'visionOS',
    osVersion: '25.6.0.23O471',
    hl: 'en',
    gl: 'US',
    utcOffsetMinutes: 0,
  },
};

export const DEFAULT_VIDEOSITE_CLIENTS: readonly InnertubeClient[] = [ANDROID_REEL, VISIONOS_PLAYER, ANDROID_PLAYER];

export function playerRequest(client: InnertubeClient, videoId: string): { url: string; headers: Record<string, string>; json: unknown } {
  const context = { client: client.client, request: { internalExperimentFlags: [], useSsl: true }, user: { lockedSafetyMode: false } };
  const player = { videoId, contentCheckOk: true, racyCheckOk: true };
  const headers = { 'user-agent': client.userAgent, 'x-goog-api-format-version': '2', 'content-type': 'application/json' };
  if (client.endpoint === 'reel_item_watch') {
    return {
      url: `${INNERTUBE_HOST}/youtubei/v1/reel/reel_item_watch?prettyPrint=false&$fields=playerResponse`,
      headers,
      json: { context, playerRequest: player, disablePlayerResponse: false },
    };
  }
  return { url: `${INNERTUBE_HOST}/youtubei/v1/player?prettyPrint=false`, headers, json: { context, ...player } };
}

// The desktop web client, for listings (/search, /browse, /navigation/resolve_url) and a video's chapters (/next):
// only its answers carry the search results and channel tabs the recordings show
// (shared PROVENANCE, "paging with continuation tokens"). Version as recorded on
// 2026-05-21; hl=en so that counts and dates come in the English forms
// discovery-text.ts reads.
export const WEB_ORIGIN = 'https://www.youtube.com';
export const WEB_CLIENT_VERSION = '2.20260519.10.00';
const WEB_CONTEXT = {
  client: {
    clientName: 'WEB',
    clientVersion: WEB_CLIENT_VERSION,
    hl: 'en',
    gl: 'US',
    originalUrl: WEB_ORIGIN,
    platform: 'DESKTOP',
    utcOffsetMinutes: 0,
  },
  request: { internalExperimentFlags: [], useSsl: true },
  user: { lockedSafetyMode: false },
};

/**
 * POST www.youtube.com/youtubei/v1/<endpoint> as the web client. `fields`
 * restricts the answer to some top-level keys (`$fields=header,metadata`), as
 * NewPipe does for headers. SOCS=CAE= is the "reject all" consent cookie
 * NewPipe sends: without it, answers from the EU may be the consent wall.
 */
export function webRequest(
  endpoint: 'search' | 'browse' | 'navigation/resolve_url' | 'next',
  body: Record<string, unknown>,
  fields?: string,
): { url: string; headers: Record<string, string>; json: unknown } {
  const query = fields === undefined ? 'prettyPrint=false' : `$fields=${fields}&prettyPrint=false`;
  return {
    url: `${WEB_ORIGIN}/youtubei/v1/${endpoint}?${query}`,
    headers: {
      'content-type': 'application/json',
      origin: WEB_ORIGIN,
      referer: `${WEB_ORIGIN}/`,
      cookie: 'SOCS=CAE=',
      'x-youtube-client-name': '1',
      'x-youtube-client-version': WEB_CLIENT_VERSION,
    },
    json: { context: WEB_CONTEXT, ...body },
  };
}
