import { ServiceError } from '../../core/errors';
import type { Outbound, OutboundResponse } from '../outbound/http';
import { chooseCaptionTrack, type ChoosableTrack } from './caption-choice';
import { parseCaptionBody, type ParsedCaptions } from './caption-formats';
import { DEFAULT_VIDEOSITE_CLIENTS, playerRequest, webRequest, type InnertubeClient } from './videosite-clients';
import { captionCodes } from './caption-codes';
import { isObject } from './json-shapes';
import { checkPlayability, textOf, type Refusal } from './videosite-playability';
import { sourceOriginOf, type CaptionOptions, type CaptionResult, type CaptionTrackInfo } from './types';

// Captions of one videosite video: ask the innertube clients in order for the
// player response, pick the track the job asked for, fetch it as json3 (any
// timed format that comes back is accepted) and turn it into segments. A
// refusal that is about the client (bot check, age gate, a PO-token track, an
// empty caption body) moves on to the next client; a refusal that is about
// the video (private, removed, region, no captions) ends the search at once.

export interface VideositeDeps {
  outbound: Outbound;
  /** Default DEFAULT_VIDEOSITE_CLIENTS. */
  clients?: readonly InnertubeClient[];
}

export interface VideositeCaptionResult extends CaptionResult {
  track: CaptionResult['track'] & { client: string };
}

export interface VideositeSource {
  fetchCaptions(videoId: string, options?: CaptionOptions): Promise<VideositeCaptionResult>;
  /** Every caption track of the video (language discovery); [] when it has none. */
  listCaptionTracks(videoId: string, options?: { signal?: AbortSignal }): Promise<CaptionTrackInfo[]>;
  /** The video's title and length with its caption tracks (language discovery), from the same player response a caption job reads. */
  describeCaptions(videoId: string, options?: { signal?: AbortSignal }): Promise<VideositeCaptionListing>;
  /** The video's own chapters (start seconds and title, in order); [] when it has none. */
  fetchChapters(videoId: string, options?: { signal?: AbortSignal }): Promise<ChapterMarker[]>;
  /**
   * The track fetchCaptions chooses, as the platform translates it into `translateTo` (its timedtext `tlang`);
   * null when the track is not translatable or the platform does not list that language.
   */
  fetchTranslatedCaptions(videoId: string, options: CaptionOptions & { translateTo: string }): Promise<TranslatedCaptions | null>;
  /**
   * For a video on air now (its player response's `videoDetails.isLive`), the HLS manifest the platform streams it
   * by (`streamingData.hlsManifestUrl`); null for any other video. A client whose answer for a live video has no
   * manifest is passed over for the next.
   */
  findLiveManifest(videoId: string, options?: { signal?: AbortSignal }): Promise<string | null>;
}

export interface TranslatedCaptions {
  /** The platform's code of the translation's language. */
  language: string;
  segments: Array<{ start: number; end: number; text: string }>;
}

export interface ChapterMarker {
  start: number;
  title: string;
}

export interface VideositeCaptionListing {
  title: string | null;
  durationSeconds: number | null;
  tracks: Array<CaptionTrackInfo & { is_translatable: boolean }>;
}

interface VideositeTrack extends ChoosableTrack {
  baseUrl: string;
  name: string;
  /** The code it is listed and asked for under (caption-codes.ts). */
  code: string;
  isTranslatable: boolean;
}

type Attempt<T> = { value: T } | { refusal: Refusal };

// When several clients refused for client-specific reasons, the most telling one is reported.
const REFUSAL_RANK: ServiceError['code'][] = [
  'SOURCE_AUTH_REQUIRED',
  'SOURCE_BLOCKED',
  'SOURCE_RATE_LIMITED',
  'SOURCE_NOT_FOUND',
  'SOURCE_CHANGED',
];

