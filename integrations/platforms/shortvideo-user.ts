import { ServiceError } from '../../core/errors';
import type { Outbound, OutboundResponse } from '../outbound/http';
import type { DiscoveredVideo, DiscoveryPage, DiscoveryProfile, ShortvideoVideoDetails } from './discovery-types';
import { countOf } from './discovery-text';
import { isObject } from './json-shapes';
import { shortvideoCanonicalUrl } from './links';
import { captionLanguagesOf } from './shortvideo';
import {
  checkPageResponse,
  looksBlocked,
  readVideoItem,
  rehydrationScope,
  subtitlesOf,
  type ShortvideoItemStruct,
} from './shortvideo-page';

// shortvideo_user_videos: the user's newest videos, one page of at most 10.
//
//   1. GET https://www.tiktok.com/@<user>: the profile page's rehydration data,
//      __DEFAULT_SCOPE__["webapp.user-detail"] → statusCode and
//      userInfo.{user (id, uniqueId, nickname, secUid, privateAccount, …), stats}
//      (yt-dlp tiktok.py TikTokUserIE reads secUid and videoCount there).
//   2. GET https://www.tiktok.com/api/post/item_list/?secUid=…&count=…&cursor=0
//      → {statusCode, itemList[], hasMore} (TikTok-Api's user videos call).
//      Not asked when the account shows no videos.
//   3. With includeDetails, each listed video's page (the page a caption job
//      reads, shortvideo-page.ts) for its counts, hashtags and subtitle
//      languages; the list's own numbers stand in when a page says the video
//      is gone or private.
//
// Nothing real was recorded for this platform: the shapes follow the protocol
// notes and the hand-made fixtures in test/fixtures-handmade/shortvideo/.
// Assumed (unverified): user statusCode 10222 = private account (yt-dlp), any
// other non-zero code = no such user; an empty 200 from the item list is the
// platform refusing an unsigned request (TikTok-Api's EmptyResponseException,
// "they are detecting you're a bot"), so SOURCE_BLOCKED.

export const SHORTVIDEO_MAX_LIMIT = 10;
const PRIVATE_ACCOUNT = 10222;
const BLOCKED = 10204;
const PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
// Video pages read at once for includeDetails (the outbound layer's per-platform limit applies as well).
const DETAIL_CONCURRENCY = 4;

interface UserInfo {
  user: Record<string, unknown>;
  stats: Record<string, unknown>;
}

