import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { createShortvideoSource, type ShortvideoSource } from '../../integrations/platforms/shortvideo';
import { HANDMADE_DIR, startReplayOrigin, type ReplayOrigin, type ReplayRoute } from '../support/replay-origin';
import { expectSaneSegments } from './segment-checks';
import { outcome } from '../support/service-errors';

// Every answer here is HAND-MADE (test/fixtures-handmade/shortvideo/README.md):
// nothing real was recorded for this platform. The tests pin the behaviour the
// protocol notes describe.

const ID = '7301234567890123456';
const PAGE_PATH = `/@i/video/${ID}`;
const SUBTITLES = 'v16-webapp.tiktok.com';

const page = (answer: Partial<ReplayRoute>): ReplayRoute => ({ path: PAGE_PATH, host: 'www.tiktok.com', ...answer });
const subtitle = (file: string, answer: Partial<ReplayRoute> = {}): ReplayRoute => ({
  path: `/handmade/subtitles/${file}`,
  host: SUBTITLES,
  ...answer,
});
const HANDMADE_PAGE = readFileSync(path.join(HANDMADE_DIR, 'shortvideo/video-page.HANDMADE.html'), 'utf8');

/** The hand-made page with its rehydration data changed (the other status-code pages). */
function pageWith(edit: (data: any) => void): string {
  const json = /<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application\/json">([\s\S]*?)<\/script>/.exec(HANDMADE_PAGE)![1];
  const data = JSON.parse(json);
  edit(data);
  return HANDMADE_PAGE.replace(json, JSON.stringify(data));
}
const detail = (data: any) => data.__DEFAULT_SCOPE__['webapp.video-detail'];
const subtitleInfos = (data: any) => detail(data).itemInfo.itemStruct.video.subtitleInfos as Array<Record<string, string>>;

const ALL_SUBTITLES: ReplayRoute[] = [
  subtitle('asr-eng-US.vtt', { handmade: 'shortvideo/subtitle-asr-eng-US.HANDMADE.vtt' }),
  subtitle('creator-eng-US.vtt', { handmade: 'shortvideo/subtitle-creator-eng-US.HANDMADE.vtt' }),
  subtitle('creator-eng-US.json', { handmade: 'shortvideo/subtitle-creator-eng-US.HANDMADE.json' }),
  subtitle('mt-spa-ES.vtt', { handmade: 'shortvideo/subtitle-mt-spa-ES.HANDMADE.vtt' }),
];

let origin: ReplayOrigin;
let outbound: Outbound;
let shortvideo: ShortvideoSource;

beforeAll(async () => {
  origin = await startReplayOrigin();
  outbound = createOutbound({ originOverride: origin.url, timeoutMs: 3000 });
  shortvideo = createShortvideoSource({ outbound });
});
afterEach(() => {
  origin.requests.length = 0;
});
afterAll(async () => {
  await outbound.close();
  await origin.close();
});

const subtitleCalls = () => origin.requests.filter((r) => r.forwardedHost === SUBTITLES).map((r) => r.path.split('/').pop());