export function createVideositeSource(deps: VideositeDeps): VideositeSource {
  const clients = deps.clients ?? DEFAULT_VIDEOSITE_CLIENTS;
  if (clients.length === 0) throw new Error('videosite: at least one innertube client is needed');
  const { outbound } = deps;

  async function eachClient<T>(attempt: (client: InnertubeClient) => Promise<Attempt<T>>, signal?: AbortSignal): Promise<T> {
    const refusals: Refusal[] = [];
    for (const client of clients) {
      signal?.throwIfAborted();
      const result = await attempt(client);
      if ('value' in result) return result.value;
      if (!result.refusal.clientSpecific) throw result.refusal.error;
      refusals.push(result.refusal);
    }
    const rank = (r: Refusal) => {
      const i = REFUSAL_RANK.indexOf(r.error.code);
      return i === -1 ? REFUSAL_RANK.length : i;
    };
    throw refusals.reduce((best, r) => (rank(r) < rank(best) ? r : best)).error;
  }

  async function playerResponse(client: InnertubeClient, videoId: string, signal?: AbortSignal): Promise<Attempt<Record<string, unknown>>> {
    const request = playerRequest(client, videoId);
    const res = await outbound.fetchJson('videosite', request.url, {
      method: 'POST',
      headers: request.headers,
      json: request.json,
      signal,
      isBlocked: looksBlocked,
    });
    const refused = httpRefusal(res, `player (${client.id})`);
    if (refused) return { refusal: refused };
    if (res.json === undefined) return { refusal: pageRefusal(res.body, `player (${client.id})`) };
    // reel_item_watch wraps the player response; its `{}` (no such video) has nothing to unwrap.
    const pr =
      client.endpoint === 'reel_item_watch' && isObject(res.json) && 'playerResponse' in res.json ? res.json.playerResponse : res.json;
    const refusal = checkPlayability(pr);
    if (refusal) return { refusal };
    return { value: pr as Record<string, unknown> };
  }

  /** The player response and the caption track the job's options choose in it (caption-choice.ts). */
  async function chosenTrack(
    client: InnertubeClient,
    videoId: string,
    options: CaptionOptions,
  ): Promise<Attempt<{ player: { value: Record<string, unknown> }; track: VideositeTrack }>> {
    const player = await playerResponse(client, videoId, options.signal);
    if ('refusal' in player) return player;
    const tracks = readTracks(player.value);
    if ('refusal' in tracks) return tracks;
    const track = chooseCaptionTrack(tracks.value, { languages: options.captionLanguages, preference: options.captionPreference });
    return { value: { player, track } };
  }

  /** A caption track's body, parsed; a refusal for what a client may get wrong (throttling, a PO-token demand, a page). */
  async function trackBody(client: InnertubeClient, url: string, signal?: AbortSignal): Promise<Attempt<ParsedCaptions>> {
    const res = await outbound.fetchText('videosite', url, {
      headers: { 'user-agent': client.userAgent },
      signal,
      isBlocked: isRateLimitHtml,
    });
    const refused = httpRefusal(res, `captions (${client.id})`);
    if (refused) return { refusal: refused };
    // The platform's answer to a missing PO token is HTTP 200 with nothing in it.
    if (res.body.trim() === '')
      return refuse('SOURCE_BLOCKED', `captions (${client.id}): empty body with HTTP 200 (PO token demanded)`, true);
    if (isHtml(res.body)) return { refusal: pageRefusal(res.body, `captions (${client.id})`) };
    let parsed: ParsedCaptions;
    try {
      parsed = parseCaptionBody(res.body);
    } catch (err) {
      if (err instanceof ServiceError) return { refusal: { error: err, clientSpecific: true } };
      throw err;
    }
    return { value: parsed };
  }

  return {
    async fetchCaptions(videoId, options = {}) {
      const { signal } = options;
      return eachClient(async (client) => {
        const chosen = await chosenTrack(client, videoId, options);
        if ('refusal' in chosen) return chosen;
        const { player, track } = chosen.value;
        if (needsPoToken(track.baseUrl)) {
          return refuse('SOURCE_BLOCKED', `captions (${client.id}): track ${track.language} needs a PO token (exp=xpe)`, true);
        }

        const body = await trackBody(client, timedtextUrl(track.baseUrl), signal);
        if ('refusal' in body) return body;
        const parsed = body.value;
        if (parsed.segments.length === 0) throw new ServiceError('NO_CAPTIONS', `captions: track ${track.language} has no text`);

        return {
          value: {
            language: track.language,
            sourceOrigin: sourceOriginOf(track.kind),
            segments: parsed.segments,
            ...videoDetailsOf(player.value),
            track: { ...trackInfo(track), format: parsed.format, client: client.id },
          },
        };
      }, signal);
    },

    async listCaptionTracks(videoId, options = {}) {
      return eachClient(async (client) => {
        const player = await playerResponse(client, videoId, options.signal);
        if ('refusal' in player) return player;
        const tracks = readTracks(player.value);
        if ('refusal' in tracks) return tracks;
        return { value: tracks.value.map(trackInfo) };
      }, options.signal);
    },

    async findLiveManifest(videoId, options = {}) {
      return eachClient(async (client) => {
        const player = await playerResponse(client, videoId, options.signal);
        if ('refusal' in player) return player;
        const details = player.value.videoDetails as { isLive?: unknown } | undefined;
        if (details?.isLive !== true) return { value: null };
        const manifest = (player.value.streamingData as { hlsManifestUrl?: unknown } | undefined)?.hlsManifestUrl;
        if (typeof manifest === 'string' && manifest.startsWith('https://')) return { value: manifest };
        return refuse('SOURCE_CHANGED', `player (${client.id}): a live video without an HLS manifest`, true);
      }, options.signal);
    },

    async fetchChapters(videoId, options = {}) {
      // The watch page's own call: its answer lists the chapters (engagementPanels).
      const request = webRequest('next', { videoId, contentCheckOk: true, racyCheckOk: true });
      const res = await outbound.fetchJson('videosite', request.url, {
        method: 'POST',
        headers: request.headers,
        json: request.json,
        signal: options.signal,
        isBlocked: looksBlocked,
      });
      const refused = httpRefusal(res, 'next (WEB)');
      if (refused) throw refused.error;
      if (res.json === undefined) throw pageRefusal(res.body, 'next (WEB)').error;
      return readChapterMarkers(res.json);
    },

    async fetchTranslatedCaptions(videoId, options) {
      const { signal } = options;
      return eachClient(async (client) => {
        const chosen = await chosenTrack(client, videoId, options);
        if ('refusal' in chosen) return chosen;
        const { player, track } = chosen.value;
        const language = translationLanguageOf(player.value, options.translateTo);
        if (!track.isTranslatable || language === null) return { value: null };
        if (needsPoToken(track.baseUrl)) {
          return refuse('SOURCE_BLOCKED', `translated captions (${client.id}): track ${track.language} needs a PO token (exp=xpe)`, true);
        }
        const body = await trackBody(client, `${timedtextUrl(track.baseUrl)}&tlang=${encodeURIComponent(language)}`, signal);
        if ('refusal' in body) return body;
        return { value: { language, segments: body.value.segments } };
      }, signal);
    },

    async describeCaptions(videoId, options = {}) {
      return eachClient(async (client) => {
        const player = await playerResponse(client, videoId, options.signal);
        if ('refusal' in player) return player;
        const tracks = readTracks(player.value);
        if ('refusal' in tracks) return tracks;
        return {
          value: {
            ...videoDetailsOf(player.value),
            tracks: tracks.value.map((t) => ({ ...trackInfo(t), is_translatable: t.isTranslatable })),
          },
        };
      }, options.signal);
    },
  };
}

