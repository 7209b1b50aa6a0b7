import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { encodeCursor } from '../domain/discoveries/cursor';
import { listingHash } from '../domain/discoveries/submit';
import { getBalance } from '../domain/credits/ledger';
import { normalizeDiscoveryInput } from '../integrations/platforms/discovery';
import { createActivities } from '../activities';
import { type StartDispatcher } from '../domain/start-dispatcher';
import { startPendingWorkflows } from '../domain/pending-starts';
import { bearer, createWorkspace, privateDatabase, startTestApi, type TestApi, type TestWorkspace } from './support/harness';
import { activityDepsFor, startJobStack, videositeCaptionRoutes, type JobStack } from './support/job-stack';
import type { RecordedRequest, ReplayRoute } from './support/replay-origin';
import { startTestWorker } from './support/worker';

// Issue 13: video and language discoveries through the real stack (API in
// process → Temporal → worker → platform clients → outbound layer → the
// loopback origin replaying recorded platform answers).

const hasContinuation = (r: RecordedRequest) => /"continuation"/.test(r.body);
const SEARCH: ReplayRoute[] = [
  {
    method: 'POST',
    path: '/youtubei/v1/search',
    when: (r) => !hasContinuation(r),
    recording: 'videosite/search/search-test-videos-page1.newpipe-mock.json',
  },
  {
    method: 'POST',
    path: '/youtubei/v1/search',
    when: hasContinuation,
    recording: 'videosite/search/search-test-videos-page2-continuation.newpipe-mock.json',
  },
];
const PLAYLIST_MISSING: ReplayRoute[] = [
  {
    method: 'POST',
    path: '/youtubei/v1/browse',
    recording: 'videosite/errors/playlist-not-found/browse-VLPL111-does-not-exist.newpipe-mock.json',
  },
];

let stack: JobStack;
let ws: TestWorkspace;
const app = () => stack.api.app;

async function post(path: string, w: TestWorkspace, body: object, key = randomUUID()) {
  return request(app()).post(path).set(bearer(w.apiKey)).set('Idempotency-Key', key).send(body);
}

