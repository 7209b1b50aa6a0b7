import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { createDiscoverySources } from '../../integrations/platforms/discovery';
import type { DiscoverySources, VideoDiscoveryInput } from '../../integrations/platforms/discovery-types';
import { HANDMADE_DIR, startReplayOrigin, type RecordedRequest, type ReplayOrigin, type ReplayRoute } from '../support/replay-origin';
import { outcome } from '../support/service-errors';

// shortvideo_user_videos against HAND-MADE answers (test/fixtures-handmade/
// shortvideo/README.md): nothing real was recorded for this platform, so
// these tests pin the behaviour the protocol notes describe — the profile
// page's user-detail (secUid, private and empty accounts), one item list of
// at most 10, and per-video details from each video's page.

const HOST = 'www.tiktok.com';
const USER = '@handmade.creator';
const SEC_UID = `MS4wLjABAAAA${'handmadeHANDMADE'.repeat(4)}`;
const LIST = 'shortvideo/item-list.HANDMADE.json';
const LIST_JSON = JSON.parse(readFileSync(path.join(HANDMADE_DIR, LIST), 'utf8')) as { itemList: Array<{ id: string }> };
const LIST_IDS = [...new Set(LIST_JSON.itemList.map((i) => i.id))];
const ID = (n: number) => LIST_IDS[n];

const profilePage = (user: string, answer: Partial<ReplayRoute>): ReplayRoute => ({ path: `/${user}`, host: HOST, ...answer });
const itemList = (answer: Partial<ReplayRoute> = { handmade: LIST }): ReplayRoute => ({
  path: '/api/post/item_list/',
  host: HOST,
  ...answer,
});
const videoPage = (id: string, answer: Partial<ReplayRoute>): ReplayRoute => ({ path: `/@i/video/${id}`, host: HOST, ...answer });
const PUBLIC = [profilePage(USER, { handmade: 'shortvideo/user-page.HANDMADE.html' }), itemList()];

const input = (user: string, includeDetails = false): VideoDiscoveryInput => ({ kind: 'shortvideo_user_videos', user, includeDetails });

let origin: ReplayOrigin;
let outbound: Outbound;
let sources: DiscoverySources;

beforeAll(async () => {
  origin = await startReplayOrigin();
  outbound = createOutbound({ originOverride: origin.url, timeoutMs: 3000 });
  sources = createDiscoverySources(outbound);
});
afterEach(() => {
  origin.requests.length = 0;
});
afterAll(async () => {
  await outbound.close();
  await origin.close();
});

const paths = () => origin.requests.map((r) => r.path);
const listRequest = (): RecordedRequest => origin.requests.find((r) => r.path === '/api/post/item_list/')!;