/**
 * The chapters of a `next` answer: the engagement panel of macro markers, the creator's chapters
 * (`…-description-chapters`) before the platform's automatic ones (`…-auto-chapters`). Each item's start is its
 * watch endpoint's startTimeSeconds (else its "1:02:03" time label). Key moments and other marker lists are not chapters.
 */
export function readChapterMarkers(next: unknown): ChapterMarker[] {
  const panels = isObject(next) && Array.isArray(next.engagementPanels) ? next.engagementPanels : [];
  const lists = new Map<string, unknown[]>();
  for (const panel of panels) {
    const section = isObject(panel) ? panel.engagementPanelSectionListRenderer : undefined;
    if (!isObject(section) || typeof section.panelIdentifier !== 'string') continue;
    const markers = isObject(section.content) ? section.content.macroMarkersListRenderer : undefined;
    if (isObject(markers) && Array.isArray(markers.contents)) lists.set(section.panelIdentifier, markers.contents);
  }
  const items =
    lists.get('engagement-panel-macro-markers-description-chapters') ?? lists.get('engagement-panel-macro-markers-auto-chapters') ?? [];
  const markers: ChapterMarker[] = [];
  for (const item of items) {
    const marker = isObject(item) ? item.macroMarkersListItemRenderer : undefined;
    if (!isObject(marker)) continue;
    const title = textOf(marker.title).trim();
    const endpoint = isObject(marker.onTap) && isObject(marker.onTap.watchEndpoint) ? marker.onTap.watchEndpoint : {};
    const start = typeof endpoint.startTimeSeconds === 'number' ? endpoint.startTimeSeconds : clockSeconds(textOf(marker.timeDescription));
    if (title && start !== null) markers.push({ start, title });
  }
  return markers;
}

