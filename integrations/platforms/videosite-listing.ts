import { ServiceError } from '../../core/errors';
import type { DiscoveredVideo, DiscoveryProfile } from './discovery-types';
import { absoluteDate, isPublishedText, isViewText, largestImage, parseDuration, parseViewCount } from './discovery-text';
import { isObject } from './json-shapes';
import { videositeCanonicalUrl } from './links';
import { textOf } from './videosite-playability';

// Reads one page of a videosite listing (WEB client answers of /search and
// /browse, first pages and continuations alike) into videos, the continuation
// token and the channel. It follows the known containers only (section lists,
// item sections, rich grids, playlist video lists, the onResponseReceived*
// actions) instead of searching the whole tree: a page is ~0.5 MB of JSON of
// which the listing is a small part, and a deep search would also pick up the
// videos of shelves, menus and recommendations that are not results.
//
// Items kept: videoRenderer (search, channel search), lockupViewModel with
// contentType VIDEO (channel tabs since 2026), playlistVideoRenderer
// (playlists; unplayable entries such as "[Private video]" are dropped),
// gridVideoRenderer (older grids). Everything else is skipped: shelves
// (shelfRenderer "Popular in …", reelShelfRenderer shorts, richSectionRenderer),
// shortsLockupViewModel, ads, channel and playlist results, non-video lockups.