async function final(path: string, w: TestWorkspace, id: string, withinMs = 20_000) {
  const until = Date.now() + withinMs;
  for (;;) {
    const res = await request(app()).get(`${path}/${id}`).query({ wait: 20 }).set(bearer(w.apiKey));
    if (res.status !== 200 || ['succeeded', 'failed'].includes(res.body.status) || Date.now() > until) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function discover(w: TestWorkspace, body: object) {
  const res = await post('/v1/video-discoveries', w, body);
  expect([200, 202]).toContain(res.status);
  return (await final('/v1/video-discoveries', w, res.body.id)).body;
}

async function credits(w: TestWorkspace) {
  const b = await getBalance(stack.api.deps.db, w.workspaceId);
  return { available: b.available, reserved: b.reserved };
}

beforeAll(async () => {
  stack = await startJobStack([...SEARCH, ...videositeCaptionRoutes()]);
  ws = await createWorkspace(stack.api.deps, { plan: 'pro' });
});
afterAll(() => stack.close());

describe('video discoveries', () => {
  it('search: pages of exactly `limit` through next_cursor, no duplicates, 1 credit per page, a repeat within the cache window free', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const before = await credits(w);
    const first = await post('/v1/video-discoveries', w, { kind: 'videosite_search', query: 'test', limit: 7 });
    expect(first.status).toBe(202);
    expect(first.headers.location).toBe(`/v1/video-discoveries/${first.body.id}`);
    expect(first.body).toMatchObject({ kind: 'videosite_search', status: 'queued', request: { query: 'test', limit: 7 }, videos: [] });
    const page1 = (await final('/v1/video-discoveries', w, first.body.id)).body;
    expect(page1.status).toBe('succeeded');
    expect(page1.videos).toHaveLength(7);
    expect(page1.profile).toBeNull();
    expect(typeof page1.next_cursor).toBe('string');
    expect(Date.parse(page1.expires_at) - Date.parse(page1.created_at)).toBe(24 * 3600_000);
    for (const v of page1.videos) {
      expect(v).toMatchObject({ platform: 'videosite', url: `https://www.youtube.com/watch?v=${v.video_id}` });
      expect(Object.keys(v).sort()).toEqual(
        [
          'channel_id',
          'channel_title',
          'duration_s',
          'platform',
          'published_at',
          'published_text',
          'shortvideo',
          'thumbnail_url',
          'title',
          'url',
          'video_id',
          'view_count',
          'view_count_text',
        ].sort(),
      );
    }

    const seen = new Set<string>(page1.videos.map((v: { video_id: string }) => v.video_id));
    let cursor: string | null = page1.next_cursor;
    let pages = 1;
    while (cursor && pages < 8) {
      const next = await discover(w, { kind: 'videosite_search', query: 'test', limit: 7, cursor });
      expect(next.status).toBe('succeeded');
      pages++;
      if (next.next_cursor) expect(next.videos).toHaveLength(7);
      for (const v of next.videos) {
        expect(seen.has(v.video_id)).toBe(false);
        seen.add(v.video_id);
      }
      cursor = next.next_cursor;
    }
    expect(pages).toBeGreaterThan(2); // the recorded platform pages were cut into ours
    expect(await credits(w)).toEqual({ available: before.available - pages, reserved: 0 });

    // The same request again within the cache window: the same discovery, 200, free.
    const again = await post('/v1/video-discoveries', w, { kind: 'videosite_search', query: ' test ', limit: 7 });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await credits(w)).toEqual({ available: before.available - pages, reserved: 0 });
  }, 60_000);

  it('an Idempotency-Key replays the same discovery; another body with it is 409', async () => {
    const key = randomUUID();
    const a = await post('/v1/video-discoveries', ws, { kind: 'videosite_search', query: 'idem', limit: 3 }, key);
    const b = await post('/v1/video-discoveries', ws, { kind: 'videosite_search', query: 'idem', limit: 3 }, key);
    expect(b.body.id).toBe(a.body.id);
    const c = await post('/v1/video-discoveries', ws, { kind: 'videosite_search', query: 'other', limit: 3 }, key);
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    await final('/v1/video-discoveries', ws, a.body.id);
  });

  it('cursors: altered, from another workspace, for another request or older than 24 h → 422 INVALID_CURSOR', async () => {
    const page = await discover(ws, { kind: 'videosite_search', query: 'test', limit: 5 });
    const cursor: string = page.next_cursor;
    const [payload, mac] = cursor.split('.');
    const flipped = `${payload!.slice(0, -2)}${payload!.slice(-2, -1) === 'A' ? 'B' : 'A'}${payload!.slice(-1)}.${mac}`;
    const other = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const secretsKey = stack.api.deps.secretsKey;
    const input = normalizeDiscoveryInput({ kind: 'videosite_search', query: 'test' });
    const old = encodeCursor(
      secretsKey,
      { workspaceId: ws.workspaceId, kind: 'videosite_search', listingHash: listingHash(input) },
      { continuation: null, skip: 5 },
      new Date(Date.now() - 25 * 3600_000),
    );
    const cases: [TestWorkspace, object, RegExp][] = [
      [ws, { kind: 'videosite_search', query: 'test', limit: 5, cursor: flipped }, /altered/],
      [ws, { kind: 'videosite_search', query: 'test', limit: 5, cursor: `${cursor}x` }, /altered|malformed/],
      [ws, { kind: 'videosite_search', query: 'test', limit: 5, cursor: 'not-a-cursor' }, /malformed/],
      [other, { kind: 'videosite_search', query: 'test', limit: 5, cursor }, /another workspace/],
      [ws, { kind: 'videosite_search', query: 'something else', limit: 5, cursor }, /another request/],
      [ws, { kind: 'videosite_search', query: 'test', limit: 5, cursor: old }, /older than 24 hours/],
    ];
    for (const [w, body, why] of cases) {
      const before = await credits(w);
      const res = await post('/v1/video-discoveries', w, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_CURSOR', details: { detail: 'cursor' } });
      expect(res.body.error.message).toMatch(why);
      expect(res.body.request_id).toBeTruthy();
      expect(await credits(w)).toEqual(before);
    }
  });

  it.each([
    [{ kind: 'videosite_search' }, 'query'],
    [{ kind: 'videosite_search', query: 'x', channel: '@someone' }, 'channel'],
    [{ kind: 'videosite_channel_videos' }, 'channel'],
    [{ kind: 'videosite_channel_videos', channel: '@someone', playlist: 'PL123' }, 'playlist'],
    [{ kind: 'videosite_channel_search', channel: '@someone' }, 'query'],
    [{ kind: 'videosite_playlist_videos' }, 'playlist'],
    [{ kind: 'shortvideo_user_videos' }, 'user'],
    [{ kind: 'shortvideo_user_videos', user: '@someone', cursor: 'abc' }, 'cursor'],
    [{ kind: 'shortvideo_user_videos', user: '@someone', limit: 11 }, 'limit'],
    [{ kind: 'videosite_search', query: 'x', include_details: true }, 'include_details'],
    [{ kind: 'videosite_search', query: 'x', limit: 51 }, 'limit'],
    [{ kind: 'videosite_search', query: 'x', limit: 0 }, 'limit'],
    [{ kind: 'videosite_searches', query: 'x' }, 'kind'],
    [{ kind: 'videosite_search', query: 'x', extra: 1 }, 'extra'],
  ])('%j → 422 INVALID_REQUEST naming %s, nothing held', async (body, field) => {
    const before = await credits(ws);
    const res = await post('/v1/video-discoveries', ws, body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { detail: field } });
    expect(await credits(ws)).toEqual(before);
  });

  it('a playlist that does not exist fails SOURCE_NOT_FOUND; the hold is released, nothing charged', async () => {
    stack.origin.setRoutes([...PLAYLIST_MISSING, ...SEARCH]);
    try {
      const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
      const before = await credits(w);
      const d = await discover(w, { kind: 'videosite_playlist_videos', playlist: 'PL111' });
      expect(d).toMatchObject({ status: 'failed', videos: [], next_cursor: null, error: { code: 'SOURCE_NOT_FOUND', retryable: false } });
      expect(await credits(w)).toEqual(before);
      // A failed discovery is not reused: the next ask is a new one.
      const again = await post('/v1/video-discoveries', w, { kind: 'videosite_playlist_videos', playlist: 'PL111' });
      expect(again.status).toBe(202);
      expect(again.body.id).not.toBe(d.id);
      await final('/v1/video-discoveries', w, again.body.id);
    } finally {
      stack.origin.setRoutes([...SEARCH, ...videositeCaptionRoutes()]);
    }
  });

  it('another workspace gets 404; past expires_at 404, and the retention sweep removes the row', async () => {
    const d = await discover(ws, { kind: 'videosite_search', query: 'test', limit: 2 });
    const other = await createWorkspace(stack.api.deps, { plan: 'pro' });
    expect((await request(app()).get(`/v1/video-discoveries/${d.id}`).set(bearer(other.apiKey))).status).toBe(404);
    await stack.api.deps.db.videoDiscovery.update({ where: { id: d.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const gone = await request(app()).get(`/v1/video-discoveries/${d.id}`).set(bearer(ws.apiKey));
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');
    const acts = createActivities(activityDepsFor(stack.api, stack.outbound));
    expect(await acts.purgeExpiredDiscoveries(500)).toBeGreaterThanOrEqual(1);
    expect(await stack.api.deps.db.videoDiscovery.count({ where: { id: d.id } })).toBe(0);
  });

  it('the trial pays with its caption credits; with none left, 402 PLAN_REQUIRED', async () => {
    const w = await createWorkspace(stack.api.deps);
    await stack.api.deps.db.$executeRaw`UPDATE credit_accounts SET period_credits = 0 WHERE workspace_id = ${w.workspaceId}::uuid`;
    const res = await post('/v1/video-discoveries', w, { kind: 'videosite_search', query: 'test' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('PLAN_REQUIRED');
  });
});

describe('language discoveries', () => {
  it('lists the caption tracks of a video with codes that round-trip into a captions_only job; 1 credit, a repeat free', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'starter' });
    const before = await credits(w);
    const res = await post('/v1/language-discoveries', w, { source: { url: 'https://youtu.be/rCAS2eD-mcw' } });
    expect(res.status).toBe(202);
    const d = (await final('/v1/language-discoveries', w, res.body.id)).body;
    expect(d).toMatchObject({
      status: 'succeeded',
      source: { platform: 'videosite', media_id: 'rCAS2eD-mcw', canonical_url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw' },
      video: { video_id: 'rCAS2eD-mcw' },
      error: null,
    });
    expect(d.tracks.length).toBeGreaterThanOrEqual(9);
    expect(d.tracks.filter((t: { is_default: boolean }) => t.is_default).length).toBeLessThanOrEqual(1);
    const codes = d.tracks.map((t: { language_code: string; kind: string }) => `${t.language_code}/${t.kind}`);
    expect(new Set(codes).size).toBe(codes.length);
    expect(await credits(w)).toEqual({ available: before.available - 1, reserved: 0 });

    const again = await post('/v1/language-discoveries', w, { source: { url: 'https://www.youtube.com/watch?v=rCAS2eD-mcw&t=10' } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(d.id);
    expect(await credits(w)).toEqual({ available: before.available - 1, reserved: 0 });

    // A listed code in a job fetches that track.
    const track = d.tracks.find((t: { kind: string; language_code: string }) => t.kind === 'creator' && !t.language_code.startsWith('en'))!;
    const job = await post('/v1/jobs', w, {
      source: { url: 'https://youtu.be/rCAS2eD-mcw' },
      mode: 'captions_only',
      caption_languages: [track.language_code],
      caption_preference: 'creator_only',
    });
    expect(job.status).toBe(202);
    const done = (await request(app()).get(`/v1/jobs/${job.body.id}`).query({ wait: 20 }).set(bearer(w.apiKey))).body;
    expect(done.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${done.result_id}`).set(bearer(w.apiKey))).body;
    // The track of that code was fetched: its label is the code. (The replay origin serves the recorded
    // English text for every track, so the transcript reports the mismatch: caption_language_check.)
    expect(t.caption_language_check).toMatchObject({ label: track.language_code, detected: 'en', matches: false });
    const timedtext = stack.origin.requests.filter((r) => r.path === '/api/timedtext');
    expect(timedtext.at(-1)!.query.get('lang')).toBe(track.language_code);
  }, 60_000);

  it('direct links and other platforms → 422 UNSUPPORTED_SOURCE; not a link → INVALID_URL; both naming source.url', async () => {
    for (const [url, code] of [
      ['https://example.com/talk.mp3', 'UNSUPPORTED_SOURCE'],
      ['https://www.tiktok.com/@someone/video/7300000000000000000', 'UNSUPPORTED_SOURCE'],
      ['not a link', 'INVALID_URL'],
    ]) {
      const res = await post('/v1/language-discoveries', ws, { source: { url } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, details: { detail: 'source.url' } });
    }
  });
});

describe('a discovery whose start was lost', () => {
  let api: TestApi;
  afterAll(() => api?.close());

  it('is started by the workflow starter and succeeds once', async () => {
    // Its own database: the starter starts every lost start it finds.
    const DATABASE_URL = await privateDatabase('discovery_starter');
    const taskQueue = `discovery-starter-${randomUUID()}`;
    const dropped = {
      dispatch: () => undefined,
      caughtUp: async () => undefined,
      drain: async () => undefined,
    } as unknown as StartDispatcher;
    api = await startTestApi({ DATABASE_URL, TEMPORAL_TASK_QUEUE: taskQueue }, { starts: dropped });
    const worker = await startTestWorker(
      createActivities(activityDepsFor(api, stack.outbound, { originOverride: stack.origin.url })),
      taskQueue,
    );
    try {
      const w = await createWorkspace(api.deps, { plan: 'pro' });
      const res = await request(api.app)
        .post('/v1/video-discoveries')
        .set(bearer(w.apiKey))
        .set('Idempotency-Key', randomUUID())
        .send({ kind: 'videosite_search', query: 'test', limit: 3 });
      expect(res.status).toBe(202);
      expect((await api.deps.db.videoDiscovery.findUniqueOrThrow({ where: { id: res.body.id } })).workflowStartedAt).toBeNull();
      const pass = await startPendingWorkflows(api.deps.db, { temporal: api.deps.temporal, taskQueue }, new Date(Date.now() + 10_000));
      expect(pass.discoveries).toBe(1);
      let status = 'queued';
      for (let i = 0; i < 100 && status !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await request(api.app).get(`/v1/video-discoveries/${res.body.id}`).set(bearer(w.apiKey))).body.status;
      }
      expect(status).toBe('succeeded');
      expect((await getBalance(api.deps.db, w.workspaceId)).reserved).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
