import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { PartialSegmentView } from '../domain/jobs/partial-segments';
import { bearer, createWorkspace, signInSession, type TestWorkspace } from './support/harness';
import { airLive, startHlsOrigin, type HlsOrigin, type LiveEncoder } from './support/hls-origin';
import { startJobStack, submit, type JobStack } from './support/job-stack';
import { FIXTURES_DIR } from './support/replay-origin';
import { audioDir, englishTalk, ffmpeg, wordErrorRate } from './support/speech';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

// Live jobs on the real stack: ffmpeg airs real English speech in real time as HLS (2 s segments, a sliding
// playlist) from a loopback https origin; the job follows the playlist through the outbound layer, the Python
// recognition worker hears each piece, and the segments are read while the stream is on air.

let stack: JobStack;
let audio: { dir: string; cleanup: () => Promise<void> };
let talk: string;
let reference: string;
let talkSeconds: number;
let hlsDir: string;
let origin: HlsOrigin;
let receiver: WebhookReceiver;
const encoders: LiveEncoder[] = [];
const FINAL = ['succeeded', 'failed', 'cancelled'];

beforeAll(async () => {
  stack = await startJobStack([]);
  audio = await audioDir();
  ({ file: talk, reference, seconds: talkSeconds } = await englishTalk(audio.dir));
  hlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hls-origin-'));
  origin = await startHlsOrigin(hlsDir);
  receiver = await startWebhookReceiver();
}, 120_000);

afterAll(async () => {
  await Promise.all(encoders.map((e) => e.stop()));
  await origin.close();
  await receiver.close();
  await stack.close();
  await audio.cleanup();
  fs.rmSync(hlsDir, { recursive: true, force: true });
});

const app = () => stack.api.app;

async function air(name: string, opts: { loop?: boolean; listSize?: number } = {}) {
  const encoder = await airLive(talk, hlsDir, { name, ...opts });
  encoders.push(encoder);
  return encoder;
}

