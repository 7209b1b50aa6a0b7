import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { createVideositeSource, timedtextUrl, type VideositeSource } from '../../integrations/platforms/videosite';
import {
  ANDROID_PLAYER,
  ANDROID_REEL,
  DEFAULT_VIDEOSITE_CLIENTS,
  VISIONOS_PLAYER,
  type InnertubeClient,
} from '../../integrations/platforms/videosite-clients';
import type { CaptionOptions } from '../../integrations/platforms/types';
import {
  FIXTURES_DIR,
  fixturesAvailable,
  startReplayOrigin,
  type RecordedRequest,
  type ReplayOrigin,
  type ReplayRoute,
} from '../support/replay-origin';
import { expectSaneSegments } from './segment-checks';
import { outcome } from '../support/service-errors';

// Every recorded videosite player response and error case, replayed through
// the outbound layer with the origin override: the code under test sends real
// platform URLs, the replay origin answers with the recording.

const describeRecorded = fixturesAvailable() || process.env.CI ? describe : describe.skip;

const PLAYER = '/youtubei/v1/player';
const REEL = '/youtubei/v1/reel/reel_item_watch';
const TIMEDTEXT = '/api/timedtext';
const INNERTUBE_HOST = 'youtubei.googleapis.com';

const clientName = (req: RecordedRequest) =>
  (JSON.parse(req.body) as { context: { client: { clientName: string } } }).context.client.clientName;

/** The player answer of one client, from a recording (`*.newpipe-mock.json`) or a raw body file. */
function player(client: InnertubeClient, file: string, extra: Partial<ReplayRoute> = {}): ReplayRoute {
  const source = file.endsWith('.newpipe-mock.json') ? { recording: file } : { fixture: file };
  return {
    method: 'POST',
    path: client.endpoint === 'reel_item_watch' ? REEL : PLAYER,
    host: INNERTUBE_HOST,
    when: (req) => clientName(req) === client.client.clientName,
    ...source,
    ...extra,
  };
}

/** A caption body for the track whose baseUrl has this lang (and kind=asr or not). */
function captions(lang: string, asr: boolean, answer: Partial<ReplayRoute>): ReplayRoute {
  return {
    path: TIMEDTEXT,
    host: 'www.youtube.com',
    when: (req) => req.query.get('lang') === lang && (req.query.get('kind') === 'asr') === asr,
    ...answer,
  };
}

const SRV3 = { fixture: 'videosite/caption-bodies/srv3/mesmerizer.srv3.xml' };
const STYLED = { fixture: 'videosite/caption-bodies/srv3/aria-styled.srv3.xml' };
const VTT_ASR = { fixture: 'videosite/caption-bodies/webvtt/youtube_dl-asr-excerpt.vtt' };
const FORMAT1 = { fixture: 'videosite/caption-bodies/timedtext-format1/transcript.SYNTHETIC.xml' };
const JSON3 = { handmade: 'videosite/json3/creator-en.HANDMADE.json3.json' };
const JSON3_ASR = { handmade: 'videosite/json3/asr-en.HANDMADE.json3.json' };

const F1X = 'videosite/player-captions/android-player-F1xioXWb8CY-en-manual-and-asr.innertube.json';
const GJL = 'videosite/player-captions/android-player-GJLlxj_dtq8-9tracks.innertube.json';
const GJL_SECOND = 'videosite/player-captions/android-player-GJLlxj_dtq8-second-fetch.innertube.json';
const RCAS_REEL = 'videosite/player-captions/android-reel_item_watch-rCAS2eD-mcw-13tracks.newpipe-mock.json';
const RCAS_VISIONOS = 'videosite/player-captions/visionos-player-rCAS2eD-mcw-13tracks.newpipe-mock.json';
const E = (file: string) => `videosite/errors/${file}`;

let origin: ReplayOrigin;
let outbound: Outbound;

function source(clients: readonly InnertubeClient[]): VideositeSource {
  return createVideositeSource({ outbound, clients });
}

const playerCalls = () =>
  origin.requests.filter((r) => r.path === PLAYER || r.path === REEL).map((r) => `${r.path === REEL ? 'reel' : 'player'}:${clientName(r)}`);
