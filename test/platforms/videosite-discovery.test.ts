import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { createDiscoverySources } from '../../integrations/platforms/discovery';
import type { DiscoveryPage, DiscoveryPosition, DiscoverySources, VideoDiscoveryInput } from '../../integrations/platforms/discovery-types';
import {
  FIXTURES_DIR,
  fixturesAvailable,
  startReplayOrigin,
  type RecordedRequest,
  type ReplayOrigin,
  type ReplayRoute,
} from '../support/replay-origin';
import { outcome } from '../support/service-errors';

// Every recorded videosite listing (search, channel videos with resolve_url,
// playlist, their continuations and the channel/playlist error answers),
// replayed through the outbound layer: the code sends real platform requests,
// the replay origin answers with the recordings (read in place). Variants of a
// recording (a continuation removed, wrapped or repeated) are made in memory
// from the recording itself.

const describeRecorded = fixturesAvailable() || process.env.CI ? describe : describe.skip;

const WWW = 'www.youtube.com';
const V = (file: string) => `videosite/${file}`;
const SEARCH1 = V('search/search-test-videos-page1.newpipe-mock.json');
const SEARCH2 = V('search/search-test-videos-page2-continuation.newpipe-mock.json');
const RESOLVE = V('channel-videos/resolve_url-user-creativecommons.newpipe-mock.json');
const CHANNEL1 = V('channel-videos/browse-videos-tab-page1.newpipe-mock.json');
const CHANNEL2 = V('channel-videos/browse-videos-tab-page2-continuation.newpipe-mock.json');
const PLAYLIST1 = V('playlist/browse-playlist-page1-via-continuation.newpipe-mock.json');
const PLAYLIST2 = V('playlist/browse-playlist-page2-last.newpipe-mock.json');
const E = (file: string) => V(`errors/${file}`);

const CHANNEL_ID = 'UCTwECeGqMZee77BjdoYtI2Q';
const PLAYLIST_ID = 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr';
const VIDEOS_TAB = 'EgZ2aWRlb3PyBgQKAjoA';

/** A recorded response body, parsed (a fresh copy each call, free to edit). */
function recorded(file: string): any {
  const exchange = JSON.parse(readFileSync(path.join(FIXTURES_DIR, file), 'utf8')) as { response: { responseBody: string } };
  return JSON.parse(exchange.response.responseBody);
}

// --- the platform's own order and tokens, read from the recordings here (not with the code under test) ---

const searchItems = (json: any): any[] =>
  json.contents?.twoColumnSearchResultsRenderer.primaryContents.sectionListRenderer.contents ??
  json.onResponseReceivedCommands[0].appendContinuationItemsAction.continuationItems;
const channelItems = (json: any): any[] =>
  json.contents?.twoColumnBrowseResultsRenderer.tabs[1].tabRenderer.content.richGridRenderer.contents ??
  json.onResponseReceivedActions[0].appendContinuationItemsAction.continuationItems;
const playlistItems = (json: any): any[] => {
  const action = json.onResponseReceivedActions[0];
  return (action.reloadContinuationItemsCommand ?? action.appendContinuationItemsAction).continuationItems;
};
const tokenOf = (items: any[]): string | null =>
  items.find((i) => i.continuationItemRenderer)?.continuationItemRenderer.continuationEndpoint.continuationCommand.token ?? null;
const searchIds = (json: any): string[] =>
  searchItems(json)
    .flatMap((s: any) => s.itemSectionRenderer?.contents ?? [])
    .filter((i: any) => i.videoRenderer)
    .map((i: any) => i.videoRenderer.videoId);
const channelIds = (json: any): string[] =>
  channelItems(json)
    .filter((i: any) => i.richItemRenderer)
    .map((i: any) => i.richItemRenderer.content.lockupViewModel.contentId);
const playlistIds = (json: any): string[] =>
  playlistItems(json)
    .filter((i: any) => i.playlistVideoRenderer)
    .map((i: any) => i.playlistVideoRenderer.videoId);

const S1_TOKEN = tokenOf(searchItems(recorded(SEARCH1)))!;
const S2_TOKEN = tokenOf(searchItems(recorded(SEARCH2)))!;
const C1_TOKEN = tokenOf(channelItems(recorded(CHANNEL1)))!;
const C2_TOKEN = tokenOf(channelItems(recorded(CHANNEL2)))!;
const P1_TOKEN = tokenOf(playlistItems(recorded(PLAYLIST1)))!;

