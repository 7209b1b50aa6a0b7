import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOutbound, type Outbound } from '../../integrations/outbound/http';
import { createDiscoverySources } from '../../integrations/platforms/discovery';
import type { CaptionTrackListing } from '../../integrations/platforms/discovery-types';
import { createVideositeSource } from '../../integrations/platforms/videosite';
import { ANDROID_PLAYER, ANDROID_REEL, VISIONOS_PLAYER, type InnertubeClient } from '../../integrations/platforms/videosite-clients';
import {
  FIXTURES_DIR,
  HANDMADE_DIR,
  fixturesAvailable,
  startReplayOrigin,
  type ReplayOrigin,
  type ReplayRoute,
} from '../support/replay-origin';
import { outcome } from '../support/service-errors';

// Language discovery lists a videosite video's caption tracks from the same
// player response a caption job reads, and every code it lists must lead a
// captions_only job (caption_languages [code], caption_preference by kind)
// back to exactly that track: checked over every track of the recorded 9- and
// 13-track videos and of a hand-made response with named tracks.

const describeRecorded = fixturesAvailable() || process.env.CI ? describe : describe.skip;

const GJL = 'videosite/player-captions/android-player-GJLlxj_dtq8-9tracks.innertube.json';
const RCAS_REEL = 'videosite/player-captions/android-reel_item_watch-rCAS2eD-mcw-13tracks.body.json';
const NAMED = 'videosite/player/named-tracks.HANDMADE.json';
const SRV3 = { fixture: 'videosite/caption-bodies/srv3/mesmerizer.srv3.xml' };
const E = (file: string) => `videosite/errors/${file}`;

const clientName = (body: string) => (JSON.parse(body) as { context: { client: { clientName: string } } }).context.client.clientName;
const player = (client: InnertubeClient, answer: Partial<ReplayRoute>): ReplayRoute => ({
  method: 'POST',
  path: client.endpoint === 'reel_item_watch' ? '/youtubei/v1/reel/reel_item_watch' : '/youtubei/v1/player',
  when: (req) => clientName(req.body) === client.client.clientName,
  ...answer,
});
const timedtext: ReplayRoute = { path: '/api/timedtext', ...SRV3 };

/** The raw captionTracks of a player response file. */
function rawTracks(file: string, dir = FIXTURES_DIR): Array<{ baseUrl: string; languageCode: string; kind?: string }> {
  const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  return (json.playerResponse ?? json).captions.playerCaptionsTracklistRenderer.captionTracks;
}
const trackKey = (url: string) => {
  const q = new URL(url, 'https://www.youtube.com').searchParams;
  return { lang: q.get('lang'), kind: q.get('kind'), name: q.get('name') };
};

let origin: ReplayOrigin;
let outbound: Outbound;