export function createShortvideoLister(outbound: Outbound) {
  async function userInfo(name: string, signal?: AbortSignal): Promise<UserInfo> {
    const res = await outbound.fetchText('shortvideo', `https://www.tiktok.com/@${name}`, {
      headers: PAGE_HEADERS,
      redirect: 'follow',
      signal,
      isBlocked: looksBlocked,
    });
    return readUserPage(res);
  }

  async function itemList(secUid: string, count: number, profileUrl: string, signal?: AbortSignal): Promise<unknown[]> {
    const query = new URLSearchParams({
      aid: '1988',
      app_language: 'en',
      app_name: 'tiktok_web',
      device_platform: 'web_pc',
      count: String(count),
      cursor: '0',
      secUid,
    });
    const res = await outbound.fetchJson('shortvideo', `https://www.tiktok.com/api/post/item_list/?${query.toString()}`, {
      headers: { referer: profileUrl },
      signal,
    });
    if (res.status === 429) throw new ServiceError('SOURCE_RATE_LIMITED', 'shortvideo item list: HTTP 429');
    if (res.status === 403) throw new ServiceError('SOURCE_BLOCKED', 'shortvideo item list: HTTP 403');
    if (res.status < 200 || res.status > 299) throw new ServiceError('SOURCE_CHANGED', `shortvideo item list: HTTP ${res.status}`);
    if (res.body.trim() === '') throw new ServiceError('SOURCE_BLOCKED', 'shortvideo item list: empty answer (unsigned request refused)');
    if (!isObject(res.json)) throw new ServiceError('SOURCE_CHANGED', 'shortvideo item list: not JSON');
    const status = typeof res.json.statusCode === 'number' ? res.json.statusCode : 0;
    if (status === PRIVATE_ACCOUNT) throw new ServiceError('SOURCE_PRIVATE', `shortvideo item list: statusCode ${status}`);
    if (status === BLOCKED) throw new ServiceError('SOURCE_BLOCKED', `shortvideo item list: statusCode ${status}`);
    if (status !== 0) throw new ServiceError('SOURCE_CHANGED', `shortvideo item list: statusCode ${status}`);
    return Array.isArray(res.json.itemList) ? res.json.itemList : [];
  }

  /** Counts, hashtags and subtitle languages of one video, from its page; the list entry's own when the page refuses for this video only. */
  async function detailsOf(item: Record<string, unknown>, id: string, signal?: AbortSignal): Promise<ShortvideoVideoDetails> {
    let source: Record<string, unknown> = item;
    try {
      const res = await outbound.fetchText('shortvideo', shortvideoCanonicalUrl(id), {
        headers: PAGE_HEADERS,
        redirect: 'follow',
        signal,
        isBlocked: looksBlocked,
      });
      source = readVideoItem(res, id);
    } catch (err) {
      // Gone, private or age-gated since the list was made: the list's numbers still describe it.
      const final = err instanceof ServiceError && ['SOURCE_NOT_FOUND', 'SOURCE_PRIVATE', 'SOURCE_AUTH_REQUIRED'].includes(err.code);
      if (!final) throw err;
    }
    const stats = { ...statsOf(item), ...definedOnly(statsOf(source)) };
    const video = isObject(source.video) ? source.video : isObject(item.video) ? item.video : {};
    return {
      like_count: countOf(stats.diggCount),
      comment_count: countOf(stats.commentCount),
      share_count: countOf(stats.shareCount),
      hashtags: hashtagsOf(source, item),
      caption_languages: captionLanguagesOf(subtitlesOf(video)),
    };
  }

  return {
    async page(user: string, limit: number, includeDetails: boolean, signal?: AbortSignal): Promise<DiscoveryPage> {
      const name = user.replace(/^@/, '');
      const count = Math.min(Math.max(1, Math.floor(limit)), SHORTVIDEO_MAX_LIMIT);
      const info = await userInfo(name, signal);
      const profile = profileOf(info, name);
      if (countOf(info.stats.videoCount) === 0) return { videos: [], profile, next: null };

      const raw = await itemList(profile.id, count, profile.url, signal);
      const items: Array<{ item: ShortvideoItemStruct | Record<string, unknown>; id: string }> = [];
      const seen = new Set<string>();
      for (const item of raw) {
        const id = isObject(item) ? idOf(item.id) : null;
        if (id === null || seen.has(id)) continue;
        seen.add(id);
        items.push({ item: item as Record<string, unknown>, id });
        if (items.length === count) break;
      }
      const details = includeDetails
        ? await mapLimit(items, DETAIL_CONCURRENCY, ({ item, id }) => detailsOf(item, id, signal))
        : items.map(() => null);
      const videos = items.map(({ item, id }, i) => videoOf(item, id, profile, details[i]));
      // One page only (the API has no paging for this kind).
      return { videos, profile, next: null };
    },
  };
}

/** statusCode and userInfo of the profile page. */
function readUserPage(res: OutboundResponse): UserInfo {
  checkPageResponse(res, 'profile page');
  const scope = rehydrationScope(res.body, 'profile page');
  const detail = scope?.['webapp.user-detail'];
  if (!isObject(detail)) throw new ServiceError('SOURCE_CHANGED', 'shortvideo profile page: no webapp.user-detail in the rehydration data');
  const status = typeof detail.statusCode === 'number' ? detail.statusCode : 0;
  const userInfo = isObject(detail.userInfo) ? detail.userInfo : {};
  const user = isObject(userInfo.user) ? userInfo.user : null;
  const stats = isObject(userInfo.stats) ? userInfo.stats : isObject(userInfo.statsV2) ? userInfo.statsV2 : {};
  if (status === PRIVATE_ACCOUNT) throw new ServiceError('SOURCE_PRIVATE', `shortvideo user: statusCode ${status} (private account)`);
  if (status === BLOCKED) throw new ServiceError('SOURCE_BLOCKED', `shortvideo user: statusCode ${status}`);
  if (status !== 0) throw new ServiceError('SOURCE_NOT_FOUND', `shortvideo user: statusCode ${status}`);
  if (user === null || typeof user.secUid !== 'string' || user.secUid === '') {
    throw new ServiceError('SOURCE_NOT_FOUND', 'shortvideo user: the page names no user');
  }
  // Not signed in, nobody sees a private account's videos.
  if (user.privateAccount === true) throw new ServiceError('SOURCE_PRIVATE', 'shortvideo user: private account');
  return { user, stats };
}