/** The recorded body with its trailing continuation replaced (null: removed). */
function withContinuation(json: any, items: (j: any) => any[], token: string | null): any {
  const list = items(json);
  const at = list.findIndex((i) => i.continuationItemRenderer);
  if (token === null) list.splice(at, 1);
  else list[at].continuationItemRenderer.continuationEndpoint.continuationCommand.token = token;
  return json;
}

// --- routes ------------------------------------------------------------------

const bodyOf = (req: RecordedRequest): any => JSON.parse(req.body);
const post = (endpoint: string, when: (body: any, req: RecordedRequest) => boolean, answer: Partial<ReplayRoute>): ReplayRoute => ({
  method: 'POST',
  path: `/youtubei/v1/${endpoint}`,
  host: WWW,
  when: (req) => when(bodyOf(req), req),
  ...answer,
});
const asAnswer = (source: string | object): Partial<ReplayRoute> => (typeof source === 'string' ? { recording: source } : { json: source });

const searchRoutes = (page2: string | object = SEARCH2): ReplayRoute[] => [
  post('search', (b) => b.query === 'test', { recording: SEARCH1 }),
  post('search', (b) => b.continuation === S1_TOKEN, asAnswer(page2)),
];
const channelRoutes = (page2: string | object = CHANNEL2, page1: string | object = CHANNEL1): ReplayRoute[] => [
  post('navigation/resolve_url', () => true, { recording: RESOLVE }),
  post('browse', (b) => b.browseId === CHANNEL_ID && b.params === VIDEOS_TAB, asAnswer(page1)),
  post('browse', (b) => b.continuation === C1_TOKEN, asAnswer(page2)),
];
const playlistRoutes = (page1: string | object = PLAYLIST1): ReplayRoute[] => [
  post('browse', (b) => b.browseId === `VL${PLAYLIST_ID}`, asAnswer(page1)),
  post('browse', (b) => b.continuation === P1_TOKEN, { recording: PLAYLIST2 }),
];

const SEARCH: VideoDiscoveryInput = { kind: 'videosite_search', query: 'test' };
const CHANNEL: VideoDiscoveryInput = { kind: 'videosite_channel_videos', channel: 'https://www.youtube.com/user/creativecommons' };
const PLAYLIST: VideoDiscoveryInput = {
  kind: 'videosite_playlist_videos',
  playlist: `https://www.youtube.com/playlist?list=${PLAYLIST_ID}`,
};

let origin: ReplayOrigin;
let outbound: Outbound;
let sources: DiscoverySources;

const innertube = () => origin.requests.filter((r) => r.path.startsWith('/youtubei/'));
const calls = () => innertube().map((r) => `${r.path.replace('/youtubei/v1/', '')}${r.url.includes('$fields') ? '($fields)' : ''}`);

/** Every page from the start until next is null. */
async function allPages(input: VideoDiscoveryInput, limit: number, max = 60): Promise<DiscoveryPage[]> {
  const pages: DiscoveryPage[] = [];
  let position: DiscoveryPosition | null = null;
  for (let i = 0; i < max; i++) {
    const page = await sources.videoPage(input, position, limit);
    pages.push(page);
    if (page.next === null) return pages;
    position = page.next;
  }
  throw new Error('the listing did not end');
}
const idsOf = (pages: DiscoveryPage[]) => pages.flatMap((p) => p.videos.map((v) => v.video_id));