export interface ListingPage {
  /** In the platform's order; may hold a video twice (the caller removes repeats). */
  videos: DiscoveredVideo[];
  /** The last continuation token of the page (the one that continues the listing); null = the listing ends here. */
  continuation: string | null;
  /** The channel, when the answer carries its metadata (channel tabs' first page); else null. */
  profile: DiscoveryProfile | null;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
// Containers are at most ~5 deep (tab → richGrid → richItem → lockup; sectionList → itemSection → playlistVideoList → item).
const MAX_DEPTH = 8;

/** A listing answer (already JSON-parsed). Throws the ServiceError an ERROR alert states, SOURCE_CHANGED when the answer has no listing at all. */
export function parseListing(json: unknown): ListingPage {
  if (!isObject(json)) throw changed('answer is not a JSON object');
  const alert = alertError(json.alerts);
  if (alert) throw alert;
  const acc: Acc = { videos: [], continuation: null };
  let found = false;

  const contents = json.contents;
  if (isObject(contents)) {
    const search = contents.twoColumnSearchResultsRenderer;
    if (isObject(search)) {
      found = true;
      const primary = isObject(search.primaryContents) ? search.primaryContents : {};
      items(primary.sectionListRenderer, acc, 0);
    }
    const browse = contents.twoColumnBrowseResultsRenderer;
    if (isObject(browse)) {
      found = true;
      const tab = selectedTab(browse.tabs);
      if (tab !== null) {
        const content = isObject(tab.content) ? tab.content : {};
        items(content.richGridRenderer, acc, 0);
        items(content.sectionListRenderer, acc, 0);
      }
    }
  }
  for (const key of ['onResponseReceivedActions', 'onResponseReceivedCommands', 'onResponseReceivedEndpoints'] as const) {
    const actions = json[key];
    if (!Array.isArray(actions)) continue;
    found = true;
    for (const action of actions) {
      if (!isObject(action)) continue;
      for (const name of ['appendContinuationItemsAction', 'reloadContinuationItemsCommand'] as const) {
        const body = action[name];
        if (isObject(body)) list(body.continuationItems, acc, 0);
      }
    }
  }
  if (!found) throw changed('answer has neither contents nor continuation items');
  return { videos: acc.videos, continuation: acc.continuation, profile: parseChannelProfile(json) };
}

interface Acc {
  videos: DiscoveredVideo[];
  continuation: string | null;
}

/** A container renderer ({contents: [...]}) or undefined. */
function items(container: unknown, acc: Acc, depth: number): void {
  if (isObject(container)) list(container.contents ?? container.items, acc, depth);
}

function list(entries: unknown, acc: Acc, depth: number): void {
  if (!Array.isArray(entries) || depth > MAX_DEPTH) return;
  for (const entry of entries) {
    if (isObject(entry)) item(entry, acc, depth + 1);
  }
}

function item(entry: Record<string, unknown>, acc: Acc, depth: number): void {
  // One renderer per entry; the key says what it is.
  for (const key in entry) {
    const value = entry[key];
    if (!isObject(value)) continue;
    switch (key) {
      case 'videoRenderer':
      case 'gridVideoRenderer':
        push(acc, fromVideoRenderer(value));
        break;
      case 'lockupViewModel':
        push(acc, fromLockup(value));
        break;
      case 'playlistVideoRenderer':
        push(acc, fromPlaylistVideo(value));
        break;
      case 'richItemRenderer':
        if (isObject(value.content)) item(value.content, acc, depth + 1);
        break;
      case 'itemSectionRenderer':
      case 'playlistVideoListRenderer':
      case 'sectionListRenderer':
      case 'richGridRenderer':
      case 'gridRenderer':
        items(value, acc, depth + 1);
        break;
      case 'continuationItemRenderer':
        acc.continuation = commandToken(value.continuationEndpoint) ?? commandToken(buttonCommand(value.button)) ?? acc.continuation;
        break;
      case 'continuationItemViewModel':
        acc.continuation =
          commandToken(isObject(value.continuationCommand) ? value.continuationCommand.innertubeCommand : undefined) ?? acc.continuation;
        break;
      default:
        break; // shelves, shorts, ads, channels, playlists, messages
    }
  }
}

function push(acc: Acc, video: DiscoveredVideo | null): void {
  if (video !== null) acc.videos.push(video);
}

/** continuationCommand.token of a command, or of one of the commands a commandExecutorCommand wraps. */
function commandToken(command: unknown, depth = 0): string | null {
  if (!isObject(command) || depth > 3) return null;
  const direct = isObject(command.continuationCommand) ? command.continuationCommand.token : undefined;
  if (typeof direct === 'string' && direct !== '') return direct;
  const wrapped = isObject(command.commandExecutorCommand) ? command.commandExecutorCommand.commands : undefined;
  if (Array.isArray(wrapped)) {
    for (const inner of wrapped) {
      const token = commandToken(inner, depth + 1);
      if (token !== null) return token;
    }
  }
  return null;
}

function buttonCommand(button: unknown): unknown {
  return isObject(button) && isObject(button.buttonRenderer) ? button.buttonRenderer.command : undefined;
}

/** The selected tab (tabRenderer or expandableTabRenderer), else the first one with content. */
function selectedTab(tabs: unknown): Record<string, unknown> | null {
  if (!Array.isArray(tabs)) return null;
  let withContent: Record<string, unknown> | null = null;
  for (const tab of tabs) {
    if (!isObject(tab)) continue;
    const renderer = isObject(tab.tabRenderer) ? tab.tabRenderer : isObject(tab.expandableTabRenderer) ? tab.expandableTabRenderer : null;
    if (renderer === null) continue;
    if (renderer.selected === true) return renderer;
    if (withContent === null && isObject(renderer.content)) withContent = renderer;
  }
  return withContent;
}

// --- video entries -----------------------------------------------------------

interface Parts {
  id: string;
  title: string | null;
  channelId: string | null;
  channelTitle: string | null;
  durationText: string | null;
  durationSeconds?: number | null;
  viewText: string | null;
  publishedText: string | null;
  thumbnail: string | null;
}

function entry(p: Parts): DiscoveredVideo {
  const duration = p.durationSeconds ?? parseDuration(p.durationText);
  return {
    platform: 'videosite',
    video_id: p.id,
    url: videositeCanonicalUrl(p.id),
    title: p.title,
    channel_id: p.channelId,
    channel_title: p.channelTitle,
    duration_s: duration,
    published_at: absoluteDate(p.publishedText),
    published_text: p.publishedText,
    view_count: parseViewCount(p.viewText),
    view_count_text: p.viewText,
    thumbnail_url: p.thumbnail,
    shortvideo: null,
  };
}

function fromVideoRenderer(r: Record<string, unknown>): DiscoveredVideo | null {
  if (typeof r.videoId !== 'string' || !VIDEO_ID.test(r.videoId)) return null;
  const owner = ownerOf(r.ownerText) ?? ownerOf(r.longBylineText) ?? ownerOf(r.shortBylineText);
  return entry({
    id: r.videoId,
    title: orNull(textOf(r.title)),
    channelId: owner?.id ?? null,
    channelTitle: owner?.title ?? null,
    durationText: orNull(textOf(r.lengthText)) ?? overlayTime(r.thumbnailOverlays),
    viewText: orNull(textOf(r.viewCountText)) ?? orNull(textOf(r.shortViewCountText)),
    publishedText: orNull(textOf(r.publishedTimeText)),
    thumbnail: largestImage(isObject(r.thumbnail) ? r.thumbnail.thumbnails : undefined),
  });
}

function fromPlaylistVideo(r: Record<string, unknown>): DiscoveredVideo | null {
  if (typeof r.videoId !== 'string' || !VIDEO_ID.test(r.videoId)) return null;
  // "[Private video]" / "[Deleted video]" entries: nothing a caption job could read.
  if (r.isPlayable === false) return null;
  const owner = ownerOf(r.shortBylineText);
  // videoInfo: "266m views", " • ", "11 months ago".
  const info = Array.isArray(isObject(r.videoInfo) ? r.videoInfo.runs : undefined)
    ? ((r.videoInfo as { runs: unknown[] }).runs.map((run) =>
        isObject(run) && typeof run.text === 'string' ? run.text.trim() : '',
      ) as string[])
    : [];
  const length = typeof r.lengthSeconds === 'string' && /^\d+$/.test(r.lengthSeconds) ? Number(r.lengthSeconds) : null;
  return entry({
    id: r.videoId,
    title: orNull(textOf(r.title)),
    channelId: owner?.id ?? null,
    channelTitle: owner?.title ?? orNull(textOf(r.shortBylineText)),
    durationText: orNull(textOf(r.lengthText)),
    durationSeconds: length,
    viewText: info.find(isViewText) ?? null,
    publishedText: info.find((t) => !isViewText(t) && isPublishedText(t)) ?? null,
    thumbnail: largestImage(isObject(r.thumbnail) ? r.thumbnail.thumbnails : undefined),
  });
}

function fromLockup(vm: Record<string, unknown>): DiscoveredVideo | null {
  if (vm.contentType !== 'LOCKUP_CONTENT_TYPE_VIDEO') return null;
  if (typeof vm.contentId !== 'string' || !VIDEO_ID.test(vm.contentId)) return null;
  const meta = path(vm, 'metadata', 'lockupMetadataViewModel');
  const title = path(meta, 'title');
  const image = path(vm, 'contentImage', 'thumbnailViewModel');
  let viewText: string | null = null;
  let publishedText: string | null = null;
  let channelId: string | null = null;
  let channelTitle: string | null = null;
  const rows = path(path(meta, 'metadata', 'contentMetadataViewModel'), 'metadataRows');
  for (const row of Array.isArray(rows) ? rows : []) {
    const parts = isObject(row) ? row.metadataParts : undefined;
    for (const part of Array.isArray(parts) ? parts : []) {
      const text = path(part, 'text');
      const content = isObject(text) && typeof text.content === 'string' ? text.content.trim() : '';
      if (content === '') continue;
      const browseId = path(path(path(path(text, 'commandRuns', 0), 'onTap'), 'innertubeCommand', 'browseEndpoint'), 'browseId');
      if (typeof browseId === 'string' && channelId === null) {
        channelId = browseId;
        channelTitle = content;
      } else if (viewText === null && isViewText(content)) viewText = content;
      else if (publishedText === null && isPublishedText(content)) publishedText = content;
    }
  }
  return entry({
    id: vm.contentId,
    title: isObject(title) && typeof title.content === 'string' ? orNull(title.content) : null,
    channelId,
    channelTitle,
    durationText: badgeTime(path(image, 'overlays')),
    viewText,
    publishedText,
    thumbnail: largestImage(path(path(image, 'image'), 'sources')),
  });
}

/** The length badge of a lockup thumbnail ("1:07:34"), null when the badges say LIVE/UPCOMING or nothing. */
function badgeTime(overlays: unknown): string | null {
  if (!Array.isArray(overlays)) return null;
  for (const overlay of overlays) {
    if (!isObject(overlay)) continue;
    const badges =
      path(overlay, 'thumbnailBottomOverlayViewModel', 'badges') ?? path(overlay, 'thumbnailOverlayBadgeViewModel', 'thumbnailBadges');
    for (const badge of Array.isArray(badges) ? badges : []) {
      const text = path(path(badge, 'thumbnailBadgeViewModel'), 'text');
      if (typeof text === 'string' && parseDuration(text) !== null) return text;
    }
  }
  return null;
}

/** The time overlay of a videoRenderer thumbnail, when lengthText is missing. */
function overlayTime(overlays: unknown): string | null {
  if (!Array.isArray(overlays)) return null;
  for (const overlay of overlays) {
    const text = textOf(path(path(overlay, 'thumbnailOverlayTimeStatusRenderer'), 'text'));
    if (parseDuration(text) !== null) return text;
  }
  return null;
}

/** The first run with a channel link: its text and browseId. */
function ownerOf(text: unknown): { id: string; title: string } | null {
  const runs = isObject(text) ? text.runs : undefined;
  if (!Array.isArray(runs)) return null;
  for (const run of runs) {
    const browseId = path(path(run, 'navigationEndpoint'), 'browseEndpoint');
    if (isObject(browseId) && typeof browseId.browseId === 'string' && isObject(run) && typeof run.text === 'string') {
      return { id: browseId.browseId, title: run.text };
    }
  }
  return null;
}

// --- channel profile -----------------------------------------------------------

/** The channel of a browse answer (metadata.channelMetadataRenderer, the page header); null when the answer has no channel metadata. */
export function parseChannelProfile(json: Record<string, unknown>): DiscoveryProfile | null {
  const meta = path(json.metadata, 'channelMetadataRenderer');
  if (!isObject(meta) || typeof meta.externalId !== 'string') return null;
  const id = meta.externalId;
  const header = path(path(json.header, 'pageHeaderRenderer', 'content'), 'pageHeaderViewModel');
  let handle: string | null = null;
  let subscribers: string | null = null;
  const rows = path(path(header, 'metadata', 'contentMetadataViewModel'), 'metadataRows');
  for (const row of Array.isArray(rows) ? rows : []) {
    const parts = isObject(row) ? row.metadataParts : undefined;
    for (const part of Array.isArray(parts) ? parts : []) {
      const content = path(path(part, 'text'), 'content');
      if (typeof content !== 'string') continue;
      if (handle === null && /^@\S+$/.test(content)) handle = content;
      else if (subscribers === null && /\bsubscribers?$/i.test(content)) subscribers = content;
    }
  }
  // Older header (c4TabbedHeaderRenderer), and the vanity URL the metadata keeps.
  const c4 = path(json.header, 'c4TabbedHeaderRenderer');
  handle ??= orNull(textOf(path(c4, 'channelHandleText'))) ?? handleOf(meta.vanityChannelUrl);
  subscribers ??= orNull(textOf(path(c4, 'subscriberCountText')));
  const avatar =
    largestImage(path(meta.avatar, 'thumbnails')) ??
    largestImage(path(path(path(header, 'image', 'decoratedAvatarViewModel'), 'avatar', 'avatarViewModel'), 'image', 'sources'));
  return {
    platform: 'videosite',
    id,
    handle,
    title: typeof meta.title === 'string' ? orNull(meta.title) : null,
    url: `https://www.youtube.com/channel/${id}`,
    subscriber_count_text: subscribers,
    avatar_url: avatar,
    description: typeof meta.description === 'string' ? orNull(meta.description.trim()) : null,
  };
}

function handleOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  const match = /\/(@[^/?#]+)/.exec(url);
  return match ? decodeURIComponent(match[1]) : null;
}

// --- alerts ------------------------------------------------------------------

// Checked in order on the text of an ERROR alert; the first that matches decides.
const ALERT_RULES: Array<{ test: RegExp; code: ServiceError['code'] }> = [
  { test: /not a bot/, code: 'SOURCE_BLOCKED' },
  { test: /\bprivate\b/, code: 'SOURCE_PRIVATE' },
  {
    test: /does not exist|doesn't exist|unavailable|unviewable|terminated|removed|no longer available|not available|deleted|suspended/,
    code: 'SOURCE_NOT_FOUND',
  },
];

/**
 * An ERROR alert of a browse answer as a ServiceError ("This channel does not
 * exist.", "…terminated…", "The playlist does not exist.", "This playlist type
 * is unviewable." → SOURCE_NOT_FOUND; "This playlist is private." →
 * SOURCE_PRIVATE). Other alert types (INFO "Unavailable videos are hidden")
 * are not failures. An ERROR we cannot read is SOURCE_CHANGED, with its text.
 */
export function alertError(alerts: unknown): ServiceError | null {
  if (!Array.isArray(alerts)) return null;
  for (const wrapper of alerts) {
    if (!isObject(wrapper)) continue;
    for (const key in wrapper) {
      const alert = wrapper[key];
      if (!isObject(alert) || alert.type !== 'ERROR') continue;
      const text = textOf(alert.text);
      const lower = text.toLowerCase().replace(/\u2019/g, "'");
      const rule = ALERT_RULES.find((r) => r.test.test(lower));
      return new ServiceError(rule?.code ?? 'SOURCE_CHANGED', `videosite: ${text || '(alert without text)'}`);
    }
  }
  return null;
}

// --- helpers -----------------------------------------------------------------

/** obj[k1][k2]… where every step is an object (or an array for numeric keys); undefined otherwise. */
function path(value: unknown, ...keys: Array<string | number>): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof key === 'number') {
      if (!Array.isArray(at)) return undefined;
      at = at[key];
    } else {
      if (!isObject(at)) return undefined;
      at = at[key];
    }
  }
  return at;
}

function orNull(text: string): string | null {
  return text === '' ? null : text;
}

function changed(detail: string): ServiceError {
  return new ServiceError('SOURCE_CHANGED', `videosite listing: ${detail}`);
}