function profileOf(info: UserInfo, name: string): DiscoveryProfile {
  const { user, stats } = info;
  const uniqueId = typeof user.uniqueId === 'string' && user.uniqueId !== '' ? user.uniqueId : name;
  const followers = countOf(stats.followerCount);
  const avatar = [user.avatarLarger, user.avatarMedium, user.avatarThumb].find((u): u is string => typeof u === 'string' && u !== '');
  return {
    platform: 'shortvideo',
    id: user.secUid as string,
    handle: `@${uniqueId}`,
    title: typeof user.nickname === 'string' && user.nickname !== '' ? user.nickname : null,
    url: `https://www.tiktok.com/@${uniqueId}`,
    subscriber_count_text: followers === null ? null : `${followers} followers`,
    avatar_url: avatar ?? null,
    description: typeof user.signature === 'string' && user.signature.trim() !== '' ? user.signature.trim() : null,
  };
}

function videoOf(
  item: Record<string, unknown>,
  id: string,
  profile: DiscoveryProfile,
  details: ShortvideoVideoDetails | null,
): DiscoveredVideo {
  const video = isObject(item.video) ? item.video : {};
  const author = isObject(item.author) ? item.author : {};
  const stats = statsOf(item);
  const duration = countOf(video.duration);
  const created = countOf(item.createTime);
  const cover = [video.originCover, video.cover, video.dynamicCover].find((u): u is string => typeof u === 'string' && u !== '');
  return {
    platform: 'shortvideo',
    video_id: id,
    url: shortvideoCanonicalUrl(id),
    title: typeof item.desc === 'string' && item.desc.trim() !== '' ? item.desc : null,
    channel_id: typeof author.secUid === 'string' && author.secUid !== '' ? author.secUid : profile.id,
    channel_title: typeof author.nickname === 'string' && author.nickname !== '' ? author.nickname : profile.title,
    duration_s: duration !== null && duration > 0 ? duration : null,
    published_at: created !== null && created > 0 ? new Date(created * 1000).toISOString() : null,
    published_text: null,
    view_count: countOf(stats.playCount),
    view_count_text: null,
    thumbnail_url: cover ?? null,
    shortvideo: details,
  };
}

/** stats, with statsV2's decimal strings filling the gaps. */
function statsOf(item: Record<string, unknown>): Record<string, unknown> {
  const v2 = isObject(item.statsV2) ? item.statsV2 : {};
  const v1 = isObject(item.stats) ? item.stats : {};
  return { ...v2, ...definedOnly(v1) };
}

function definedOnly(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null));
}

/**
 * Hashtags without `#`, each once (case-insensitively, first spelling kept):
 * the page's textExtra and challenges, then the list entry's, then any `#tag`
 * of the description the structured lists missed.
 */
function hashtagsOf(...sources: Array<Record<string, unknown>>): string[] {
  const names: string[] = [];
  for (const src of sources) {
    for (const extra of Array.isArray(src.textExtra) ? src.textExtra : []) {
      if (isObject(extra) && typeof extra.hashtagName === 'string') names.push(extra.hashtagName);
    }
    for (const challenge of Array.isArray(src.challenges) ? src.challenges : []) {
      if (isObject(challenge) && typeof challenge.title === 'string') names.push(challenge.title);
    }
  }
  for (const src of sources) {
    if (typeof src.desc === 'string') for (const m of src.desc.matchAll(/#([\p{L}\p{N}_]+)/gu)) names.push(m[1]);
  }
  const seen = new Set<string>();
  return names
    .map((n) => n.replace(/^#/, '').trim())
    .filter((n) => {
      const key = n.toLowerCase();
      if (n === '' || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** Ids are 64-bit: only their decimal string is exact (a JSON number would have lost digits). */
function idOf(value: unknown): string | null {
  return typeof value === 'string' && /^\d{1,20}$/.test(value) ? value : null;
}

async function mapLimit<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