describeRecorded('videosite video discovery from recorded listings', () => {
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

  describe('search', () => {
    test('page 1 → page 2 through the returned position; request shapes as recorded', async () => {
      origin.setRoutes(searchRoutes());
      const first = await sources.videoPage(SEARCH, null, 20);
      expect(first.videos.map((v) => v.video_id)).toEqual(searchIds(recorded(SEARCH1)));
      expect(first.profile).toBeNull();
      expect(first.next).toEqual({ continuation: S1_TOKEN, skip: 0 });

      const second = await sources.videoPage(SEARCH, first.next, 20);
      expect(second.videos.map((v) => v.video_id)).toEqual(searchIds(recorded(SEARCH2)));
      expect(second.next).toEqual({ continuation: S2_TOKEN, skip: 0 });

      const [req1, req2] = innertube();
      expect(req1.url).toBe('/youtubei/v1/search?prettyPrint=false');
      expect(req1.forwardedHost).toBe(WWW);
      expect(req1.headers).toMatchObject({ 'x-youtube-client-name': '1', cookie: 'SOCS=CAE=', origin: 'https://www.youtube.com' });
      expect(bodyOf(req1)).toMatchObject({
        query: 'test',
        params: 'EgIQAfABAQ%3D%3D',
        context: { client: { clientName: 'WEB', hl: 'en' } },
      });
      expect(bodyOf(req2)).toEqual({ context: bodyOf(req1).context, continuation: S1_TOKEN });
    });

    test('video entries: every field from a videoRenderer; shelves ("Popular in …") are not results', async () => {
      origin.setRoutes(searchRoutes());
      const page = await sources.videoPage(SEARCH, null, 20);
      expect(page.videos[0]).toEqual({
        platform: 'videosite',
        video_id: 'Z8KYabgkMbw',
        url: 'https://www.youtube.com/watch?v=Z8KYabgkMbw',
        title: 'Blind Test TOUT GENRE | 140 extraits',
        channel_id: 'UCuEBTg6pcG7s3PpPGRtFKQA',
        channel_title: 'Blind Test & Chill',
        duration_s: 47 * 60 + 20,
        published_at: null,
        published_text: '9 months ago',
        view_count: 390201,
        view_count_text: '390,201 views',
        thumbnail_url: expect.stringMatching(
          /^https:\/\/i\.ytimg\.com\/vi\/Z8KYabgkMbw\/hq720\.jpg\?sqp=-oaymwEcCNAFEJQDSFXyq4qpAw4IARUAAIhCGAFwAcABBg/,
        ),
        shortvideo: null,
      });
      const byId = new Map(page.videos.map((v) => [v.video_id, v]));
      expect(byId.get('UEQSkaqrMZA')).toMatchObject({ duration_s: 3600 + 17 * 60 + 43, view_count: 600822 });
      expect(byId.get('cguSj5lvNto')).toMatchObject({ published_text: 'Streamed 14 minutes ago', published_at: null });
      // The shelves' videos (YuumdQCliwQ in "Popular in Lyon", Mv70uh16iUY in "Channels new to you") are left out.
      expect(byId.has('YuumdQCliwQ')).toBe(false);
      expect(byId.has('Mv70uh16iUY')).toBe(false);
      expect(page.videos).toHaveLength(20);
    });

    test('limit 7 over two 20-video platform pages: 7, 7, 6+1, … the concatenation is the platform order', async () => {
      origin.setRoutes(searchRoutes(withContinuation(recorded(SEARCH2), searchItems, null)));
      const pages = await allPages(SEARCH, 7);
      expect(pages.map((p) => p.videos.length)).toEqual([7, 7, 7, 7, 7, 5]);
      expect(pages.map((p) => p.next)).toEqual([
        { continuation: null, skip: 7 },
        { continuation: null, skip: 14 },
        { continuation: S1_TOKEN, skip: 1 },
        { continuation: S1_TOKEN, skip: 8 },
        { continuation: S1_TOKEN, skip: 15 },
        null,
      ]);
      expect(idsOf(pages)).toEqual([...searchIds(recorded(SEARCH1)), ...searchIds(recorded(SEARCH2))]);
    });

    test('a video the next platform page repeats is not handed out twice (within a page, and against the skipped ones)', async () => {
      const page2 = recorded(SEARCH2);
      const p1 = searchIds(recorded(SEARCH1));
      const sections = searchItems(page2);
      const repeat = (id: string) => ({ videoRenderer: { ...sections[0].itemSectionRenderer.contents[0].videoRenderer, videoId: id } });
      // Page 2 starts with p1[3] (skipped at the position below) and p1[18] (on the same discovery page).
      sections[0].itemSectionRenderer.contents.unshift(repeat(p1[3]), repeat(p1[18]));
      origin.setRoutes(searchRoutes(page2));
      const page = await sources.videoPage(SEARCH, { continuation: null, skip: 15 }, 10);
      expect(page.videos.map((v) => v.video_id)).toEqual([...p1.slice(15), ...searchIds(recorded(SEARCH2)).slice(0, 5)]);
      expect(new Set(page.videos.map((v) => v.video_id)).size).toBe(10);
    });

    test('a continuation token the platform repeats ends the listing', async () => {
      // Page 2 names, as its next page, the token that fetched it.
      origin.setRoutes(searchRoutes(withContinuation(recorded(SEARCH2), searchItems, S1_TOKEN)));
      const page = await sources.videoPage(SEARCH, { continuation: null, skip: 10 }, 50);
      expect(page.videos).toHaveLength(30);
      expect(page.next).toBeNull();
      expect(calls()).toEqual(['search', 'search']);
    });
  });

  describe('channel videos', () => {
    test('resolve_url, the Videos tab, then its continuation; the channel on every page', async () => {
      origin.setRoutes(channelRoutes());
      const first = await sources.videoPage(CHANNEL, null, 30);
      expect(calls()).toEqual(['navigation/resolve_url', 'browse']);
      const [resolve, browse] = innertube();
      expect(bodyOf(resolve)).toMatchObject({
        url: 'https://www.youtube.com/user/creativecommons',
        context: { client: { clientName: 'WEB' } },
      });
      expect(bodyOf(browse)).toMatchObject({ browseId: CHANNEL_ID, params: VIDEOS_TAB });

      expect(first.videos.map((v) => v.video_id)).toEqual(channelIds(recorded(CHANNEL1)));
      expect(first.next).toEqual({ continuation: C1_TOKEN, skip: 0 });
      const profile = {
        platform: 'videosite',
        id: CHANNEL_ID,
        handle: '@creativecommons',
        title: 'Creative Commons',
        url: `https://www.youtube.com/channel/${CHANNEL_ID}`,
        subscriber_count_text: '8.84k subscribers',
        avatar_url: expect.stringMatching(/^https:\/\/yt3\.googleusercontent\.com\/.*=s900-/),
        description: expect.stringMatching(/^A nonprofit building a vibrant, collaborative global commons/),
      };
      expect(first.profile).toEqual(profile);
      // lockupViewModel entries (2026): the channel's own tab does not name the channel; the profile does.
      expect(first.videos[0]).toEqual({
        platform: 'videosite',
        video_id: 'BD-LB23rRBE',
        url: 'https://www.youtube.com/watch?v=BD-LB23rRBE',
        title: 'Expert Panel III: Global Perspectives on Open Heritage and Diversity, Inclusion, and Sustainability',
        channel_id: CHANNEL_ID,
        channel_title: 'Creative Commons',
        duration_s: 3600 + 7 * 60 + 34,
        published_at: null,
        published_text: '13 days ago',
        view_count: 28,
        view_count_text: '28 views',
        thumbnail_url: expect.stringContaining('/vi/BD-LB23rRBE/hqdefault.jpg?sqp=-oaymwEcCNACELwBSFXyq4qpAw4IARUAAIhCGAFwAcABBg'),
        shortvideo: null,
      });

      origin.requests.length = 0;
      const second = await sources.videoPage(CHANNEL, first.next, 30);
      expect(second.videos.map((v) => v.video_id)).toEqual(channelIds(recorded(CHANNEL2)));
      expect(second.next).toEqual({ continuation: C2_TOKEN, skip: 0 });
      // A page that starts at a continuation reads the channel with a header-only browse, alongside.
      expect(second.profile).toEqual(profile);
      expect(second.videos.every((v) => v.channel_id === CHANNEL_ID && v.channel_title === 'Creative Commons')).toBe(true);
      expect(calls().sort()).toEqual(['browse', 'browse($fields)', 'navigation/resolve_url']);
      const fields = innertube().find((r) => r.url.includes('$fields'))!;
      expect(fields.url).toBe('/youtubei/v1/browse?$fields=header,metadata,alerts&prettyPrint=false');
      expect(bodyOf(innertube().find((r) => bodyOf(r).continuation)!)).toMatchObject({ continuation: C1_TOKEN });
    });

    test('a UC… channel id needs no resolve_url; an @handle is resolved as its URL', async () => {
      origin.setRoutes(channelRoutes());
      await sources.videoPage({ kind: 'videosite_channel_videos', channel: CHANNEL_ID }, null, 5);
      expect(calls()).toEqual(['browse']);
      origin.requests.length = 0;
      await sources.videoPage({ kind: 'videosite_channel_videos', channel: '@CreativeCommons' }, null, 5);
      expect(bodyOf(innertube()[0]).url).toBe('https://www.youtube.com/@creativecommons');
    });

    test('limit 7 across the 30 + 30 recorded pages: full pages, no gaps, no repeats, platform order', async () => {
      origin.setRoutes(channelRoutes(withContinuation(recorded(CHANNEL2), channelItems, null)));
      const pages = await allPages(CHANNEL, 7);
      expect(pages.map((p) => p.videos.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 7, 4]);
      // The fifth page spans the cut: 2 from the first platform page, 5 from the second.
      expect(pages[4].next).toEqual({ continuation: C1_TOKEN, skip: 5 });
      expect(idsOf(pages)).toEqual([...channelIds(recorded(CHANNEL1)), ...channelIds(recorded(CHANNEL2))]);
      expect(pages.every((p) => p.profile?.id === CHANNEL_ID)).toBe(true);
    });

    test('continuation forms: a command wrapped in commandExecutorCommand, and continuationItemViewModel', async () => {
      const wrapped = recorded(CHANNEL1);
      const last = channelItems(wrapped).at(-1).continuationItemRenderer;
      last.continuationEndpoint = { commandExecutorCommand: { commands: [{ signalAction: { signal: 'X' } }, last.continuationEndpoint] } };
      origin.setRoutes(channelRoutes(CHANNEL2, wrapped));
      const a = await sources.videoPage({ kind: 'videosite_channel_videos', channel: CHANNEL_ID }, null, 31);
      expect(a.videos.map((v) => v.video_id)).toEqual([...channelIds(recorded(CHANNEL1)), channelIds(recorded(CHANNEL2))[0]]);

      const viewModel = recorded(CHANNEL1);
      const items = channelItems(viewModel);
      items[items.length - 1] = {
        continuationItemViewModel: { continuationCommand: { innertubeCommand: { continuationCommand: { token: C1_TOKEN } } } },
      };
      origin.setRoutes(channelRoutes(CHANNEL2, viewModel));
      const b = await sources.videoPage({ kind: 'videosite_channel_videos', channel: CHANNEL_ID }, null, 31);
      expect(b.videos.map((v) => v.video_id)).toEqual(a.videos.map((v) => v.video_id));
    });

    test('a repeated token ends the listing across calls too (the page names the token it was fetched with)', async () => {
      origin.setRoutes(channelRoutes(withContinuation(recorded(CHANNEL2), channelItems, C1_TOKEN)));
      const page = await sources.videoPage(
        { kind: 'videosite_channel_videos', channel: CHANNEL_ID },
        { continuation: C1_TOKEN, skip: 25 },
        20,
      );
      expect(page.videos.map((v) => v.video_id)).toEqual(channelIds(recorded(CHANNEL2)).slice(25));
      expect(page.next).toBeNull();
    });
  });

  describe('channel search (hand-made answer)', () => {
    const INPUT: VideoDiscoveryInput = { kind: 'videosite_channel_search', channel: 'UCHandMadeChannel0000001', query: 'license' };
    const TOKEN = 'HANDMADE-channel-search-token-2';
    // HAND-MADE continuation answer (test/fixtures-handmade/README.md): one more result, no further token.
    const PAGE2 = {
      onResponseReceivedCommands: [
        {
          appendContinuationItemsAction: {
            continuationItems: [
              {
                itemSectionRenderer: {
                  contents: [
                    { videoRenderer: { videoId: 'HandMade004', title: { simpleText: 'Licence FAQ' }, lengthText: { simpleText: '3:00' } } },
                  ],
                },
              },
            ],
          },
        },
      ],
    };
    const routes = [
      post('browse', (b) => b.browseId === 'UCHandMadeChannel0000001', { handmade: 'videosite/browse/channel-search.HANDMADE.json' }),
      post('browse', (b) => b.continuation === TOKEN, { json: PAGE2 }),
    ];

    test('browse with the Search tab params and the query; videoRenderer results, dates, counts, the channel', async () => {
      origin.setRoutes(routes);
      const first = await sources.videoPage(INPUT, null, 3);
      expect(bodyOf(innertube()[0])).toMatchObject({
        browseId: 'UCHandMadeChannel0000001',
        params: 'EgZzZWFyY2jyBgQKAloA',
        query: 'license',
      });
      expect(first.videos.map((v) => [v.video_id, v.duration_s, v.view_count, v.published_at])).toEqual([
        ['HandMade001', 754, 1234567, null],
        ['HandMade002', 3723, 0, '2024-03-03T00:00:00.000Z'],
        ['HandMade003', 45, 1200000, '2024-03-03T00:00:00.000Z'],
      ]);
      expect(first.videos[2]).toMatchObject({
        view_count_text: '1.2M views',
        published_text: 'Premiered 3 Mar 2024',
        thumbnail_url: 'https://i.ytimg.com/vi/HandMade003/hq720.jpg?sqp=handmade-large',
        channel_id: 'UCHandMadeChannel0000001',
        channel_title: 'Hand Made Channel',
      });
      expect(first.profile).toMatchObject({
        handle: '@handmadechannel',
        subscriber_count_text: '1.05M subscribers',
        title: 'Hand Made Channel',
      });
      // The token came wrapped in commandExecutorCommand.
      expect(first.next).toEqual({ continuation: TOKEN, skip: 0 });

      const second = await sources.videoPage(INPUT, first.next, 3);
      expect(second.videos.map((v) => v.video_id)).toEqual(['HandMade004']);
      expect(second.videos[0]).toMatchObject({ channel_id: 'UCHandMadeChannel0000001', channel_title: 'Hand Made Channel' });
      expect(second.profile?.id).toBe('UCHandMadeChannel0000001');
      expect(second.next).toBeNull();
    });
  });

  describe('playlist', () => {
    test('browse VL<id>, then the pages to the last (100 + 50, no further continuation)', async () => {
      origin.setRoutes(playlistRoutes());
      const pages = await allPages(PLAYLIST, 50);
      expect(pages.map((p) => p.videos.length)).toEqual([50, 50, 50]);
      expect(pages.map((p) => p.next)).toEqual([{ continuation: null, skip: 50 }, { continuation: P1_TOKEN, skip: 0 }, null]);
      expect(idsOf(pages)).toEqual([...playlistIds(recorded(PLAYLIST1)), ...playlistIds(recorded(PLAYLIST2))]);
      expect(pages.every((p) => p.profile === null)).toBe(true);
      const first = innertube()[0];
      expect(bodyOf(first)).toMatchObject({ browseId: `VL${PLAYLIST_ID}` });
      expect(bodyOf(first).params).toBeUndefined();
      expect(pages[0].videos[0]).toMatchObject({
        video_id: 'u2ah9tWTkmk',
        title: 'Alex Warren - Ordinary (Official Video)',
        channel_id: 'UCX2Pm1JoWF3chsVOR9e1hbQ',
        channel_title: 'Alex Warren',
        duration_s: 187,
        view_count: 266_000_000,
        view_count_text: '266m views',
        published_text: '11 months ago',
      });
    });

    test('limit 7 over 100 + 50: 21 full pages and a last of 3, in the playlist order', async () => {
      origin.setRoutes(playlistRoutes());
      const pages = await allPages(PLAYLIST, 7);
      expect(pages.map((p) => p.videos.length)).toEqual([...Array(21).fill(7), 3]);
      expect(idsOf(pages)).toEqual([...playlistIds(recorded(PLAYLIST1)), ...playlistIds(recorded(PLAYLIST2))]);
    });

    test('the first page in the contents shape (playlistVideoListRenderer) reads the same', async () => {
      const reload = recorded(PLAYLIST1);
      const items = playlistItems(reload);
      delete reload.onResponseReceivedActions;
      reload.contents = {
        twoColumnBrowseResultsRenderer: {
          tabs: [
            {
              tabRenderer: {
                selected: true,
                content: {
                  sectionListRenderer: {
                    contents: [{ itemSectionRenderer: { contents: [{ playlistVideoListRenderer: { contents: items } }] } }],
                  },
                },
              },
            },
          ],
        },
      };
      origin.setRoutes(playlistRoutes(reload));
      const page = await sources.videoPage(PLAYLIST, { continuation: null, skip: 95 }, 10);
      expect(page.videos.map((v) => v.video_id)).toEqual([
        ...playlistIds(recorded(PLAYLIST1)).slice(95),
        ...playlistIds(recorded(PLAYLIST2)).slice(0, 5),
      ]);
    });

    test('unplayable entries ("[Private video]") are left out', async () => {
      const page1 = recorded(PLAYLIST1);
      const items = playlistItems(page1);
      items[1].playlistVideoRenderer.isPlayable = false;
      origin.setRoutes(playlistRoutes(page1));
      const page = await sources.videoPage(PLAYLIST, null, 3);
      const ids = playlistIds(recorded(PLAYLIST1));
      expect(page.videos.map((v) => v.video_id)).toEqual([ids[0], ids[2], ids[3]]);
    });
  });

  describe('failures', () => {
    const channelBrowse = (answer: Partial<ReplayRoute>) => [post('browse', () => true, answer)];
    test.each([
      [
        'channel does not exist',
        'SOURCE_NOT_FOUND',
        E('channel-not-available/browse-channel-does-not-exist.newpipe-mock.json'),
        /does not exist/,
      ],
      [
        'channel removed (guidelines)',
        'SOURCE_NOT_FOUND',
        E('channel-not-available/browse-channel-removed-guidelines.newpipe-mock.json'),
        /removed/,
      ],
      [
        'malformed browseId (HTTP 400)',
        'SOURCE_NOT_FOUND',
        E('channel-not-available/browse-invalid-browseId-400.newpipe-mock.json'),
        /HTTP 400 INVALID_ARGUMENT/,
      ],
    ])('%s → %s', async (_what, code, file, detail) => {
      origin.setRoutes(channelBrowse({ recording: file }));
      const err = await sources
        .videoPage({ kind: 'videosite_channel_videos', channel: 'UCAUc4iz6edWerIjlnL8OSSw' }, null, 20)
        .catch((e) => e);
      expect(err).toMatchObject({ code, detail: expect.stringMatching(detail) });
    });

    test.each([
      ['playlist does not exist', 'SOURCE_NOT_FOUND', E('playlist-not-found/browse-VLPL111-does-not-exist.newpipe-mock.json')],
      ['playlist type unviewable', 'SOURCE_NOT_FOUND', E('playlist-not-found/browse-VLINVALID_ID.newpipe-mock.json')],
    ])('%s → %s', async (_what, code, file) => {
      origin.setRoutes(channelBrowse({ recording: file }));
      expect(
        await outcome(sources.videoPage({ kind: 'videosite_playlist_videos', playlist: 'PL11111111111111111111111111111111' }, null, 20)),
      ).toBe(code);
    });

    test('private playlist → SOURCE_PRIVATE (hand-made alert in the recorded shape)', async () => {
      // HAND-MADE answer: the recorded alert shape with the text the platform shows for a private list.
      origin.setRoutes(
        channelBrowse({
          json: { alerts: [{ alertRenderer: { type: 'ERROR', text: { runs: [{ text: 'This playlist is private.' }] } } }] },
        }),
      );
      expect(await outcome(sources.videoPage(PLAYLIST, null, 20))).toBe('SOURCE_PRIVATE');
    });

    test('an unknown handle: resolve_url answers 404 → SOURCE_NOT_FOUND, nothing browsed', async () => {
      origin.setRoutes([
        post('navigation/resolve_url', () => true, {
          status: 404,
          json: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } },
        }),
      ]);
      expect(await outcome(sources.videoPage({ kind: 'videosite_channel_videos', channel: '@nobody-here' }, null, 20))).toBe(
        'SOURCE_NOT_FOUND',
      );
      expect(calls()).toEqual(['navigation/resolve_url']);
    });

    test.each([
      ['HTTP 429', 'SOURCE_RATE_LIMITED', { status: 429, body: 'Too Many Requests' }],
      ['the unusual-traffic page (recaptcha)', 'SOURCE_RATE_LIMITED', { fixture: E('rate-limited/youtube_too_many_requests.html.static') }],
      ['the cookie-consent wall', 'SOURCE_BLOCKED', { fixture: E('consent/youtube_consent_page.html.static') }],
      [
        'a bot check ("Sign in to confirm you’re not a bot")',
        'SOURCE_BLOCKED',
        { fixture: E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json') },
      ],
      ['HTTP 403', 'SOURCE_BLOCKED', { status: 403, body: 'Forbidden' }],
      ['HTTP 500', 'SOURCE_CHANGED', { status: 500, body: 'oops' }],
    ])('search answered with %s → %s', async (_what, code, answer) => {
      origin.setRoutes([post('search', () => true, answer as Partial<ReplayRoute>)]);
      expect(await outcome(sources.videoPage(SEARCH, null, 20))).toBe(code);
    });

    test('a malformed input is refused before any request', async () => {
      origin.setRoutes(searchRoutes());
      expect(await outcome(sources.videoPage({ kind: 'videosite_playlist_videos', playlist: 'PL$$' }, null, 20))).toBe('INVALID_REQUEST');
      expect(origin.requests).toHaveLength(0);
    });
  });
});