describeRecorded('language discovery', () => {
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

  const timedtextCalls = () => origin.requests.filter((r) => r.path === '/api/timedtext');

  /** Lists the tracks, then fetches each by its code and checks the caption request went to that track's URL. */
  async function roundTrip(
    client: InnertubeClient,
    videoId: string,
    tracksFile: string,
    dir = FIXTURES_DIR,
  ): Promise<CaptionTrackListing[]> {
    const sources = createDiscoverySources(outbound, { videositeClients: [client] });
    const listing = await sources.captionLanguages(videoId);
    const raw = rawTracks(tracksFile, dir);
    expect(listing.tracks).toHaveLength(raw.length);
    const captions = createVideositeSource({ outbound, clients: [client] });
    for (const [i, track] of listing.tracks.entries()) {
      origin.requests.length = 0;
      const result = await captions.fetchCaptions(videoId, {
        captionLanguages: [track.language_code],
        captionPreference: track.kind === 'automatic' ? 'automatic_only' : 'creator_only',
      });
      expect({ code: track.language_code, got: result.track.language_code, kind: result.track.kind }).toEqual({
        code: track.language_code,
        got: track.language_code,
        kind: track.kind,
      });
      // Exactly the listed track: the caption request is the one its baseUrl names.
      expect(timedtextCalls()).toHaveLength(1);
      expect({ code: track.language_code, ...trackKey(timedtextCalls()[0].url) }).toEqual({
        code: track.language_code,
        ...trackKey(raw[i].baseUrl),
      });
    }
    // Distinct per kind, so each can be asked for alone.
    for (const kind of ['creator', 'automatic']) {
      const codes = listing.tracks.filter((t) => t.kind === kind).map((t) => t.language_code.toLowerCase());
      expect(new Set(codes).size).toBe(codes.length);
    }
    return listing.tracks;
  }

  test('13 tracks (rCAS2eD-mcw, ANDROID reel_item_watch as a caption job asks first): the listing, then every code round-trips', async () => {
    origin.setRoutes([player(ANDROID_REEL, { fixture: RCAS_REEL }), timedtext]);
    const listing = await createDiscoverySources(outbound).captionLanguages('rCAS2eD-mcw');
    expect(listing.video).toEqual({
      video_id: 'rCAS2eD-mcw',
      url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw',
      title: 'Laryngeal Mask Airway (LMA) insertion | ESSENTIAL TECHNIQUES for standard patients',
      duration_s: 343,
    });
    expect(listing.tracks.map((t) => `${t.language_code}:${t.kind}`)).toEqual([
      'ar:creator',
      'en:creator',
      'en:automatic',
      'fil:creator',
      'fr:creator',
      'de:creator',
      'hi:creator',
      'pt:creator',
      'si:creator',
      'es:creator',
      'ta:creator',
      'ur:creator',
      'vi:creator',
    ]);
    expect(listing.tracks[2]).toEqual({
      language_code: 'en',
      name: 'English (auto-generated)',
      kind: 'automatic',
      is_default: false,
      is_translatable: true,
    });
    expect(listing.tracks.filter((t) => t.is_default).map((t) => `${t.language_code}:${t.kind}`)).toEqual(['en:creator']);
    expect(listing.tracks.every((t) => t.is_translatable)).toBe(true);

    await roundTrip(ANDROID_REEL, 'rCAS2eD-mcw', RCAS_REEL);
  });

  test('9 tracks (GJLlxj_dtq8, ANDROID /player): every code round-trips', async () => {
    origin.setRoutes([player(ANDROID_PLAYER, { fixture: GJL }), timedtext]);
    const tracks = await roundTrip(ANDROID_PLAYER, 'GJLlxj_dtq8', GJL);
    expect(tracks.map((t) => t.language_code)).toEqual(['zh', 'cs', 'en', 'en', 'de', 'hi', 'ja', 'ko', 'es']);
    expect(tracks.find((t) => t.is_default)).toMatchObject({ language_code: 'en', kind: 'creator', name: 'English' });
  });

  test('named tracks (hand-made): distinct private-use codes, each round-trips; plain `en` and the default are unchanged', async () => {
    origin.setRoutes([player(ANDROID_PLAYER, { handmade: NAMED }), timedtext]);
    const tracks = await roundTrip(ANDROID_PLAYER, 'HandMade0Nt', NAMED, HANDMADE_DIR);
    expect(tracks.map((t) => [t.language_code, t.kind, t.is_default, t.is_translatable])).toEqual([
      ['en', 'creator', false, true],
      ['en-x-director-s-commenta-ry', 'creator', true, true],
      ['en-x-sdh', 'creator', false, false],
      ['en', 'automatic', false, true],
      ['de', 'creator', false, true],
      ['ja-x-kh2edplw-2pe', 'creator', false, true],
      ['ja-x-zr8qwlm3-tx0', 'creator', false, true],
      ['fr', 'creator', false, true],
    ]);
    expect(tracks[1].name).toBe("English - Director's commentary");

    const captions = createVideositeSource({ outbound, clients: [ANDROID_PLAYER] });
    const fetched = async (options: Parameters<typeof captions.fetchCaptions>[1]) => {
      origin.requests.length = 0;
      const result = await captions.fetchCaptions('HandMade0Nt', options);
      return { code: result.track.language_code, language: result.language, ...trackKey(timedtextCalls()[0].url) };
    };
    // Plain `en` asks for English: the unnamed track, whose code it is (the default named one is not taken over it).
    expect(await fetched({ captionLanguages: ['en'] })).toEqual({ code: 'en', language: 'en', lang: 'en', kind: null, name: null });
    // No language asked: the platform's default track, the named one; its transcript language stays `en`.
    expect(await fetched({})).toEqual({
      code: 'en-x-director-s-commenta-ry',
      language: 'en',
      lang: 'en',
      kind: null,
      name: "Director's commentary",
    });
    // A regional request matches the English tracks alike by language; the default breaks the tie, as before.
    expect((await fetched({ captionLanguages: ['en-GB'] })).code).toBe('en-x-director-s-commenta-ry');
    expect((await fetched({ captionLanguages: ['ja'] })).name).toBe('関西弁');
    // Codes are compared case-insensitively, like every other tag.
    expect((await fetched({ captionLanguages: ['EN-X-SDH'] })).name).toBe('SDH');
  });

  test.each([
    ['private', 'SOURCE_PRIVATE', E('private/android-reel_item_watch-private.newpipe-mock.json')],
    ['nonexistent (`{}`)', 'SOURCE_NOT_FOUND', E('nonexistent/android-reel_item_watch-nonexistent-id.newpipe-mock.json')],
    ['region blocked', 'SOURCE_REGION_RESTRICTED', E('region-blocked/android-reel_item_watch-region-blocked.newpipe-mock.json')],
  ])('%s → %s, like a caption job', async (_what, code, file) => {
    origin.setRoutes([player(ANDROID_REEL, { recording: file })]);
    expect(await outcome(createDiscoverySources(outbound).captionLanguages('8VajtrESJzA'))).toBe(code);
  });

  test('a bot check on every client → SOURCE_BLOCKED; one client refusing falls back to the next', async () => {
    const bot = { fixture: E('bot-check/android-player-sign-in-confirm-not-bot.innertube.json') };
    origin.setRoutes([player(ANDROID_REEL, bot), player(VISIONOS_PLAYER, bot), player(ANDROID_PLAYER, bot)]);
    expect(await outcome(createDiscoverySources(outbound).captionLanguages('GJLlxj_dtq8'))).toBe('SOURCE_BLOCKED');

    origin.setRoutes([player(ANDROID_REEL, bot), player(VISIONOS_PLAYER, { fixture: GJL })]);
    expect((await createDiscoverySources(outbound).captionLanguages('GJLlxj_dtq8')).tracks).toHaveLength(9);
  });

  test('a video without captions lists no tracks', async () => {
    origin.setRoutes([player(ANDROID_REEL, { fixture: E('no-captions/android-player-dsMFmonKDD4-no-captions.innertube.json') })]);
    const listing = await createDiscoverySources(outbound).captionLanguages('dsMFmonKDD4');
    expect(listing.tracks).toEqual([]);
    expect(listing.video.title).not.toBeNull();
  });

  test('a malformed video id is refused before any request', async () => {
    origin.setRoutes([]);
    expect(await outcome(createDiscoverySources(outbound).captionLanguages('short'))).toBe('UNSUPPORTED_SOURCE');
    expect(origin.requests).toHaveLength(0);
  });
});