const captionCalls = () => origin.requests.filter((r) => r.path === TIMEDTEXT);

describeRecorded('videosite captions from recorded responses', () => {
  beforeAll(async () => {
    origin = await startReplayOrigin();
    outbound = createOutbound({ originOverride: origin.url, timeoutMs: 3000 });
  });
  afterEach(() => {
    origin.requests.length = 0;
  });
  afterAll(async () => {
    await outbound.close();
    await origin.close();
  });

  describe('player responses with caption tracks', () => {
    test('ANDROID /player, manual + automatic English: default is the creator track; title and length from videoDetails', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, F1X), captions('en', false, SRV3), captions('en', true, VTT_ASR)]);
      const result = await source([ANDROID_PLAYER]).fetchCaptions('F1xioXWb8CY');

      expect(result.language).toBe('en');
      expect(result.sourceOrigin).toBe('creator_captions');
      expect(result.title).toBe('The Tide Is Turning - Russian Civil War Fall 1919 I THE GREAT WAR 1919');
      expect(result.durationSeconds).toBe(1509);
      expect(result.track).toEqual({
        language_code: 'en',
        name: 'English',
        kind: 'creator',
        is_default: true,
        format: 'srv3',
        client: 'ANDROID',
      });
      expectSaneSegments(result.segments);
      expect(result.segments[0]).toEqual({ start: 5.97, end: 13.89, text: '《Mesmerizer》' });

      // The player request: real path and query, platform host forwarded, the client's context and UA.
      const [playerReq, captionReq] = origin.requests;
      expect(playerReq.url).toBe('/youtubei/v1/player?prettyPrint=false');
      expect(playerReq.forwardedHost).toBe(INNERTUBE_HOST);
      expect(playerReq.headers['user-agent']).toBe(ANDROID_PLAYER.userAgent);
      expect(JSON.parse(playerReq.body)).toMatchObject({
        videoId: 'F1xioXWb8CY',
        contentCheckOk: true,
        racyCheckOk: true,
        context: { client: { clientName: 'ANDROID' } },
      });

      // The caption request: the recorded baseUrl with fmt=srv3 swapped for fmt=json3, signature untouched.
      const recorded = (
        JSON.parse(readFileSync(path.join(FIXTURES_DIR, F1X), 'utf8')) as {
          captions: { playerCaptionsTracklistRenderer: { captionTracks: Array<{ baseUrl: string }> } };
        }
      ).captions.playerCaptionsTracklistRenderer.captionTracks[0].baseUrl;
      expect(captionReq.forwardedHost).toBe('www.youtube.com');
      expect(captionReq.query.getAll('fmt')).toEqual(['json3']);
      expect(captionReq.query.get('signature')).toBe(new URL(recorded).searchParams.get('signature'));
      expect(captionReq.url).toBe(new URL(recorded).pathname + new URL(recorded).search.replace('&fmt=srv3', '&fmt=json3'));
    });

    test('automatic_only takes the kind=asr track, parsed from rolling WebVTT', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, F1X), captions('en', false, SRV3), captions('en', true, VTT_ASR)]);
      const result = await source([ANDROID_PLAYER]).fetchCaptions('F1xioXWb8CY', { captionPreference: 'automatic_only' });
      expect(result.sourceOrigin).toBe('platform_captions');
      expect(result.track).toMatchObject({ kind: 'automatic', name: 'English (auto-generated)', is_default: false, format: 'vtt' });
      expect(captionCalls()[0].query.get('kind')).toBe('asr');
      expectSaneSegments(result.segments);
      expect(result.segments.map((s) => s.text)).toEqual(['yeah', 'what', "this will happen is I'm telling"]);
    });

    test.each([
      ['de', ['de'], JSON3, 'json3'],
      ['first available of several', ['pt-BR', 'fr', 'ja'], FORMAT1, 'srv1'],
      ['regional tag finds the bare track', ['es-MX'], STYLED, 'srv3'],
    ])('9 tracks (GJLlxj_dtq8), caption_languages %s', async (_what, languages, body, format) => {
      const lang = languages.includes('de') ? 'de' : languages.includes('ja') ? 'ja' : 'es';
      origin.setRoutes([player(ANDROID_PLAYER, GJL), captions(lang, false, body)]);
      const result = await source([ANDROID_PLAYER]).fetchCaptions('GJLlxj_dtq8', { captionLanguages: languages });
      expect(result.language).toBe(lang);
      expect(result.track.format).toBe(format);
      expect(result.title).toBe('Surface Go Review - It’s Awesome');
      expectSaneSegments(result.segments);
      expect(captionCalls()).toHaveLength(1);
    });

    test('9 tracks: a language the video lacks is LANGUAGE_UNAVAILABLE without fetching any captions', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, GJL)]);
      const err = await source([ANDROID_PLAYER, VISIONOS_PLAYER])
        .fetchCaptions('GJLlxj_dtq8', { captionLanguages: ['fr', 'it'] })
        .catch((e) => e);
      expect(err).toMatchObject({ code: 'LANGUAGE_UNAVAILABLE', detail: expect.stringContaining('fr, it') });
      expect(captionCalls()).toHaveLength(0);
      expect(playerCalls()).toEqual(['player:ANDROID']); // about the video, not the client: no fallback
    });

    test('both recorded fetches of GJLlxj_dtq8 list the same 9 tracks with creator English as default', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, GJL)]);
      const first = await source([ANDROID_PLAYER]).listCaptionTracks('GJLlxj_dtq8');
      origin.setRoutes([player(ANDROID_PLAYER, GJL_SECOND)]);
      const second = await source([ANDROID_PLAYER]).listCaptionTracks('GJLlxj_dtq8');
      expect(second).toEqual(first);
      expect(first.map((t) => `${t.language_code}:${t.kind}`)).toEqual([
        'zh:creator',
        'cs:creator',
        'en:creator',
        'en:automatic',
        'de:creator',
        'hi:creator',
        'ja:creator',
        'ko:creator',
        'es:creator',
      ]);
      expect(first.filter((t) => t.is_default)).toEqual([{ language_code: 'en', name: 'English', kind: 'creator', is_default: true }]);
    });

    test('ANDROID reel_item_watch (2026 recording): unwraps playerResponse, default track from audioTracks', async () => {
      origin.setRoutes([player(ANDROID_REEL, RCAS_REEL), captions('en', false, JSON3)]);
      const result = await source([ANDROID_REEL]).fetchCaptions('rCAS2eD-mcw');
      expect(result.title).toBe('Laryngeal Mask Airway (LMA) insertion | ESSENTIAL TECHNIQUES for standard patients');
      expect(result.durationSeconds).toBe(343);
      expect(result.track).toMatchObject({
        language_code: 'en',
        kind: 'creator',
        is_default: true,
        format: 'json3',
        client: 'ANDROID_REEL',
      });
      expect(result.segments[0]).toEqual({ start: 1.2, end: 3.5, text: 'Hello and welcome' });
      const reelReq = origin.requests[0];
      expect(reelReq.url).toBe('/youtubei/v1/reel/reel_item_watch?prettyPrint=false&$fields=playerResponse');
      expect(JSON.parse(reelReq.body)).toMatchObject({
        playerRequest: { videoId: 'rCAS2eD-mcw', contentCheckOk: true },
        disablePlayerResponse: false,
      });
    });

    test('VISIONOS /player (2026 recording): baseUrl without fmt gets fmt=json3; Filipino by request', async () => {
      origin.setRoutes([player(VISIONOS_PLAYER, RCAS_VISIONOS), captions('fil', false, JSON3_ASR)]);
      const result = await source([VISIONOS_PLAYER]).fetchCaptions('rCAS2eD-mcw', { captionLanguages: ['fil'] });
      expect(result.language).toBe('fil');
      expect(result.segments.map((s) => s.text)).toEqual(['so today we', 'are going to bake', 'bread at home']);
      expect(captionCalls()[0].query.getAll('fmt')).toEqual(['json3']);
      expect(captionCalls()[0].url.endsWith('&lang=fil&fmt=json3')).toBe(true);
    });

    test('VISIONOS and ANDROID reel list the same 13 tracks', async () => {
      origin.setRoutes([player(VISIONOS_PLAYER, RCAS_VISIONOS), player(ANDROID_REEL, RCAS_REEL)]);
      const visionos = await source([VISIONOS_PLAYER]).listCaptionTracks('rCAS2eD-mcw');
      const reel = await source([ANDROID_REEL]).listCaptionTracks('rCAS2eD-mcw');
      expect(visionos).toEqual(reel);
      expect(visionos).toHaveLength(13);
      expect(visionos.filter((t) => t.kind === 'automatic')).toEqual([
        { language_code: 'en', name: 'English (auto-generated)', kind: 'automatic', is_default: false },
      ]);
      expect(visionos.filter((t) => t.is_default).map((t) => t.language_code)).toEqual(['en']);
    });
  });

  describe('live videos', () => {
    test('a video on air gives its HLS manifest (the recorded live answer); a video that is not on air gives none', async () => {
      origin.setRoutes([player(VISIONOS_PLAYER, E('no-captions/visionos-player-livestream-no-captions.newpipe-mock.json'))]);
      const manifest = await source([VISIONOS_PLAYER]).findLiveManifest('X4VbdwhkE10');
      expect(manifest).toMatch(/^https:\/\/manifest\.googlevideo\.com\/api\/manifest\/hls_variant\/.*\/id\/X4VbdwhkE10\.1\//);
      origin.setRoutes([player(ANDROID_PLAYER, GJL)]);
      expect(await source([ANDROID_PLAYER]).findLiveManifest('GJLlxj_dtq8')).toBeNull();
    });

    test('a client whose answer for a live video has no manifest is passed over for the next', async () => {
      const live = JSON.parse(
        JSON.parse(readFileSync(path.join(FIXTURES_DIR, E('no-captions/visionos-player-livestream-no-captions.newpipe-mock.json')), 'utf8'))
          .response.responseBody,
      );
      const { hlsManifestUrl: _gone, ...withoutManifest } = live.streamingData;
      origin.setRoutes([
        { method: 'POST', path: PLAYER, when: (r) => clientName(r) === 'ANDROID', json: { ...live, streamingData: withoutManifest } },
        { method: 'POST', path: PLAYER, when: (r) => clientName(r) === 'VISIONOS', json: live },
      ]);
      expect(await source([ANDROID_PLAYER, VISIONOS_PLAYER]).findLiveManifest('X4VbdwhkE10')).toBe(live.streamingData.hlsManifestUrl);
      expect(playerCalls()).toEqual(['player:ANDROID', 'player:VISIONOS']);
    });
  });

  describe('error recordings', () => {
    test.each([
      [
        'nonexistent id (reel `{}`)',
        'SOURCE_NOT_FOUND',
        ANDROID_REEL,
        E('nonexistent/android-reel_item_watch-nonexistent-id.newpipe-mock.json'),
        'don-t-exist',
      ],
      [
        'invalid id (reel `{}`)',
        'SOURCE_NOT_FOUND',
        ANDROID_REEL,
        E('nonexistent/android-reel_item_watch-invalid-id.newpipe-mock.json'),
        'INVALID_ID_',
      ],
      [
        'removed video (ERROR unavailable)',
        'SOURCE_NOT_FOUND',
        ANDROID_PLAYER,
        E('unavailable/android-player-video-unavailable.innertube.json'),
        'aaaaaaaaaaa',
      ],
      ['private', 'SOURCE_PRIVATE', ANDROID_REEL, E('private/android-reel_item_watch-private.newpipe-mock.json'), '8VajtrESJzA'],
      [
        'region blocked',
        'SOURCE_REGION_RESTRICTED',
        ANDROID_REEL,
        E('region-blocked/android-reel_item_watch-region-blocked.newpipe-mock.json'),
        '_PL2HJKxnOM',
      ],
      [
        'no captions (dsMFmonKDD4)',
        'NO_CAPTIONS',
        ANDROID_PLAYER,
        E('no-captions/android-player-dsMFmonKDD4-no-captions.innertube.json'),
        'dsMFmonKDD4',
      ],
      [
        'no captions (Fjg5lYqvzUs)',
        'NO_CAPTIONS',
        ANDROID_PLAYER,
        E('no-captions/android-player-Fjg5lYqvzUs-no-captions.innertube.json'),
        'Fjg5lYqvzUs',
      ],
      [
        'no captions (VISIONOS live stream)',
        'NO_CAPTIONS',
        VISIONOS_PLAYER,
        E('no-captions/visionos-player-livestream-no-captions.newpipe-mock.json'),
        'X4VbdwhkE10',
      ],
    ])('%s → %s, final: the next client is not asked', async (_what, code, client, file, videoId) => {
      const other = client === VISIONOS_PLAYER ? ANDROID_PLAYER : VISIONOS_PLAYER;
      origin.setRoutes([player(client, file), player(other, GJL)]);
      expect(await outcome(source([client, other]).fetchCaptions(videoId))).toBe(code);
      expect(playerCalls()).toHaveLength(1);
      expect(captionCalls()).toHaveLength(0);
    });

    test.each([
      ['age-restricted', 'SOURCE_AUTH_REQUIRED', E('age-restricted/android-player-age-restricted.innertube.json'), /inappropriate/],
      ['bot check', 'SOURCE_BLOCKED', E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json'), /not a bot/],
      [
        'custom UNPLAYABLE with subreasons (EDITED)',
        'SOURCE_CHANGED',
        E('unplayable-custom/android-player-custom-reason.EDITED.innertube.json'),
        /Custom Reason \| Sub Reason 1Sub Reason 2/,
      ],
    ])('%s: refused on every client → %s', async (_what, code, file, detail) => {
      origin.setRoutes([player(ANDROID_PLAYER, file), player(VISIONOS_PLAYER, file)]);
      const err = await source([ANDROID_PLAYER, VISIONOS_PLAYER])
        .fetchCaptions('GJLlxj_dtq8')
        .catch((e) => e);
      expect(err).toMatchObject({ code, detail: expect.stringMatching(detail) });
      expect(playerCalls()).toEqual(['player:ANDROID', 'player:VISIONOS']);
    });

    test.each([
      ['age-restricted', E('age-restricted/android-player-age-restricted.innertube.json')],
      ['bot check', E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json')],
      ['custom UNPLAYABLE (EDITED)', E('unplayable-custom/android-player-custom-reason.EDITED.innertube.json')],
      ['PO-token track (EDITED)', E('po-token-required/android-player-with-exp-xpe.EDITED.innertube.json')],
    ])('client fallback: %s on the first client, captions from the second', async (_what, file) => {
      origin.setRoutes([player(ANDROID_PLAYER, file), player(VISIONOS_PLAYER, RCAS_VISIONOS), captions('en', false, SRV3)]);
      const result = await source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('GJLlxj_dtq8');
      expect(result.track.client).toBe('VISIONOS');
      expect(result.title).toBe('Laryngeal Mask Airway (LMA) insertion | ESSENTIAL TECHNIQUES for standard patients');
      expectSaneSegments(result.segments);
      expect(playerCalls()).toEqual(['player:ANDROID', 'player:VISIONOS']);
      expect(captionCalls()).toHaveLength(1); // the PO-token track is never fetched
    });

    test('the most telling refusal is reported: age check beats an unreadable answer', async () => {
      origin.setRoutes([
        player(ANDROID_PLAYER, E('unplayable-custom/android-player-custom-reason.EDITED.innertube.json')),
        player(VISIONOS_PLAYER, E('age-restricted/android-player-age-restricted.innertube.json')),
      ]);
      expect(await outcome(source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('GJLlxj_dtq8'))).toBe('SOURCE_AUTH_REQUIRED');
    });

    test('PO-token track (exp=xpe, EDITED): SOURCE_BLOCKED without fetching it; other tracks of the response still work', async () => {
      const file = E('po-token-required/android-player-with-exp-xpe.EDITED.innertube.json');
      origin.setRoutes([player(ANDROID_PLAYER, file), captions('en', false, SRV3), captions('de', false, JSON3)]);
      const err = await source([ANDROID_PLAYER])
        .fetchCaptions('GJLlxj_dtq8')
        .catch((e) => e);
      expect(err).toMatchObject({ code: 'SOURCE_BLOCKED', detail: expect.stringContaining('PO token') });
      expect(captionCalls()).toHaveLength(0);

      const german = await source([ANDROID_PLAYER]).fetchCaptions('GJLlxj_dtq8', { captionLanguages: ['de'] });
      expect(german.language).toBe('de');
    });

    test('PO token demanded at fetch time: HTTP 200 with an empty body is SOURCE_BLOCKED, and the next client is tried', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, GJL), captions('en', false, { body: '' })]);
      expect(await outcome(source([ANDROID_PLAYER]).fetchCaptions('GJLlxj_dtq8'))).toBe('SOURCE_BLOCKED');

      origin.requests.length = 0;
      origin.setRoutes([
        player(ANDROID_PLAYER, GJL),
        player(VISIONOS_PLAYER, RCAS_VISIONOS),
        // The two recordings are of different videos: their track URLs differ by v=.
        { path: TIMEDTEXT, when: (r) => r.query.get('v') === 'GJLlxj_dtq8', body: '' },
        { path: TIMEDTEXT, when: (r) => r.query.get('v') === 'rCAS2eD-mcw', ...SRV3 },
      ]);
      const result = await source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('GJLlxj_dtq8');
      expect(result.track.client).toBe('VISIONOS');
      expect(captionCalls().map((r) => r.query.get('v'))).toEqual(['GJLlxj_dtq8', 'rCAS2eD-mcw']);
    });

    test.each([
      ['HTTP 429 with the recaptcha page', 429],
      ['HTTP 200 with the recaptcha page', 200],
    ])('rate limited at the player: %s → SOURCE_RATE_LIMITED, not retried on another client', async (_what, status) => {
      origin.setRoutes([
        player(ANDROID_PLAYER, E('rate-limited/youtube_too_many_requests.html.static'), { status }),
        player(VISIONOS_PLAYER, RCAS_VISIONOS),
      ]);
      const err = await source([ANDROID_PLAYER, VISIONOS_PLAYER])
        .fetchCaptions('GJLlxj_dtq8')
        .catch((e) => e);
      expect(err).toMatchObject({ code: 'SOURCE_RATE_LIMITED', retryable: true });
      expect(playerCalls()).toEqual(['player:ANDROID']);
    });

    test('rate limited at the caption URL → SOURCE_RATE_LIMITED', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, GJL), captions('en', false, { status: 429, body: 'Too Many Requests' })]);
      expect(await outcome(source([ANDROID_PLAYER]).fetchCaptions('GJLlxj_dtq8'))).toBe('SOURCE_RATE_LIMITED');
    });

    test('the cookie-consent page where JSON was expected is SOURCE_BLOCKED for that client only', async () => {
      origin.setRoutes([
        player(ANDROID_PLAYER, E('consent/youtube_consent_page.html.static')),
        player(VISIONOS_PLAYER, RCAS_VISIONOS),
        captions('en', false, SRV3),
      ]);
      const result = await source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('rCAS2eD-mcw');
      expect(result.track.client).toBe('VISIONOS');

      origin.setRoutes([player(ANDROID_PLAYER, E('consent/youtube_consent_page.html.static'))]);
      expect(await outcome(source([ANDROID_PLAYER]).fetchCaptions('rCAS2eD-mcw'))).toBe('SOURCE_BLOCKED');
    });

    test('no captions: the language discovery lists nothing instead of failing', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, E('no-captions/android-player-dsMFmonKDD4-no-captions.innertube.json'))]);
      expect(await source([ANDROID_PLAYER]).listCaptionTracks('dsMFmonKDD4')).toEqual([]);
    });

    test('language discovery maps refusals like caption fetching does', async () => {
      origin.setRoutes([player(ANDROID_REEL, E('private/android-reel_item_watch-private.newpipe-mock.json'))]);
      expect(await outcome(source([ANDROID_REEL]).listCaptionTracks('8VajtrESJzA'))).toBe('SOURCE_PRIVATE');
    });
  });

  describe('answers no recording covers', () => {
    test.each([
      ['HTTP 403 at the player', 'SOURCE_BLOCKED', { status: 403, body: 'Forbidden' }],
      ['HTTP 500 at the player', 'SOURCE_CHANGED', { status: 500, body: 'oops' }],
      ['JSON without playabilityStatus', 'SOURCE_CHANGED', { json: { responseContext: {} } }],
      [
        'caption tracks without baseUrl',
        'SOURCE_CHANGED',
        {
          json: {
            playabilityStatus: { status: 'OK' },
            captions: { playerCaptionsTracklistRenderer: { captionTracks: [{ languageCode: 'en' }] } },
          },
        },
      ],
      [
        'members-only',
        'SOURCE_AUTH_REQUIRED',
        {
          json: {
            playabilityStatus: {
              status: 'UNPLAYABLE',
              reason: 'Join this channel to get access to members-only content like this video, and other exclusive perks.',
            },
          },
        },
      ],
      [
        'premiere not started',
        'NO_CAPTIONS',
        { json: { playabilityStatus: { status: 'LIVE_STREAM_OFFLINE', reason: 'Premieres in 2 hours' } } },
      ],
      [
        'throttled session',
        'SOURCE_RATE_LIMITED',
        { json: { playabilityStatus: { status: 'UNPLAYABLE', reason: "This content isn't available, try again later." } } },
      ],
    ])('%s → %s', async (_what, code, answer) => {
      origin.setRoutes([{ ...player(ANDROID_PLAYER, F1X), fixture: undefined, ...answer }]);
      expect(await outcome(source([ANDROID_PLAYER]).fetchCaptions('F1xioXWb8CY'))).toBe(code);
    });

    test('a caption body that is not captions is tried on the next client, then SOURCE_CHANGED', async () => {
      origin.setRoutes([player(ANDROID_PLAYER, GJL), player(VISIONOS_PLAYER, GJL), captions('en', false, { body: 'not captions at all' })]);
      expect(await outcome(source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('GJLlxj_dtq8'))).toBe('SOURCE_CHANGED');
      expect(captionCalls()).toHaveLength(2);
    });

    test('a player that does not answer in time is SOURCE_TIMEOUT', async () => {
      const slow = createOutbound({ originOverride: origin.url, timeoutMs: 100 });
      try {
        origin.setRoutes([player(ANDROID_PLAYER, F1X, { delayMs: 1000 })]);
        const err = await createVideositeSource({ outbound: slow, clients: [ANDROID_PLAYER] })
          .fetchCaptions('F1xioXWb8CY')
          .catch((e) => e);
        expect(err).toMatchObject({ code: 'SOURCE_TIMEOUT', retryable: true });
      } finally {
        await slow.close();
      }
    });

    test('cancellation stops before the next client', async () => {
      const controller = new AbortController();
      origin.setRoutes([
        player(ANDROID_PLAYER, E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json')),
        player(VISIONOS_PLAYER, RCAS_VISIONOS),
      ]);
      const run = source([ANDROID_PLAYER, VISIONOS_PLAYER]).fetchCaptions('GJLlxj_dtq8', {
        signal: controller.signal,
      } satisfies CaptionOptions);
      controller.abort(new Error('cancelled'));
      await expect(run).rejects.toThrow('cancelled');
      expect(playerCalls()).not.toContain('player:VISIONOS');
    });
  });

  test('the default client order starts with ANDROID reel_item_watch, then VISIONOS', async () => {
    expect(DEFAULT_VIDEOSITE_CLIENTS.map((c) => c.id)).toEqual(['ANDROID_REEL', 'VISIONOS', 'ANDROID']);
    origin.setRoutes([
      player(ANDROID_REEL, E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json')),
      player(VISIONOS_PLAYER, RCAS_VISIONOS),
      captions('en', false, SRV3),
    ]);
    const result = await createVideositeSource({ outbound }).fetchCaptions('rCAS2eD-mcw');
    expect(result.track.client).toBe('VISIONOS');
    expect(playerCalls()).toEqual(['reel:ANDROID', 'player:VISIONOS']);
  });
});

describe('timedtextUrl', () => {
  test('swaps fmt for json3, drops xosf and tlang, keeps everything else byte for byte', () => {
    const base = 'https://www.youtube.com/api/timedtext?v=x&sparams=ip,ipbits,expire&signature=AB.CD&xosf=1&lang=en&tlang=de&fmt=srv3';
    expect(timedtextUrl(base)).toBe('https://www.youtube.com/api/timedtext?v=x&sparams=ip,ipbits,expire&signature=AB.CD&lang=en&fmt=json3');
    expect(timedtextUrl('/api/timedtext?v=x&lang=en')).toBe('https://www.youtube.com/api/timedtext?v=x&lang=en&fmt=json3');
  });
});
