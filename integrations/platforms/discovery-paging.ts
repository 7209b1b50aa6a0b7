import { ServiceError } from '../../core/errors';
import type { DiscoveredVideo, DiscoveryPosition } from './discovery-types';

// Our pages out of the platform's pages. The platform cuts a listing where it
// likes (20 search results, 30 channel videos, 100 playlist entries, shelves
// taking some of them); a discovery page holds exactly `limit` videos.
//
// A position is (token, skip): the continuation token that fetches the
// platform page being read (null = the first platform page) and how many of
// that page's videos (its parsed video list, repeats included) were handed
// out already. A page starts there, reads on through as many platform pages
// as it needs, and stops when it has `limit` videos; its `next` is the
// position just after the last video it took. The platform page it stopped in
// is fetched again by the next call and its first `skip` videos are passed
// over, so nothing is lost at a cut and nothing is handed out twice as long as
// the platform answers a token the same way twice.
//
// Repeats: a video id seen earlier in the same call is dropped, and so is one
// among the `skip` videos passed over at the start (they were on the previous
// page); `next` also steps over repeats right after the cut. Repeats of videos
// handed out by earlier calls from other platform pages are not known here.
//
// The end: a platform page without a continuation, a continuation token this
// call already fetched (the platform repeating itself would loop forever), or
// MAX_PLATFORM_PAGES fetched in one call without filling the page (a listing
// of nothing but shelves: ended rather than paid for page after empty page).

export interface PlatformPage {
  /** Videos in the platform's order (non-video items already removed; repeats allowed). */
  videos: DiscoveredVideo[];
  /** The token of the next platform page; null at the end. */
  continuation: string | null;
}

export const MAX_PLATFORM_PAGES = 20;

export interface AssembledPage {
  videos: DiscoveredVideo[];
  next: DiscoveryPosition | null;
}

/** `fetch(token)` reads one platform page (token null = the first). */
export async function assemblePage(
  fetch: (token: string | null) => Promise<PlatformPage>,
  position: DiscoveryPosition | null,
  limit: number,
  maxPlatformPages = MAX_PLATFORM_PAGES,
): Promise<AssembledPage> {
  if (!Number.isInteger(limit) || limit < 1) throw new ServiceError('INVALID_REQUEST', 'limit', { message: 'limit: at least 1' });
  const skip = position?.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0) throw new ServiceError('INVALID_CURSOR', 'cursor', { message: 'cursor: negative skip' });

  const out: DiscoveredVideo[] = [];
  const seen = new Set<string>();
  let token = position?.continuation ?? null;
  let passOver = skip;
  const fetched = new Set<string | null>();

  for (let pages = 0; pages < maxPlatformPages; pages++) {
    fetched.add(token);
    const page = await fetch(token);
    const videos = page.videos;
    const nextToken = page.continuation !== null && !fetched.has(page.continuation) ? page.continuation : null;
    for (let i = 0; i < videos.length; i++) {
      const id = videos[i].video_id;
      if (i < passOver || seen.has(id)) {
        seen.add(id);
        continue;
      }
      seen.add(id);
      out.push(videos[i]);
      if (out.length === limit) {
        // The next page starts after this video and after the repeats that follow it (the next
        // call would not know them as repeats); if nothing of this platform page is left, at the next one.
        let at = i + 1;
        while (at < videos.length && seen.has(videos[at].video_id)) at++;
        const next =
          at < videos.length ? { continuation: token, skip: at } : nextToken !== null ? { continuation: nextToken, skip: 0 } : null;
        return { videos: out, next };
      }
    }
    if (nextToken === null) return { videos: out, next: null };
    token = nextToken;
    passOver = 0;
  }
  return { videos: out, next: null };
}