describe('shortvideo captions (hand-made fixtures)', () => {
  beforeEach(() => origin.setRoutes([page({ handmade: 'shortvideo/video-page.HANDMADE.html' }), ...ALL_SUBTITLES]));

  test('default: the creator track, WebVTT preferred over its JSON twin; title and duration from the page', async () => {
    const result = await shortvideo.fetchCaptions(ID);
    expect(result).toMatchObject({
      language: 'en-US',
      sourceOrigin: 'creator_captions',
      title: 'Sourdough in 20 seconds #bread #handmade',
      durationSeconds: 21,
      track: { language_code: 'en-US', name: 'eng-US', kind: 'creator', is_default: true, format: 'vtt' },
    });
    expectSaneSegments(result.segments);
    expect(result.segments.map((s) => s.text)).toEqual([
      'Today: sourdough,',
      'bread & butter edition.',
      'Twenty seconds, start to finish.',
    ]);
    expect(subtitleCalls()).toEqual(['creator-eng-US.vtt']);
    // The page is asked for at the canonical URL on the platform host, through the override.
    const pageReq = origin.requests[0];
    expect(pageReq.url).toBe(PAGE_PATH);
    expect(pageReq.forwardedHost).toBe('www.tiktok.com');
    expect(pageReq.headers.accept).toMatch(/^text\/html/);
  });

  test('automatic_only: the ASR track, not the machine translation', async () => {
    const result = await shortvideo.fetchCaptions(ID, { captionPreference: 'automatic_only' });
    expect(result.sourceOrigin).toBe('platform_captions');
    expect(result.track).toMatchObject({ kind: 'automatic', language_code: 'en-US' });
    expect(result.segments.map((s) => s.text)).toEqual([
      'so today we are making',
      'sourdough bread & butter',
      'it only takes twenty seconds',
    ]);
    expect(subtitleCalls()).toEqual(['asr-eng-US.vtt']);
  });

  test.each([
    ['es → the machine-translated Spanish track', ['es'], undefined, 'OK:es-ES:automatic'],
    ['es-MX → Spanish of another region', ['es-MX'], undefined, 'OK:es-ES:automatic'],
    ['fr, en → English creator', ['fr', 'en'], undefined, 'OK:en-US:creator'],
    ['en-GB, automatic_only → US English ASR', ['en-GB'], 'automatic_only', 'OK:en-US:automatic'],
    ['es, creator_only → none', ['es'], 'creator_only', 'LANGUAGE_UNAVAILABLE'],
    ['fr → none', ['fr'], undefined, 'LANGUAGE_UNAVAILABLE'],
  ] as const)('caption_languages %s', async (_what, languages, preference, expected) => {
    let got: string;
    try {
      const r = await shortvideo.fetchCaptions(ID, { captionLanguages: languages, captionPreference: preference });
      got = `OK:${r.language}:${r.track.kind}`;
    } catch (err) {
      got = (err as { code: string }).code;
    }
    expect(got).toBe(expected);
  });

  test('the creator_caption JSON is used when it is the only creator format', async () => {
    origin.setRoutes([
      page({
        body: pageWith(
          (d) =>
            (detail(d).itemInfo.itemStruct.video.subtitleInfos = subtitleInfos(d).filter(
              (s) => !(s.Source === 'LC' && s.Format === 'webvtt'),
            )),
        ),
      }),
      ...ALL_SUBTITLES,
    ]);
    const result = await shortvideo.fetchCaptions(ID);
    expect(result.track.format).toBe('utterances');
    expect(result.sourceOrigin).toBe('creator_captions');
    expect(result.segments[1]).toEqual({ start: 2.4, end: 5, text: 'bread & butter edition.' });
  });

  test('language discovery: one entry per language and kind, creator English as default', async () => {
    expect(await shortvideo.listCaptionTracks(ID)).toEqual([
      { language_code: 'en-US', name: 'eng-US', kind: 'automatic', is_default: false },
      { language_code: 'en-US', name: 'eng-US', kind: 'creator', is_default: true },
      { language_code: 'es-ES', name: 'spa-ES', kind: 'automatic', is_default: false },
    ]);
  });
});

describe('shortvideo refusals (hand-made fixtures)', () => {
  test.each([
    ['private post (10216)', 'SOURCE_PRIVATE', page({ handmade: 'shortvideo/private-post-page.HANDMADE.html' })],
    [
      'private account (10222)',
      'SOURCE_PRIVATE',
      page({ body: pageWith((d) => (d.__DEFAULT_SCOPE__['webapp.video-detail'] = { statusCode: 10222, statusMsg: '' })) }),
    ],
    [
      'address blocked (10204)',
      'SOURCE_BLOCKED',
      page({ body: pageWith((d) => (d.__DEFAULT_SCOPE__['webapp.video-detail'] = { statusCode: 10204 })) }),
    ],
    [
      'other status code',
      'SOURCE_NOT_FOUND',
      page({ body: pageWith((d) => (d.__DEFAULT_SCOPE__['webapp.video-detail'] = { statusCode: 10101 })) }),
    ],
    [
      'adults-only post (isContentClassified, no video)',
      'SOURCE_AUTH_REQUIRED',
      page({
        body: pageWith((d) => {
          const item = detail(d).itemInfo.itemStruct;
          delete item.video;
          item.isContentClassified = true;
        }),
      }),
    ],
    ['no subtitles', 'NO_CAPTIONS', page({ body: pageWith((d) => (detail(d).itemInfo.itemStruct.video.subtitleInfos = [])) })],
    ['challenge page', 'SOURCE_BLOCKED', page({ handmade: 'shortvideo/challenge-page.HANDMADE.html' })],
    ['a page without any data', 'SOURCE_CHANGED', page({ handmade: 'shortvideo/login-page.HANDMADE.html' })],
    [
      'rehydration data without video-detail',
      'SOURCE_CHANGED',
      page({ body: pageWith((d) => delete d.__DEFAULT_SCOPE__['webapp.video-detail']) }),
    ],
    ['HTTP 429', 'SOURCE_RATE_LIMITED', page({ status: 429, body: 'slow down' })],
    ['HTTP 404', 'SOURCE_NOT_FOUND', page({ status: 404, body: 'gone' })],
  ])('%s → %s', async (_what, code, route) => {
    origin.setRoutes([route, ...ALL_SUBTITLES]);
    expect(await outcome(shortvideo.fetchCaptions(ID))).toBe(code);
    expect(subtitleCalls()).toEqual([]);
  });

  test('redirect to the login page → SOURCE_AUTH_REQUIRED (followed through the override)', async () => {
    origin.setRoutes([
      page({
        status: 302,
        headers: { location: `https://www.tiktok.com/login?redirect_url=https%3A%2F%2Fwww.tiktok.com%2F%40i%2Fvideo%2F${ID}` },
      }),
      { path: '/login', host: 'www.tiktok.com', handmade: 'shortvideo/login-page.HANDMADE.html' },
    ]);
    expect(await outcome(shortvideo.fetchCaptions(ID))).toBe('SOURCE_AUTH_REQUIRED');
    expect(origin.requests.map((r) => r.path)).toEqual([PAGE_PATH, '/login']);
  });

  test('the video page may redirect to the real handle first', async () => {
    origin.setRoutes([
      page({ status: 301, headers: { location: `/@handmade.creator/video/${ID}` } }),
      { path: `/@handmade.creator/video/${ID}`, host: 'www.tiktok.com', handmade: 'shortvideo/video-page.HANDMADE.html' },
      ...ALL_SUBTITLES,
    ]);
    expect((await shortvideo.fetchCaptions(ID)).language).toBe('en-US');
  });

  test.each([
    ['HTTP 403 (expired signature)', 'SOURCE_BLOCKED', { status: 403, body: '' }],
    ['HTTP 429', 'SOURCE_RATE_LIMITED', { status: 429, body: '' }],
    ['empty body', 'SOURCE_CHANGED', { body: '' }],
    ['not captions', 'SOURCE_CHANGED', { body: '<html><body>hi</body></html>' }],
  ])('subtitle URL answers %s → %s', async (_what, code, answer) => {
    origin.setRoutes([page({ handmade: 'shortvideo/video-page.HANDMADE.html' }), subtitle('creator-eng-US.vtt', answer)]);
    expect(await outcome(shortvideo.fetchCaptions(ID))).toBe(code);
  });

  test('a share id is refused before any request', async () => {
    expect(await outcome(shortvideo.fetchCaptions('share:ZMabc123'))).toBe('UNSUPPORTED_SOURCE');
    expect(origin.requests).toHaveLength(0);
  });
});