describe('shortvideo user videos (hand-made fixtures)', () => {
  test('public account: the profile page, then one item list by secUid; the user as profile; one page only', async () => {
    origin.setRoutes(PUBLIC);
    const page = await sources.videoPage(input('https://www.tiktok.com/@Handmade.Creator?lang=en'), null, 10);
    expect(paths()).toEqual([`/${USER}`, '/api/post/item_list/']);
    expect(origin.requests[0].forwardedHost).toBe(HOST);
    expect(Object.fromEntries(listRequest().query)).toMatchObject({ secUid: SEC_UID, count: '10', cursor: '0', aid: '1988' });
    expect(listRequest().headers.referer).toBe('https://www.tiktok.com/@handmade.creator');

    expect(page.next).toBeNull();
    expect(page.profile).toEqual({
      platform: 'shortvideo',
      id: SEC_UID,
      handle: '@handmade.creator',
      title: 'Hand Made',
      url: 'https://www.tiktok.com/@handmade.creator',
      subscriber_count_text: '15300 followers',
      avatar_url: 'https://p16-sign-va.tiktokcdn.com/handmade/avatar-1080.jpeg',
      description: 'Bread, by hand.',
    });
    // 13 list entries, the pinned first one repeated: 10 distinct videos in the list's order.
    expect(page.videos.map((v) => v.video_id)).toEqual(LIST_IDS.slice(0, 10));
    expect(page.videos[0]).toEqual({
      platform: 'shortvideo',
      video_id: '7301234567890123456',
      url: 'https://www.tiktok.com/@i/video/7301234567890123456',
      title: 'Sourdough in 20 seconds #bread #handmade',
      channel_id: SEC_UID,
      channel_title: 'Hand Made',
      duration_s: 21,
      published_at: '2023-11-14T22:13:20.000Z',
      published_text: null,
      view_count: 5000,
      view_count_text: null,
      thumbnail_url: 'https://p16-sign-va.tiktokcdn.com/handmade/7301234567890123456-origin-1080.jpeg',
      shortvideo: null,
    });
    expect(page.videos.every((v) => v.shortvideo === null)).toBe(true);
  });

  test('limit: the item list asks for that many and the page holds that many; above 10 it is 10', async () => {
    origin.setRoutes(PUBLIC);
    const five = await sources.videoPage(input(USER), null, 5);
    expect(five.videos).toHaveLength(5);
    expect(listRequest().query.get('count')).toBe('5');
    origin.requests.length = 0;
    const many = await sources.videoPage(input(USER), null, 50);
    expect(many.videos).toHaveLength(10);
    expect(listRequest().query.get('count')).toBe('10');
  });

  test('include_details: counts, hashtags and caption languages from each video page; the list stands in for a page that went private', async () => {
    origin.setRoutes([
      ...PUBLIC,
      videoPage(ID(0), { handmade: 'shortvideo/video-page.HANDMADE.html' }),
      videoPage(ID(1), { handmade: 'shortvideo/video-page-2.HANDMADE.html' }),
      videoPage(ID(2), { handmade: 'shortvideo/private-post-page.HANDMADE.html' }),
    ]);
    const page = await sources.videoPage(input(USER, true), null, 3);
    expect(page.videos.map((v) => v.shortvideo)).toEqual([
      // The page's stats (120/9/4) over the list's (100/10/0); hashtags from the list's textExtra; en-US (creator, default) then es-ES (MT).
      { like_count: 120, comment_count: 9, share_count: 4, hashtags: ['bread', 'handmade'], caption_languages: ['en-US', 'es-ES'] },
      { like_count: 250, comment_count: 31, share_count: 7, hashtags: ['bread', 'loaf1', 'Crumb'], caption_languages: ['fr-FR', 'en-US'] },
      // Private since the list was made: the list's numbers, no subtitles known.
      { like_count: 102, comment_count: 12, share_count: 2, hashtags: ['bread', 'loaf2'], caption_languages: [] },
    ]);
    expect(
      paths()
        .filter((p) => p.startsWith('/@i/video/'))
        .sort(),
    ).toEqual([ID(0), ID(1), ID(2)].map((id) => `/@i/video/${id}`).sort());
  });

  test('include_details: a video page that is blocked fails the page (retryable), not silently', async () => {
    origin.setRoutes([...PUBLIC, videoPage(ID(0), { handmade: 'shortvideo/challenge-page.HANDMADE.html' })]);
    expect(await outcome(sources.videoPage(input(USER, true), null, 1))).toBe('SOURCE_BLOCKED');
  });

  test('empty account: videos [] with the profile, no item list asked', async () => {
    origin.setRoutes([profilePage('@handmade.empty', { handmade: 'shortvideo/user-page-empty.HANDMADE.html' }), itemList()]);
    const page = await sources.videoPage(input('@handmade.empty'), null, 10);
    expect(page).toMatchObject({ videos: [], next: null, profile: { handle: '@handmade.empty', title: 'Hand Made (no videos)' } });
    expect(paths()).toEqual(['/@handmade.empty']);
  });

  test.each([
    ['private account (statusCode 10222)', 'SOURCE_PRIVATE', { handmade: 'shortvideo/user-page-private.HANDMADE.html' }],
    ['no such user (statusCode 10202)', 'SOURCE_NOT_FOUND', { handmade: 'shortvideo/user-page-not-found.HANDMADE.html' }],
    ['HTTP 404', 'SOURCE_NOT_FOUND', { status: 404, body: 'not found' }],
    ['the bot-protection challenge page', 'SOURCE_BLOCKED', { handmade: 'shortvideo/challenge-page.HANDMADE.html' }],
    ['HTTP 429', 'SOURCE_RATE_LIMITED', { status: 429, body: '' }],
    ['a page without user-detail', 'SOURCE_CHANGED', { handmade: 'shortvideo/video-page.HANDMADE.html' }],
  ])('%s → %s, no item list asked', async (_what, code, answer) => {
    origin.setRoutes([profilePage(USER, answer as Partial<ReplayRoute>), itemList()]);
    expect(await outcome(sources.videoPage(input(USER), null, 10))).toBe(code);
    expect(paths()).toEqual([`/${USER}`]);
  });

  test('a redirect to the login page → SOURCE_AUTH_REQUIRED (followed through the override)', async () => {
    origin.setRoutes([
      profilePage(USER, { status: 302, headers: { location: 'https://www.tiktok.com/login?redirect_url=%2F%40handmade.creator' } }),
      { path: '/login', host: HOST, handmade: 'shortvideo/login-page.HANDMADE.html' },
    ]);
    expect(await outcome(sources.videoPage(input(USER), null, 10))).toBe('SOURCE_AUTH_REQUIRED');
  });

  test.each([
    ['an empty 200 (unsigned request refused)', 'SOURCE_BLOCKED', { body: '' }],
    ['HTTP 429', 'SOURCE_RATE_LIMITED', { status: 429, body: '' }],
    ['statusCode 10222', 'SOURCE_PRIVATE', { json: { statusCode: 10222, itemList: [] } }],
    ['an unknown statusCode', 'SOURCE_CHANGED', { json: { statusCode: 10101 } }],
  ])('item list answering %s → %s', async (_what, code, answer) => {
    origin.setRoutes([profilePage(USER, { handmade: 'shortvideo/user-page.HANDMADE.html' }), itemList(answer as Partial<ReplayRoute>)]);
    expect(await outcome(sources.videoPage(input(USER), null, 10))).toBe(code);
  });

  test('no paging: a position is refused', async () => {
    origin.setRoutes(PUBLIC);
    expect(await outcome(sources.videoPage(input(USER), { continuation: 'x', skip: 0 }, 10))).toBe('INVALID_CURSOR');
    expect(origin.requests).toHaveLength(0);
  });
});
