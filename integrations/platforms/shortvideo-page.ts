import { ServiceError } from '../../core/errors';
import type { OutboundResponse } from '../outbound/http';
import { isObject } from './json-shapes';

// Reads the shortvideo platform's video page: the item data is JSON in
// <script id="__UNIVERSAL_DATA_FOR_REHYDRATION__"> at
// __DEFAULT_SCOPE__["webapp.video-detail"] (older pages: <script id="SIGI_STATE">
// with ItemModule[<id>]). Status codes and the login / challenge cases follow
// yt-dlp's tiktok.py as summarised in the shared PROVENANCE protocol notes.

export interface ShortvideoSubtitle {
  url: string;
  /** `webvtt`, `srt` or `creator_caption` (JSON). */
  format: string;
  /** e.g. `eng-US`. */
  languageCodeName: string;
  /** `ASR`, `MT` (machine translation), `LC` or empty. */
  source: string;
}

export interface ShortvideoItem {
  title: string | null;
  durationSeconds: number | null;
  subtitles: ShortvideoSubtitle[];
}

/** A post's itemStruct (page data or an item list entry) that has its `video` object. */
export type ShortvideoItemStruct = Record<string, unknown> & { video: Record<string, unknown> };

const PRIVATE_STATUSES = new Set([10216, 10222]); // private post, private account
const BLOCKED_STATUS = 10204; // "Your IP address is blocked from accessing this post"

/** A bot-protection page ("Please wait...") instead of the video page. */
export function isChallengePage(body: string): boolean {
  return !/__UNIVERSAL_DATA_FOR_REHYDRATION__|SIGI_STATE/.test(body) && /\bid=["'](?:cs|wci)["']|_wafchallengeid/.test(body);
}

/** Worth another egress proxy: the answer is about our address. */
export function looksBlocked(res: OutboundResponse): boolean {
  return isChallengePage(res.body) || new RegExp(`"statusCode"\\s*:\\s*${BLOCKED_STATUS}\\b`).test(res.body);
}

export function isLoginUrl(url: string): boolean {
  return new URL(url).pathname.replace(/\/+$/, '') === '/login';
}

/** The answer's HTTP status and final URL checked the same way for every page of this platform (`what` names the page in details). */
export function checkPageResponse(res: OutboundResponse, what: string): void {
  if (isLoginUrl(res.url)) throw new ServiceError('SOURCE_AUTH_REQUIRED', `shortvideo: the ${what} redirects to the login page`);
  if (res.status === 429) throw new ServiceError('SOURCE_RATE_LIMITED', `shortvideo ${what}: HTTP 429`);
  if (res.status === 404 || res.status === 410) throw new ServiceError('SOURCE_NOT_FOUND', `shortvideo ${what}: HTTP ${res.status}`);
  if (res.status === 403) throw new ServiceError('SOURCE_BLOCKED', `shortvideo ${what}: HTTP 403`);
  if (res.status < 200 || res.status > 299) throw new ServiceError('SOURCE_CHANGED', `shortvideo ${what}: HTTP ${res.status}`);
}

/**
 * `__DEFAULT_SCOPE__` of the page's rehydration data; undefined when the page
 * has none (older SIGI_STATE pages); a challenge page is SOURCE_BLOCKED.
 */
export function rehydrationScope(body: string, what: string): Record<string, unknown> | undefined {
  const universal = scriptJson(body, '__UNIVERSAL_DATA_FOR_REHYDRATION__');
  if (universal !== undefined) return isObject(universal) && isObject(universal.__DEFAULT_SCOPE__) ? universal.__DEFAULT_SCOPE__ : {};
  if (isChallengePage(body)) throw new ServiceError('SOURCE_BLOCKED', `shortvideo ${what}: bot-protection challenge instead of the page`);
  return undefined;
}

export function readVideoPage(res: OutboundResponse, videoId: string): ShortvideoItem {
  return toShortvideoItem(readVideoItem(res, videoId));
}

/** The post's itemStruct as the page gives it, after every refusal the page can state (status codes, login, challenge). */
export function readVideoItem(res: OutboundResponse, videoId: string): ShortvideoItemStruct {
  checkPageResponse(res, 'page');
  const scope = rehydrationScope(res.body, 'page');
  if (scope !== undefined) {
    const detail = scope['webapp.video-detail'];
    if (!isObject(detail)) throw new ServiceError('SOURCE_CHANGED', 'shortvideo page: no webapp.video-detail in the rehydration data');
    const item = isObject(detail.itemInfo) ? detail.itemInfo.itemStruct : undefined;
    return checkItem(detail.statusCode, item);
  }
  const sigi = scriptJson(res.body, 'SIGI_STATE');
  if (sigi !== undefined && isObject(sigi)) {
    const status = isObject(sigi.VideoPage) ? sigi.VideoPage.statusCode : undefined;
    return checkItem(status, isObject(sigi.ItemModule) ? sigi.ItemModule[videoId] : undefined);
  }
  throw new ServiceError('SOURCE_CHANGED', 'shortvideo page: no rehydration data');
}

function checkItem(statusCode: unknown, item: unknown): ShortvideoItemStruct {
  const status = typeof statusCode === 'number' ? statusCode : 0;
  if (PRIVATE_STATUSES.has(status)) throw new ServiceError('SOURCE_PRIVATE', `shortvideo statusCode ${status}`);
  if (status === BLOCKED_STATUS) throw new ServiceError('SOURCE_BLOCKED', `shortvideo statusCode ${status}: address blocked for this post`);
  // yt-dlp reports any other code as "Video not available".
  if (status !== 0) throw new ServiceError('SOURCE_NOT_FOUND', `shortvideo statusCode ${status}`);
  if (!isObject(item)) throw new ServiceError('SOURCE_CHANGED', 'shortvideo page: statusCode 0 without itemStruct');
  if (!isObject(item.video)) {
    if (item.isContentClassified === true)
      throw new ServiceError('SOURCE_AUTH_REQUIRED', 'shortvideo: post restricted to signed-in adults (isContentClassified)');
    throw new ServiceError('SOURCE_CHANGED', 'shortvideo page: itemStruct without video');
  }
  return item as ShortvideoItemStruct;
}

/** The subtitle list of an itemStruct's video (entries without a URL are dropped). */
export function subtitlesOf(video: Record<string, unknown>): ShortvideoSubtitle[] {
  const infos = video.subtitleInfos;
  return (Array.isArray(infos) ? infos : []).filter(isObject).flatMap((s): ShortvideoSubtitle[] =>
    typeof s.Url === 'string' && s.Url !== ''
      ? [
          {
            url: s.Url,
            format: String(s.Format ?? ''),
            languageCodeName: String(s.LanguageCodeName ?? ''),
            source: String(s.Source ?? ''),
          },
        ]
      : [],
  );
}

function toShortvideoItem(item: ShortvideoItemStruct): ShortvideoItem {
  const duration = Number(item.video.duration);
  return {
    title: typeof item.desc === 'string' && item.desc.trim() !== '' ? item.desc : null,
    durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : null,
    subtitles: subtitlesOf(item.video),
  };
}

/** The JSON text of `<script id="...">`, parsed; undefined when the script is absent. */
export function scriptJson(html: string, id: string): unknown {
  const match = new RegExp(`<script\\b[^>]*\\bid=["']${id}["'][^>]*>([\\s\\S]*?)</script>`, 'i').exec(html);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]);
  } catch {
    throw new ServiceError('SOURCE_CHANGED', `shortvideo page: ${id} is not JSON`);
  }
}