/** "1:02:03" or "4:05" as seconds; null when it is neither. */
function clockSeconds(label: string): number | null {
  if (!/^\d{1,2}(:\d{2}){1,2}$/.test(label.trim())) return null;
  return label
    .trim()
    .split(':')
    .reduce((s, part) => s * 60 + Number(part), 0);
}

function videoDetailsOf(pr: Record<string, unknown>): { title: string | null; durationSeconds: number | null } {
  const details = isObject(pr.videoDetails) ? pr.videoDetails : {};
  const length = Number(details.lengthSeconds);
  return {
    title: typeof details.title === 'string' ? details.title : null,
    durationSeconds: Number.isFinite(length) && length > 0 ? length : null,
  };
}

function trackInfo(track: VideositeTrack): CaptionTrackInfo {
  return { language_code: track.code, name: track.name, kind: track.kind, is_default: track.isDefault };
}

/**
 * captions.playerCaptionsTracklistRenderer.captionTracks, with the default
 * track marked: the default audio track's defaultCaptionTrackIndex, else the
 * first creator track, else the first automatic one.
 */
function readTracks(pr: Record<string, unknown>): Attempt<VideositeTrack[]> {
  const renderer = isObject(pr.captions) ? pr.captions.playerCaptionsTracklistRenderer : undefined;
  if (!isObject(renderer) || renderer.captionTracks === undefined) return { value: [] };
  if (!Array.isArray(renderer.captionTracks)) return refuse('SOURCE_CHANGED', 'videosite: captionTracks is not a list', true);
  const tracks: VideositeTrack[] = [];
  const named: Array<{ trackName: string; vssId: string }> = [];
  for (const raw of renderer.captionTracks) {
    if (!isObject(raw) || typeof raw.baseUrl !== 'string' || typeof raw.languageCode !== 'string') {
      return refuse('SOURCE_CHANGED', 'videosite: caption track without baseUrl or languageCode', true);
    }
    const kind = raw.kind === 'asr' ? 'automatic' : 'creator';
    tracks.push({
      baseUrl: raw.baseUrl,
      language: raw.languageCode,
      code: raw.languageCode,
      kind,
      name: textOf(raw.name) || raw.languageCode,
      isDefault: false,
      isTranslatable: raw.isTranslatable === true,
    });
    named.push({
      trackName: typeof raw.trackName === 'string' ? raw.trackName : '',
      vssId: typeof raw.vssId === 'string' ? raw.vssId : '',
    });
  }
  captionCodes(tracks.map((t, i) => ({ language: t.language, kind: t.kind, ...named[i] }))).forEach((code, i) => {
    tracks[i].code = code;
  });
  const audioTracks = Array.isArray(renderer.audioTracks) ? renderer.audioTracks : [];
  const audio = audioTracks[typeof renderer.defaultAudioTrackIndex === 'number' ? renderer.defaultAudioTrackIndex : 0] ?? audioTracks[0];
  const declared =
    isObject(audio) && typeof audio.defaultCaptionTrackIndex === 'number' ? tracks[audio.defaultCaptionTrackIndex] : undefined;
  const fallback = tracks.find((t) => t.kind === 'creator') ?? tracks[0];
  const chosen = declared ?? fallback;
  if (chosen) chosen.isDefault = true;
  return { value: tracks };
}

/**
 * The platform's code of the language `tag` names in the player response's `translationLanguages`: the exact tag,
 * else one of its language (`pt` finds `pt`, `pt-BR` finds `pt` where only that is listed); null when not listed.
 */
export function translationLanguageOf(pr: Record<string, unknown>, tag: string): string | null {
  const renderer = isObject(pr.captions) ? pr.captions.playerCaptionsTracklistRenderer : undefined;
  const listed = isObject(renderer) && Array.isArray(renderer.translationLanguages) ? renderer.translationLanguages : [];
  const codes = listed.flatMap((l) => (isObject(l) && typeof l.languageCode === 'string' ? [l.languageCode] : []));
  const wanted = tag.toLowerCase();
  const primary = wanted.split('-')[0];
  return (
    codes.find((c) => c.toLowerCase() === wanted) ??
    codes.find((c) => c.toLowerCase() === primary) ??
    codes.find((c) => c.toLowerCase().split('-')[0] === primary) ??
    null
  );
}

