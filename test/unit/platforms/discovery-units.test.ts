import { ServiceError } from '../../../core/errors';
import { captionCodes } from '../../../integrations/platforms/caption-codes';
import { normalizeDiscoveryInput } from '../../../integrations/platforms/discovery';
import { assemblePage, type PlatformPage } from '../../../integrations/platforms/discovery-paging';
import { absoluteDate, parseDuration, parseViewCount } from '../../../integrations/platforms/discovery-text';
import type { DiscoveredVideo, DiscoveryPosition, VideoDiscoveryInput } from '../../../integrations/platforms/discovery-types';
import { alertError } from '../../../integrations/platforms/videosite-listing';

// The pure parts of discoveries: input canonicalisation, the numbers of a
// listing, the paging of platform pages into pages of exactly `limit`, and
// the codes of named caption tracks.

describe('normalizeDiscoveryInput', () => {
  const channel = (value: string) => normalizeDiscoveryInput({ kind: 'videosite_channel_videos', channel: value }).channel;
  const playlist = (value: string) => normalizeDiscoveryInput({ kind: 'videosite_playlist_videos', playlist: value }).playlist;
  const user = (value: string) => normalizeDiscoveryInput({ kind: 'shortvideo_user_videos', user: value }).user;
  const refusal = (input: VideoDiscoveryInput) => {
    try {
      normalizeDiscoveryInput(input);
    } catch (err) {
      if (err instanceof ServiceError) return { code: err.code, detail: err.detail, message: err.message };
      throw err;
    }
    throw new Error('expected a refusal');
  };

  test.each([
    ['@CreativeCommons', '@creativecommons'],
    ['  @creativecommons ', '@creativecommons'],
    ['https://www.youtube.com/@CreativeCommons', '@creativecommons'],
    ['https://youtube.com/@creativecommons/videos?view=0', '@creativecommons'],
    ['youtube.com/@creativecommons', '@creativecommons'],
    ['https://m.youtube.com/@%E3%81%82%E3%81%84%E3%81%86', '@あいう'],
    ['UCTwECeGqMZee77BjdoYtI2Q', 'UCTwECeGqMZee77BjdoYtI2Q'],
    ['https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q', 'UCTwECeGqMZee77BjdoYtI2Q'],
    ['http://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q/featured', 'UCTwECeGqMZee77BjdoYtI2Q'],
    ['https://www.youtube.com/user/creativecommons', 'https://www.youtube.com/user/creativecommons'],
    ['https://www.youtube.com/c/CreativeCommons/videos', 'https://www.youtube.com/c/CreativeCommons'],
  ])('channel %s → %s', (value, canonical) => {
    expect(channel(value)).toBe(canonical);
  });

  test.each([
    ['creativecommons', 'a bare word is none of the forms'],
    ['UCTwECeGqMZee77BjdoYtI2', 'UC id one character short, and no URL'],
    ['https://www.youtube.com/channel/UCshort', 'malformed channel id in a URL'],
    ['https://www.youtube.com/watch?v=rCAS2eD-mcw', 'a video link'],
    ['https://vimeo.com/@someone', 'another site'],
    ['@bad handle', 'space in a handle'],
    ['@a/b', 'slash in a handle'],
    ['ftp://www.youtube.com/@x', 'not http(s)'],
  ])('channel %s is refused (%s)', (value) => {
    expect(refusal({ kind: 'videosite_channel_videos', channel: value })).toMatchObject({
      code: 'INVALID_REQUEST',
      detail: 'channel',
      message: expect.stringMatching(/^channel: /),
    });
  });

  test.each([
    ['PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr'],
    ['https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr'],
    ['https://www.youtube.com/watch?v=u2ah9tWTkmk&list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr&index=2', 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr'],
    ['https://youtu.be/u2ah9tWTkmk?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr'],
    ['music.youtube.com/playlist?list=OLAK5uy_abc', 'OLAK5uy_abc'],
  ])('playlist %s → %s', (value, id) => {
    expect(playlist(value)).toBe(id);
  });

  test.each([
    ['PL$oumn5', 'illegal character'],
    ['https://www.youtube.com/playlist?list=PL%24x', 'illegal character in list='],
    ['https://www.youtube.com/playlist', 'no list='],
    ['https://example.com/playlist?list=PL123', 'not the videosite'],
    ['P', 'too short'],
  ])('playlist %s is refused (%s)', (value) => {
    expect(refusal({ kind: 'videosite_playlist_videos', playlist: value })).toMatchObject({ code: 'INVALID_REQUEST', detail: 'playlist' });
  });

  test.each([
    ['@Handmade.Creator', '@handmade.creator'],
    ['handmade.creator', '@handmade.creator'],
    ['https://www.tiktok.com/@handmade.creator?lang=en', '@handmade.creator'],
    ['tiktok.com/@handmade.creator/', '@handmade.creator'],
  ])('user %s → %s', (value, canonical) => {
    expect(user(value)).toBe(canonical);
  });

  test.each([['@bad name'], ['https://www.tiktok.com/@x/video/7301234567890123456'], ['https://www.youtube.com/@x'], ['tiktok.com']])(
    'user %s is refused',
    (value) => {
      expect(refusal({ kind: 'shortvideo_user_videos', user: value })).toMatchObject({ code: 'INVALID_REQUEST', detail: 'user' });
    },
  );

  test('query: trimmed, inner white space collapsed; empty refused', () => {
    expect(normalizeDiscoveryInput({ kind: 'videosite_search', query: '  cc \n  licences ' })).toEqual({
      kind: 'videosite_search',
      query: 'cc licences',
    });
    expect(refusal({ kind: 'videosite_search', query: '   ' })).toMatchObject({ detail: 'query' });
  });

  test('fields of the kind only; include_details only for shortvideo and always a boolean there', () => {
    expect(refusal({ kind: 'videosite_search' })).toMatchObject({ detail: 'query', message: expect.stringContaining('required') });
    expect(refusal({ kind: 'videosite_channel_search', channel: '@x' })).toMatchObject({ detail: 'query' });
    expect(refusal({ kind: 'videosite_search', query: 'x', channel: '@x' })).toMatchObject({ detail: 'channel' });
    expect(refusal({ kind: 'videosite_search', query: 'x', includeDetails: true })).toMatchObject({ detail: 'include_details' });
    expect(normalizeDiscoveryInput({ kind: 'shortvideo_user_videos', user: '@a' })).toEqual({
      kind: 'shortvideo_user_videos',
      user: '@a',
      includeDetails: false,
    });
    expect(normalizeDiscoveryInput({ kind: 'videosite_channel_search', channel: '@A', query: ' q ' })).toEqual({
      kind: 'videosite_channel_search',
      channel: '@a',
      query: 'q',
    });
  });

  test('idempotent: a canonical input comes out unchanged', () => {
    for (const input of [
      { kind: 'videosite_channel_videos', channel: 'https://www.youtube.com/c/CreativeCommons' },
      { kind: 'videosite_channel_videos', channel: '@creativecommons' },
      { kind: 'videosite_playlist_videos', playlist: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr' },
      { kind: 'shortvideo_user_videos', user: '@handmade.creator', includeDetails: true },
    ] as VideoDiscoveryInput[]) {
      expect(normalizeDiscoveryInput(normalizeDiscoveryInput(input))).toEqual(normalizeDiscoveryInput(input));
    }
  });
});

describe('listing numbers', () => {
  test.each([
    ['12:34', 754],
    ['1:02:03', 3723],
    ['0:45', 45],
    ['10:00:00', 36000],
    ['47:20', 2840],
    ['LIVE', null],
    ['SHORTS', null],
    ['', null],
    ['1:60', null],
    ['1:61:00', null],
    [undefined, null],
  ])('duration %s → %s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  test.each([
    ['1,234,567 views', 1234567],
    ['390,201 views', 390201],
    ['1 view', 1],
    ['No views', 0],
    ['1.2M views', 1_200_000],
    ['266m views', 266_000_000],
    ['8.8m views', 8_800_000],
    ['390k views', 390_000],
    ['390K views', 390_000],
    ['1.2B views', 1_200_000_000],
    ['2bn views', 2_000_000_000],
    ['1,234 watching', null],
    ['12 waiting', null],
    ['1.234 views', null],
    ['views', null],
    [null, null],
  ])('views %s → %s', (text, count) => {
    expect(parseViewCount(text)).toBe(count);
  });

  test.each([
    ['Premiered Mar 3, 2024', '2024-03-03T00:00:00.000Z'],
    ['Streamed live on 3 Mar 2024', '2024-03-03T00:00:00.000Z'],
    ['Sep 30, 2019', '2019-09-30T00:00:00.000Z'],
    ['2024-03-03', '2024-03-03T00:00:00.000Z'],
    ['3 weeks ago', null],
    ['Streamed 14 minutes ago', null],
    ['Premieres Mar 3, 2030', null],
    ['Feb 31, 2024', null],
  ])('published %s → %s', (text, iso) => {
    expect(absoluteDate(text)).toBe(iso);
  });

  test.each([
    ['This channel does not exist.', 'SOURCE_NOT_FOUND'],
    ['This channel was removed because it violated our Community Guidelines.', 'SOURCE_NOT_FOUND'],
    ['This account has been terminated.', 'SOURCE_NOT_FOUND'],
    ['The playlist does not exist.', 'SOURCE_NOT_FOUND'],
    ['This playlist type is unviewable.', 'SOURCE_NOT_FOUND'],
    ['This playlist is private.', 'SOURCE_PRIVATE'],
    ['Sign in to confirm you’re not a bot', 'SOURCE_BLOCKED'],
    ['Something we have never seen', 'SOURCE_CHANGED'],
  ])('ERROR alert "%s" → %s', (text, code) => {
    expect(alertError([{ alertRenderer: { type: 'ERROR', text: { simpleText: text } } }])?.code).toBe(code);
  });

  test('alerts that are not errors are no failure', () => {
    expect(alertError([{ alertWithButtonRenderer: { type: 'INFO', text: { simpleText: 'Unavailable videos are hidden' } } }])).toBeNull();
  });
});

// --- paging ------------------------------------------------------------------

const video = (id: string): DiscoveredVideo => ({
  platform: 'videosite',
  video_id: id,
  url: `https://www.youtube.com/watch?v=${id}`,
  title: id,
  channel_id: null,
  channel_title: null,
  duration_s: null,
  published_at: null,
  published_text: null,
  view_count: null,
  view_count_text: null,
  thumbnail_url: null,
  shortvideo: null,
});

/** A platform of pages keyed by token (null = first), each a list of ids and the next token. */
function platform(pages: Record<string, { ids: string[]; next: string | null }>) {
  const calls: Array<string | null> = [];
  const fetch = async (token: string | null): Promise<PlatformPage> => {
    calls.push(token);
    const page = pages[token ?? 'FIRST'];
    if (!page) throw new Error(`no platform page ${token}`);
    return { videos: page.ids.map(video), continuation: page.next };
  };
  return { fetch, calls };
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Every page from the start until next is null; returns the pages' ids. */
async function allPages(fetch: (t: string | null) => Promise<PlatformPage>, limit: number, max = 100): Promise<string[][]> {
  const out: string[][] = [];
  let position: DiscoveryPosition | null = null;
  for (let i = 0; i < max; i++) {
    const page = await assemblePage(fetch, position, limit);
    out.push(page.videos.map((v) => v.video_id));
    if (page.next === null) return out;
    position = page.next;
  }
  throw new Error('the listing did not end');
}

describe('assemblePage', () => {
  const PAGES = { FIRST: { ids: ids('a', 20), next: 't2' }, t2: { ids: ids('b', 20), next: 't3' }, t3: { ids: ids('c', 5), next: null } };

  test('limit 7 over pages of 20, 20, 5: 7,7,7,7,7,7,3 with nothing lost, doubled or reordered', async () => {
    const { fetch } = platform(PAGES);
    const pages = await allPages(fetch, 7);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
    expect(pages.flat()).toEqual([...ids('a', 20), ...ids('b', 20), ...ids('c', 5)]);
  });

  test.each([1, 3, 5, 19, 20, 21, 44, 45, 50])('limit %i: every page full but the last, concatenation = platform order', async (limit) => {
    const { fetch } = platform(PAGES);
    const pages = await allPages(fetch, limit);
    expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
    expect(pages[pages.length - 1].length).toBeGreaterThan(0);
    expect(pages[pages.length - 1].length).toBeLessThanOrEqual(limit);
    expect(pages.flat()).toEqual([...ids('a', 20), ...ids('b', 20), ...ids('c', 5)]);
  });

  test('positions: the token of the platform page being read and how many of its videos were handed out', async () => {
    const { fetch, calls } = platform(PAGES);
    const first = await assemblePage(fetch, null, 7);
    expect(first.next).toEqual({ continuation: null, skip: 7 });
    const third = await assemblePage(fetch, { continuation: null, skip: 14 }, 7);
    expect(third.videos.map((v) => v.video_id)).toEqual([...ids('a', 20).slice(14), 'b0']);
    expect(third.next).toEqual({ continuation: 't2', skip: 1 });
    // A page ending exactly at a platform page's end continues at the next platform page, without reading it.
    calls.length = 0;
    const exact = await assemblePage(fetch, null, 20);
    expect(exact.next).toEqual({ continuation: 't2', skip: 0 });
    expect(calls).toEqual([null]);
  });

  test('repeats within a page and against the skipped videos are dropped, and the page is still full', async () => {
    const { fetch } = platform({
      FIRST: { ids: ['a0', 'a1', 'a2', 'a3'], next: 't2' },
      t2: { ids: ['a1', 'b0', 'a3', 'b1', 'b1', 'b2', 'b3'], next: null },
    });
    const page = await assemblePage(fetch, { continuation: null, skip: 2 }, 4);
    // a1 was skipped (handed out on the previous page), a3 is on this page already, b1 twice.
    expect(page.videos.map((v) => v.video_id)).toEqual(['a2', 'a3', 'b0', 'b1']);
    // The cut steps over the repeat right after it.
    expect(page.next).toEqual({ continuation: 't2', skip: 5 });
    const rest = await assemblePage(fetch, page.next, 4);
    expect(rest.videos.map((v) => v.video_id)).toEqual(['b2', 'b3']);
    expect(rest.next).toBeNull();
  });

  test('a continuation token the platform repeats ends the listing instead of looping', async () => {
    const loop = platform({ FIRST: { ids: ids('a', 3), next: 't2' }, t2: { ids: ids('b', 3), next: 't2' } });
    const page = await assemblePage(loop.fetch, null, 10);
    expect(page.videos.map((v) => v.video_id)).toEqual([...ids('a', 3), ...ids('b', 3)]);
    expect(page.next).toBeNull();
    expect(loop.calls).toEqual([null, 't2']);

    // Back to an earlier token: also the end.
    const cycle = platform({
      FIRST: { ids: ids('a', 3), next: 't2' },
      t2: { ids: ids('b', 3), next: 't3' },
      t3: { ids: ids('c', 3), next: 't2' },
    });
    const cycled = await assemblePage(cycle.fetch, null, 20);
    expect(cycled.videos).toHaveLength(9);
    expect(cycled.next).toBeNull();

    // Starting at a token whose page names itself as next: the page's videos, then the end.
    const self = platform({ t2: { ids: ids('b', 3), next: 't2' } });
    const fromSelf = await assemblePage(self.fetch, { continuation: 't2', skip: 1 }, 5);
    expect(fromSelf.videos.map((v) => v.video_id)).toEqual(['b1', 'b2']);
    expect(fromSelf.next).toBeNull();
  });

  test('a full page whose rest is only repeats and no continuation is the last page', async () => {
    const { fetch } = platform({ FIRST: { ids: ['a0', 'a1', 'a0', 'a1'], next: null } });
    const page = await assemblePage(fetch, null, 2);
    expect(page.next).toBeNull();
  });

  test('platform pages without videos are read through; too many in a row end the listing', async () => {
    const empty = platform({ FIRST: { ids: [], next: 't2' }, t2: { ids: [], next: 't3' }, t3: { ids: ids('c', 2), next: null } });
    expect((await assemblePage(empty.fetch, null, 5)).videos).toHaveLength(2);

    let n = 0;
    const endless = async (): Promise<PlatformPage> => ({ videos: [], continuation: `t${++n}` });
    const page = await assemblePage(endless, null, 5, 4);
    expect(page).toEqual({ videos: [], next: null });
    expect(n).toBe(4);
  });

  test('a limit below 1 is refused', async () => {
    const { fetch } = platform(PAGES);
    await expect(assemblePage(fetch, null, 0)).rejects.toMatchObject({ code: 'INVALID_REQUEST', detail: 'limit' });
  });
});

describe('caption codes of named tracks', () => {
  const t = (language: string, kind: 'creator' | 'automatic', trackName = '', vssId = `.${language}`) => ({
    language,
    kind,
    trackName,
    vssId,
  });

  test('one track per language and kind keeps the platform code (creator and automatic en are both `en`)', () => {
    expect(
      captionCodes([t('en', 'creator'), t('en', 'automatic', '', 'a.en'), t('de', 'creator'), t('fr', 'creator', 'Commentary')]),
    ).toEqual(['en', 'en', 'de', 'fr']);
  });

  test('several creator tracks of one language: the unnamed keeps the code, named ones get a private-use subtag', () => {
    expect(
      captionCodes([
        t('en', 'creator', "Director's commentary", '.en.nQ3fV8aL2kE'),
        t('en', 'creator'),
        t('en', 'creator', 'SDH', '.en.pX7'),
        t('pt-BR', 'creator', 'Legendas'),
        t('pt-BR', 'creator', 'Comentário do diretor'),
      ]),
    ).toEqual(['en-x-director-s-commenta-ry', 'en', 'en-x-sdh', 'pt-BR-x-legendas', 'pt-BR-x-comentar-io-do-diretor']);
  });

  test('names without ASCII letters use the id in the vssId; clashes get a counter; every code is valid BCP 47', () => {
    const codes = captionCodes([
      t('ja', 'creator', '関西弁', '.ja.kH2EDplw2PE'),
      t('ja', 'creator', '標準語', '.ja.Zr8QwLm3Tx0'),
      t('ja', 'creator', '字幕', ''),
      t('es', 'creator', 'Notes'),
      t('es', 'creator', 'notes!'),
    ]);
    expect(codes).toEqual(['ja-x-kh2edplw-2pe', 'ja-x-zr8qwlm3-tx0', 'ja-x-track3', 'es-x-notes', 'es-x-notes-2']);
    // RFC 5646 langtag with a private-use part.
    for (const code of codes) expect(code).toMatch(/^[a-z]{2,3}(-[A-Z]{2})?(-x(-[a-z0-9]{1,8})+)?$/);
  });
});