/** Reads the job's segments by long poll until it is final: each with the time it was first readable. */
async function follow(w: TestWorkspace, jobId: string, opts: { until?: (seen: PartialSegmentView[]) => boolean } = {}) {
  const seen: Array<PartialSegmentView & { readAt: number; running: boolean }> = [];
  let after = 0;
  const deadline = Date.now() + 300_000;
  for (;;) {
    const res = await request(app()).get(`/v1/jobs/${jobId}/segments`).query({ after, wait: 10 }).set(bearer(w.apiKey)).expect(200);
    const readAt = Date.now();
    const running = !FINAL.includes(res.body.status);
    seen.push(...res.body.segments.map((s: PartialSegmentView) => ({ ...s, readAt, running })));
    after = res.body.next_after;
    if (!running || opts.until?.(seen)) return seen;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.body.status} after 300 s`);
  }
}

/** How the job's follower workflow ended (workflows/live.ts). */
async function followerEnd(jobId: string) {
  const outcome = await stack.api.deps.temporal.workflow.getHandle(`live-${jobId}`).result();
  return { ended: outcome.ended, missedMs: outcome.missedMs };
}

async function finalJob(w: TestWorkspace, jobId: string) {
  for (let i = 0; i < 60; i++) {
    const job = (await request(app()).get(`/v1/jobs/${jobId}`).query({ wait: 10 }).set(bearer(w.apiKey)).expect(200)).body;
    if (FINAL.includes(job.status)) return job;
  }
  throw new Error(`job ${jobId} never ended`);
}

describe('live jobs: an HLS playlist followed as it airs', () => {
  it('a live stream: segments readable while on air, in order, once; the transcript is the recording; charged per started minute', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const before = (await request(app()).get('/v1/usage').set(bearer(w.apiKey))).body;
    const session = await signInSession(app(), w.email, w.password);
    const endpoint = await request(app())
      .post('/v1/webhook-endpoints')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ url: receiver.url })
      .expect(201);
    receiver.configure({ secret: endpoint.body.secret, failFirst: 0 });
    const encoder = await air('talk');
    const res = await submit(stack.api, w.apiKey, {
      source: { url: `${origin.base}/${encoder.playlist}` },
      mode: 'transcribe',
      language: 'en',
      webhook_endpoint_id: endpoint.body.id,
    });
    expect(res.status).toBe(202);
    expect(res.body.source.platform).toBe('hls');
    expect(res.body.options.max_duration_s).toBe(7200);
    const jobId = res.body.id as string;
    const seen = await follow(w, jobId);

    // Words were readable while the stream was still on air, and each segment came once, in time order.
    const whileOnAir = seen.filter((s) => s.readAt < encoder.startedAt + talkSeconds * 1000);
    expect(whileOnAir.length).toBeGreaterThan(2);
    expect(seen.map((s) => s.seq)).toEqual(seen.map((_, i) => i + 1));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.start).toBeGreaterThanOrEqual(seen[i - 1]!.end - 0.05);
    const lags = seen.filter((s) => s.running).map((s) => s.readAt - (encoder.startedAt + s.end * 1000));
    lags.sort((a, b) => a - b);
    console.log(`[live] ${seen.length} segments; air-to-readable p50 ${(lags[Math.floor(lags.length / 2)]! / 1000).toFixed(2)} s`);

    const job = await finalJob(w, jobId);
    expect(job.status).toBe('succeeded');
    // The follower ended with the playlist (EXT-X-ENDLIST), not because a segment could not be read.
    expect(await followerEnd(jobId)).toEqual({ ended: 'ended', missedMs: 0 });
    const t = (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    // The whole recording, from its first second (the job started at the playlist's first segment, on air then).
    expect(wordErrorRate(reference, t.text)).toBeLessThan(0.3);
    expect(t.duration_seconds).toBeGreaterThan(talkSeconds - 3);
    expect(t.duration_seconds).toBeLessThan(talkSeconds + 3);
    // The partial segments are the transcript's.
    expect(seen.map((s) => s.text)).toEqual(t.segments.map((s: { text: string }) => s.text));
    // Each media segment was fetched once.
    const segmentFetches = origin.requests.filter((r) => r.path.startsWith('talk-') && r.path.endsWith('.ts'));
    expect(new Set(segmentFetches.map((r) => r.path)).size).toBe(segmentFetches.length);
    // Charged for the started minutes transcribed, nothing held.
    expect(job.billing).toMatchObject({ kind: 'ai_transcription', credits_charged: 2 * Math.ceil(t.duration_seconds / 60) });
    const after = (await request(app()).get('/v1/usage').set(bearer(w.apiKey))).body;
    expect(after.credits_reserved).toBe(0);
    expect(before.credits_remaining - after.credits_remaining).toBe(job.billing.credits_charged);
    expect(job.progress).toEqual({ transcribed_seconds: t.duration_seconds, total_seconds: t.duration_seconds });

    // Its webhooks: job.live_started once, while the stream was on air, then job.succeeded; both signed.
    const events = (await receiver.waitFor((all) => all.some((r) => r.body?.job_id === jobId && r.type === 'job.succeeded'))).filter(
      (r) => r.body?.job_id === jobId && !r.duplicate,
    );
    expect(events.map((e) => e.type)).toEqual(['job.live_started', 'job.succeeded']);
    expect(events.every((e) => e.signature_ok && e.timestamp_ok)).toBe(true);
    expect(events[0]!.body).toMatchObject({ result_id: null, error: null });
    expect(events[0]!.received_at).toBeLessThan(encoder.startedAt + talkSeconds * 1000);
    expect(events[1]!.body).toMatchObject({ result_id: job.result_id });
  }, 360_000);

  it('a cancel stops following: the job succeeds with what was heard, charged for it; max_duration_s ends a stream that goes on', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const endless = await air('endless', { loop: true });
    const url = `${origin.base}/${endless.playlist}`;
    const stopped = (await submit(stack.api, w.apiKey, { source: { url }, mode: 'transcribe', language: 'en' })).body.id as string;
    const capped = (await submit(stack.api, w.apiKey, { source: { url }, mode: 'transcribe', language: 'en', max_duration_s: 20 })).body
      .id as string;
    await follow(w, stopped, { until: (seen) => seen.length >= 2 });
    const cancel = await request(app()).post(`/v1/jobs/${stopped}/cancel`).set(bearer(w.apiKey));
    expect([200, 202]).toContain(cancel.status);
    const job = await finalJob(w, stopped);
    expect(job.status).toBe('succeeded');
    const t = (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(t.segments.length).toBeGreaterThanOrEqual(2);
    expect(job.billing.credits_charged).toBe(2 * Math.ceil(t.duration_seconds / 60));

    expect((await followerEnd(stopped)).ended).toBe('stopped');
    const cappedJob = await finalJob(w, capped);
    expect(cappedJob.status).toBe('succeeded');
    expect((await followerEnd(capped)).ended).toBe('max_duration');
    const c = (await request(app()).get(`/v1/transcripts/${cappedJob.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(c.duration_seconds).toBeLessThanOrEqual(20);
    expect(c.duration_seconds).toBeGreaterThan(15);
    expect(cappedJob.billing.credits_charged).toBe(2);
    expect((await request(app()).get('/v1/usage').set(bearer(w.apiKey))).body.credits_reserved).toBe(0);
    await endless.stop();
  }, 360_000);

  it('a finished playlist (EXT-X-ENDLIST) is read from its first segment; a segment on a private address fails the job with UNSAFE_URL, nothing charged', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    // A whole recording as a VOD playlist, written at once.
    const vod = path.join(hlsDir, 'vod.m3u8');
    await ffmpeg([
      '-i',
      talk,
      '-c:a',
      'aac',
      '-b:a',
      '64k',
      '-f',
      'hls',
      '-hls_time',
      '2',
      '-hls_list_size',
      '0',
      '-hls_playlist_type',
      'vod',
      vod,
    ]);
    const done = (await submit(stack.api, w.apiKey, { source: { url: `${origin.base}/vod.m3u8` }, mode: 'transcribe', language: 'en' }))
      .body;
    const job = await finalJob(w, done.id);
    expect(job.status).toBe('succeeded');
    expect(await followerEnd(done.id)).toEqual({ ended: 'ended', missedMs: 0 });
    const t = (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(wordErrorRate(reference, t.text)).toBeLessThan(0.3);

    // The same as fragmented MP4: each fragment read with the initialization section its EXT-X-MAP names.
    await ffmpeg(
      ['-i', talk, '-c:a', 'aac', '-b:a', '64k', '-f', 'hls', '-hls_time', '2', '-hls_list_size', '0'].concat(
        ['-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'fmp4-init.mp4'],
        ['-hls_segment_filename', path.join(hlsDir, 'fmp4-%d.m4s'), path.join(hlsDir, 'fmp4.m3u8')],
      ),
    );
    expect(fs.readFileSync(path.join(hlsDir, 'fmp4.m3u8'), 'utf8')).toContain('#EXT-X-MAP:URI="fmp4-init.mp4"');
    const fragmented = (
      await submit(stack.api, w.apiKey, { source: { url: `${origin.base}/fmp4.m3u8` }, mode: 'transcribe', language: 'en' })
    ).body;
    const fmp4Job = await finalJob(w, fragmented.id);
    expect(fmp4Job.status).toBe('succeeded');
    const f = (await request(app()).get(`/v1/transcripts/${fmp4Job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(wordErrorRate(reference, f.text)).toBeLessThan(0.3);
    expect(f.duration_seconds).toBeCloseTo(t.duration_seconds, 0);

    // The segments are fetched by the same outbound rules as the playlist: a private address is refused.
    fs.writeFileSync(
      path.join(hlsDir, 'private.m3u8'),
      '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\nhttps://10.1.2.3/seg.ts\n#EXT-X-ENDLIST\n',
    );
    const refused = (
      await submit(stack.api, w.apiKey, { source: { url: `${origin.base}/private.m3u8` }, mode: 'transcribe', language: 'en' })
    ).body;
    const failed = await finalJob(w, refused.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('UNSAFE_URL');
    expect(failed.billing.credits_charged).toBe(0);
    // Not a playlist: refused as what it is.
    fs.writeFileSync(path.join(hlsDir, 'notes.m3u8'), 'just some text\n');
    const notPlaylist = (await submit(stack.api, w.apiKey, { source: { url: `${origin.base}/notes.m3u8` }, mode: 'transcribe' })).body;
    const bad = await finalJob(w, notPlaylist.id);
    expect(bad.error.code).toBe('UNSUPPORTED_MEDIA');
    expect(bad.error.details.detail).toMatch(/not an HLS playlist/);
  }, 360_000);

  it("a videosite video on air is followed through the platform's own HLS manifest, fetched through the platform's outbound layer", async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    // The platform's player answer for a video on air, as recorded: videoDetails.isLive and streamingData.hlsManifestUrl.
    const player = JSON.parse(
      fs.readFileSync(path.join(FIXTURES_DIR, 'videosite/errors/no-captions/visionos-player-livestream-no-captions.body.json'), 'utf8'),
    );
    const videoId = player.videoDetails.videoId as string;
    const manifest = new URL(player.streamingData.hlsManifestUrl as string);
    expect(manifest.host).toBe('manifest.googlevideo.com');
    // Its manifest as HLS publishes one (RFC 8216 §4.3.4.2): variants of growing bandwidth, each a media playlist
    // whose segments are on the platform's media hosts. The stream itself: ffmpeg airing real speech in real time.
    const variantBase = `https://manifest.googlevideo.com/api/manifest/hls_playlist/expire/1780891538/id/${videoId}.1`;
    const mediaHost = 'https://rr3---sn-live.googlevideo.com/videoplayback/id/' + videoId + '.1/itag/91/source/yt_live_broadcast/sq/';
    const encoder = await airLive(talk, hlsDir, { name: 'onair', baseUrl: mediaHost });
    stack.origin.setRoutes([
      { method: 'POST', path: '/youtubei/v1/reel/reel_item_watch', json: { playerResponse: player } },
      { method: 'POST', path: '/youtubei/v1/player', json: player },
      {
        path: manifest.pathname,
        headers: { 'content-type': 'application/vnd.apple.mpegurl' },
        body: [
          '#EXTM3U',
          '#EXT-X-INDEPENDENT-SEGMENTS',
          '#EXT-X-STREAM-INF:BANDWIDTH=1149952,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30',
          `${variantBase}/itag/93/playlist/index/onair-hd.m3u8`,
          '#EXT-X-STREAM-INF:BANDWIDTH=290288,CODECS="avc1.4d400c,mp4a.40.5",RESOLUTION=256x144,FRAME-RATE=30',
          `${variantBase}/itag/91/playlist/index/${encoder.playlist}`,
        ].join('\n'),
      },
      { path: '/api/manifest/hls_playlist/', folder: hlsDir },
      { path: '/videoplayback/', folder: hlsDir },
    ]);
    stack.origin.requests.length = 0;
    const res = await submit(stack.api, w.apiKey, {
      source: { url: `https://www.youtube.com/live/${videoId}` },
      mode: 'transcribe',
      language: 'en',
      max_duration_s: 600,
    });
    expect(res.status).toBe(202);
    expect(res.body.source).toMatchObject({ platform: 'videosite', media_id: videoId });
    const seen = await follow(w, res.body.id);
    expect(seen.filter((s) => s.readAt < encoder.startedAt + talkSeconds * 1000).length).toBeGreaterThan(2);
    const job = await finalJob(w, res.body.id);
    expect(job.status).toBe('succeeded');
    expect(await followerEnd(res.body.id)).toEqual({ ended: 'ended', missedMs: 0 });
    const t = (await request(app()).get(`/v1/transcripts/${job.result_id}`).set(bearer(w.apiKey)).expect(200)).body;
    expect(wordErrorRate(reference, t.text)).toBeLessThan(0.3);
    expect(job.billing.credits_charged).toBe(2 * Math.ceil(t.duration_seconds / 60));
    // Every request went through the platform's outbound layer (the origin override names the platform's host),
    // the lightest variant was followed, and each segment was fetched once.
    const hosts = new Set(stack.origin.requests.map((r) => r.forwardedHost));
    expect([...hosts].sort()).toEqual(['manifest.googlevideo.com', 'rr3---sn-live.googlevideo.com', 'youtubei.googleapis.com'].sort());
    expect(stack.origin.requests.some((r) => r.path.endsWith('onair-hd.m3u8'))).toBe(false);
    const segments = stack.origin.requests.filter((r) => r.path.startsWith('/videoplayback/')).map((r) => r.path);
    expect(segments.length).toBeGreaterThan(5);
    expect(new Set(segments).size).toBe(segments.length);
  }, 360_000);

  it('refused at submit: max_duration_s off a live source or out of range, captions of a stream, align_text and redacted_audio of a stream', async () => {
    const w = await createWorkspace(stack.api.deps, { plan: 'pro' });
    const live = `${origin.base}/anything.m3u8`;
    const cases: Array<[object, number, string, string]> = [
      [{ source: { url: `${origin.base}/talk.mp3` }, mode: 'transcribe', max_duration_s: 60 }, 422, 'INVALID_REQUEST', 'max_duration_s'],
      [{ source: { url: live }, mode: 'transcribe', max_duration_s: 5 }, 422, 'INVALID_REQUEST', 'max_duration_s'],
      [{ source: { url: live }, mode: 'transcribe', max_duration_s: 50_000 }, 422, 'INVALID_REQUEST', 'max_duration_s'],
      [{ source: { url: live }, mode: 'captions_only' }, 422, 'CAPABILITY_UNAVAILABLE', 'mode'],
      [{ source: { url: live }, mode: 'transcribe', align_text: 'hello' }, 422, 'CAPABILITY_UNAVAILABLE', 'align_text'],
      [
        { source: { url: live }, mode: 'transcribe', redact_pii: true, redacted_audio: true },
        422,
        'CAPABILITY_UNAVAILABLE',
        'redacted_audio',
      ],
    ];
    for (const [body, status, code, detail] of cases) {
      const res = await submit(stack.api, w.apiKey, body);
      expect({ body, status: res.status, code: res.body.error?.code, detail: res.body.error?.details?.detail }).toEqual({
        body,
        status,
        code,
        detail: expect.stringContaining(detail),
      });
      expect(res.body.request_id).toBeTruthy();
    }
  });
});