describe('shortvideo share links', () => {
  test('vm. link: the redirect names the video (the video page itself is not fetched)', async () => {
    origin.setRoutes([
      {
        path: '/ZMabc123/',
        host: 'vm.tiktok.com',
        status: 301,
        headers: { location: `https://www.tiktok.com/@handmade.creator/video/${ID}?_r=1&_t=x` },
      },
    ]);
    expect(await shortvideo.resolveShareLink('https://vm.tiktok.com/ZMabc123/')).toEqual({
      mediaId: ID,
      canonicalUrl: `https://www.tiktok.com/@i/video/${ID}`,
    });
    expect(origin.requests.map((r) => `${r.forwardedHost}${r.path}`)).toEqual(['vm.tiktok.com/ZMabc123/']);
  });

  test('vt. link answering with a page that links to the video', async () => {
    origin.setRoutes([{ path: '/ZSxyz789/', host: 'vt.tiktok.com', handmade: 'shortvideo/share-link-page.HANDMADE.html' }]);
    expect((await shortvideo.resolveShareLink('https://vt.tiktok.com/ZSxyz789/')).mediaId).toBe(ID);
  });

  test('a share link to another share link, then to the mobile form', async () => {
    origin.setRoutes([
      { path: '/t/ZT8abcDEF/', host: 'www.tiktok.com', status: 302, headers: { location: 'https://vm.tiktok.com/ZMabc123/' } },
      { path: '/ZMabc123/', host: 'vm.tiktok.com', status: 302, headers: { location: `https://m.tiktok.com/v/${ID}.html?u_code=x` } },
    ]);
    expect((await shortvideo.resolveShareLink('https://www.tiktok.com/t/ZT8abcDEF/')).mediaId).toBe(ID);
  });

  test.each([
    ['dead code sent to the home page', 'SOURCE_NOT_FOUND', { status: 302, headers: { location: 'https://www.tiktok.com/' } }],
    ['HTTP 404', 'SOURCE_NOT_FOUND', { status: 404, body: '' }],
    ['login wall', 'SOURCE_AUTH_REQUIRED', { status: 302, headers: { location: 'https://www.tiktok.com/login?redirect_url=x' } }],
    ['throttled', 'SOURCE_RATE_LIMITED', { status: 429, body: '' }],
    ['a page without a video link', 'SOURCE_NOT_FOUND', { body: '<html><body>nothing</body></html>' }],
  ])('%s → %s', async (_what, code, answer) => {
    origin.setRoutes([{ path: '/ZMdead00/', host: 'vm.tiktok.com', ...answer }]);
    expect(await outcome(shortvideo.resolveShareLink('https://vm.tiktok.com/ZMdead00/'))).toBe(code);
  });

  test('a link that needs no resolving is returned as recognised, without a request', async () => {
    expect(await shortvideo.resolveShareLink(`https://www.tiktok.com/embed/v2/${ID}`)).toEqual({
      mediaId: ID,
      canonicalUrl: `https://www.tiktok.com/@i/video/${ID}`,
    });
    expect(origin.requests).toHaveLength(0);
  });
});