/** exp=xpe / xpv: the track is only served with a PO token, which this service does not make. */
function needsPoToken(baseUrl: string): boolean {
  const exp = new URL(baseUrl, 'https://www.youtube.com').searchParams.get('exp') ?? '';
  return /\bxp[ev]\b/.test(exp);
}

/**
 * The track URL with fmt=json3. Edited as text so every other parameter (the
 * signed ones included) is sent byte for byte as the platform wrote it; xosf
 * is dropped because it adds position data to the text (yt-dlp #13654), tlang
 * because the original track is read without it (a translation adds its own, fetchTranslatedCaptions).
 */
export function timedtextUrl(baseUrl: string): string {
  const absolute = new URL(baseUrl, 'https://www.youtube.com').href;
  const q = absolute.indexOf('?');
  if (q === -1) return `${absolute}?fmt=json3`;
  const kept = absolute
    .slice(q + 1)
    .split('&')
    .filter((pair) => pair !== '' && !['fmt', 'xosf', 'tlang'].includes(pair.split('=')[0]));
  return `${absolute.slice(0, q)}?${[...kept, 'fmt=json3'].join('&')}`;
}

/**
 * The one mapping of a videosite answer's HTTP status to its error (player, captions and the discovery endpoints):
 * throttling, a refusal of our address, nothing there (the statuses an endpoint answers for an unknown id:
 * `missing`), or a change of the platform. null for a 2xx.
 */
export function httpRefusal(
  res: OutboundResponse & { json?: unknown },
  what: string,
  opts: { missing?: readonly number[] } = {},
): Refusal | null {
  if (res.status === 429 || isRateLimitHtml(res)) {
    return {
      error: new ServiceError(
        'SOURCE_RATE_LIMITED',
        `${what}: HTTP ${res.status}${res.status === 429 ? '' : ' with the unusual-traffic page'}`,
      ),
      clientSpecific: false,
    };
  }
  if (res.status >= 200 && res.status < 300) return null;
  if (res.status === 403) return { error: new ServiceError('SOURCE_BLOCKED', `${what}: HTTP 403`), clientSpecific: true };
  if (opts.missing?.includes(res.status))
    return { error: new ServiceError('SOURCE_NOT_FOUND', `${what}: HTTP ${res.status}${errorStatusOf(res.json)}`), clientSpecific: false };
  return { error: new ServiceError('SOURCE_CHANGED', `${what}: HTTP ${res.status}`), clientSpecific: true };
}

/** The `error.status` of a Google API error body (" NOT_FOUND"), or nothing. */
function errorStatusOf(json: unknown): string {
  const error = isObject(json) && isObject(json.error) ? json.error : null;
  return error && typeof error.status === 'string' ? ` ${error.status}` : '';
}

/** A page where JSON or captions were expected (the unusual-traffic page is already taken by httpRefusal). */
export function pageRefusal(body: string, what: string): Refusal {
  if (/consent\.youtube\.com/.test(body))
    return { error: new ServiceError('SOURCE_BLOCKED', `${what}: cookie consent page`), clientSpecific: true };
  return { error: new ServiceError('SOURCE_CHANGED', `${what}: unexpected ${isHtml(body) ? 'HTML page' : 'body'}`), clientSpecific: true };
}

export function isHtml(body: string): boolean {
  return /^\s*(<!doctype html|<html)/i.test(body.slice(0, 200));
}

export function isRateLimitPage(body: string): boolean {
  return /g-recaptcha|unusual traffic|\/sorry\/index/i.test(body);
}

/** Answers that are about our address: worth another egress proxy before anything else. */
export function looksBlocked(res: OutboundResponse): boolean {
  return isRateLimitHtml(res) || (res.body.includes('not a bot') && res.body.includes('playabilityStatus'));
}

export function isRateLimitHtml(res: OutboundResponse): boolean {
  return isHtml(res.body) && isRateLimitPage(res.body);
}

function refuse(code: ServiceError['code'], detail: string, clientSpecific: boolean): { refusal: Refusal } {
  return { refusal: { error: new ServiceError(code, detail), clientSpecific } };
}
