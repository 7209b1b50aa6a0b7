import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { buildYtdlpArgs, classifyYtdlpFailure, downloadAudio } from '../../integrations/media/download';
import { probeMedia } from '../../integrations/media/probe';
import { DEFAULT_USER_AGENT } from '../../integrations/outbound/http';
import { audioDir, ffmpeg } from '../support/speech';
import { codeOf } from '../support/service-errors';

// The real yt-dlp (stack/ytdlp-setup.sh) against a loopback server standing in
// for the platform: the origin override sends it there, and its generic
// extractor takes the audio served at the platform's own path and query.

const ID = 'abc123XYZ_-';
const PLATFORM_URL = `https://www.youtube.com/watch?v=${ID}`;

let dir: string;
let cleanup: () => Promise<void>;
let server: Server;
let origin: string;
let tone: Buffer;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  ({ dir, cleanup } = await audioDir('download-'));
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=3:sample_rate=44100',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '64k',
    join(dir, 'tone.mp3'),
  ]);
  tone = await readFile(join(dir, 'tone.mp3'));
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const v = new URL(req.url ?? '/', 'http://x').searchParams.get('v');
    const status = { missing: 404, throttled: 429, blocked: 403 }[v ?? ''];
    if (status) {
      res.writeHead(status, { 'content-type': 'text/html' }).end('<html>no</html>');
    } else if (v === 'slow') {
      return; // never answers: only the download's timeout ends this
    } else if (v === 'chunked') {
      // No Content-Length, so yt-dlp's own --max-filesize cannot see the size in advance.
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(tone.subarray(0, 4096));
      setTimeout(() => res.end(tone.subarray(4096)), 50);
    } else {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': tone.length }).end(tone);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  if (server) await new Promise((resolve) => server.close(resolve));
  await cleanup?.();
});

const outbound = () => ({ originOverride: origin, proxies: [] });

/** An empty folder of its own for one download, inside the suite's temp folder. */
const fresh = async (name: string) => {
  const d = join(dir, name);
  await mkdir(d);
  return d;
};

/** Files a download left in `toDir` (a failed one must leave none). */
const leftovers = async (toDir: string) => (await readdir(toDir)).filter((n) => n.startsWith('audio-'));

describe('downloadAudio with the real yt-dlp', () => {
  test('downloads the audio through the origin override, telling the server the platform host', async () => {
    seen.length = 0;
    const got = await downloadAudio(PLATFORM_URL, 'videosite', { toDir: dir, outbound: outbound(), timeoutMs: 60_000 });
    expect(got.file.startsWith(dir)).toBe(true);
    expect((await stat(got.file)).size).toBe(tone.length);
    expect(await readFile(got.file)).toEqual(tone);
    expect((await probeMedia(got.file)).durationMs).toBeCloseTo((await probeMedia(join(dir, 'tone.mp3'))).durationMs, -1);
    expect(got.title).toBe('watch'); // the generic extractor names a direct file after its path
    expect(got.durationSeconds).toBeNull(); // nor does it know the duration of one
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) {
      expect(r.url).toBe(`/watch?v=${ID}`);
      expect(r.headers['x-forwarded-host']).toBe('www.youtube.com');
      expect(r.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
      expect(r.headers.cookie).toBeUndefined();
    }
  });

  test.each([
    ['missing', 'SOURCE_NOT_FOUND', /HTTP Error 404/],
    ['throttled', 'SOURCE_RATE_LIMITED', /HTTP Error 429/],
    ['blocked', 'SOURCE_BLOCKED', /HTTP Error 403/],
  ])('v=%s → %s', async (v, code, detail) => {
    const toDir = await fresh(`err-${v}`);
    const err = await codeOf(downloadAudio(`https://www.youtube.com/watch?v=${v}`, 'videosite', { toDir, outbound: outbound() }));
    expect(err.code).toBe(code);
    expect(err.detail).toMatch(detail);
    expect(await leftovers(toDir)).toEqual([]);
  });

  test('a file over maxBytes (Content-Length known) is FILE_TOO_LARGE, nothing kept', async () => {
    const toDir = await fresh('big');
    const err = await codeOf(downloadAudio(PLATFORM_URL, 'videosite', { toDir, outbound: outbound(), maxBytes: 10_000 }));
    expect(err).toEqual({ code: 'FILE_TOO_LARGE', detail: expect.stringMatching(/larger than max-filesize/) });
    expect(await leftovers(toDir)).toEqual([]);
  });

  test('a file over maxBytes without Content-Length is FILE_TOO_LARGE too', async () => {
    const toDir = await fresh('chunked');
    const err = await codeOf(
      downloadAudio('https://www.tiktok.com/watch?v=chunked', 'shortvideo', { toDir, outbound: outbound(), maxBytes: 10_000 }),
    );
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(await leftovers(toDir)).toEqual([]);
  });

  test('a server that never answers is SOURCE_TIMEOUT, and yt-dlp is stopped', async () => {
    const toDir = await fresh('slow');
    const started = Date.now();
    const err = await codeOf(
      downloadAudio('https://www.youtube.com/watch?v=slow', 'videosite', { toDir, outbound: outbound(), timeoutMs: 2_000 }),
    );
    expect(err.code).toBe('SOURCE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await leftovers(toDir)).toEqual([]);
  });

  test("cancellation rejects with the caller's reason, not a platform error", async () => {
    const toDir = await fresh('cancel');
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('activity cancelled')), 500);
    await expect(
      downloadAudio('https://www.youtube.com/watch?v=slow', 'videosite', { toDir, outbound: outbound(), signal: ctl.signal }),
    ).rejects.toThrow('activity cancelled');
  });
});

describe('buildYtdlpArgs', () => {
  const base = { toDir: '/tmp/x', stem: 'audio-1' };
  const valueOf = (args: string[], flag: string) => args.filter((_, i) => args[i - 1] === flag);

  test('origin override: scheme/host/port replaced, path and query kept, platform host in X-Forwarded-Host', () => {
    const args = buildYtdlpArgs('https://www.youtube.com/watch?v=abc&t=5', {
      ...base,
      outbound: { originOverride: 'http://127.0.0.1:9999' },
    });
    expect(args[args.length - 1]).toBe('http://127.0.0.1:9999/watch?v=abc&t=5');
    expect(args[args.length - 2]).toBe('--'); // a URL can never be read as an option
    expect(valueOf(args, '--add-header')).toContain('X-Forwarded-Host:www.youtube.com');
  });

  test('without an override the URL is unchanged and no X-Forwarded-Host is sent', () => {
    const args = buildYtdlpArgs('https://vm.tiktok.com/ZM123/', { ...base, outbound: { originOverride: null } });
    expect(args[args.length - 1]).toBe('https://vm.tiktok.com/ZM123/');
    expect(valueOf(args, '--add-header').some((h) => h.startsWith('X-Forwarded-Host'))).toBe(false);
  });

  test('the first egress proxy is passed; none means no --proxy', () => {
    const withProxy = buildYtdlpArgs('https://www.youtube.com/watch?v=abc', {
      ...base,
      outbound: { proxies: ['http://u:p@10.0.0.1:3128', 'http://10.0.0.2:3128'] },
    });
    expect(valueOf(withProxy, '--proxy')).toEqual(['http://u:p@10.0.0.1:3128']);
    expect(buildYtdlpArgs('https://www.youtube.com/watch?v=abc', { ...base, outbound: {} })).not.toContain('--proxy');
  });

  test('audio only, one video, size cap, timeouts, our User-Agent, output inside toDir', () => {
    const args = buildYtdlpArgs('https://www.youtube.com/watch?v=abc', { ...base, outbound: {}, maxBytes: 1234, socketTimeoutSeconds: 7 });
    expect(valueOf(args, '-f')).toEqual(['bestaudio/best']);
    expect(valueOf(args, '--max-filesize')).toEqual(['1234']);
    expect(valueOf(args, '--socket-timeout')).toEqual(['7']);
    expect(valueOf(args, '-P')).toEqual(['/tmp/x']);
    expect(valueOf(args, '-o')).toEqual(['audio-1.%(ext)s']);
    expect(valueOf(args, '--add-header')).toContain(`User-Agent:${DEFAULT_USER_AGENT}`);
    expect(args).toEqual(expect.arrayContaining(['--no-playlist', '--no-progress', '--ignore-config', '--no-cookies']));
    expect(buildYtdlpArgs('https://x.test/', { ...base, outbound: {} })).toContain('262144000');
  });

  test('a malformed override fails loudly, as in the outbound layer', () => {
    expect(() => buildYtdlpArgs('https://www.youtube.com/', { ...base, outbound: { originOverride: 'http://127.0.0.1:9/path' } })).toThrow(
      /origin without path/,
    );
  });
});

describe('classifyYtdlpFailure', () => {
  // Real yt-dlp lines: the loopback ones seen in this file's runs, the platform ones as yt-dlp prints them.
  const hint =
    'Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies';
  test.each([
    [`ERROR: [youtube] ${ID}: Private video. Sign in if you've been granted access to this video. ${hint}`, 'SOURCE_PRIVATE'],
    [
      'ERROR: [TikTok] 7301234567890123456: You do not have permission to view this post. Log into an account that has access',
      'SOURCE_PRIVATE',
    ],
    [`ERROR: [youtube] ${ID}: Video unavailable. This video has been removed by the uploader`, 'SOURCE_NOT_FOUND'],
    [
      `ERROR: [youtube] ${ID}: Video unavailable. This video is no longer available because the YouTube account associated with this video has been terminated.`,
      'SOURCE_NOT_FOUND',
    ],
    [
      'ERROR: [generic] watch?v=x&status=404: Unable to download webpage: HTTP Error 404: Not Found (caused by <HTTPError 404: Not Found>)',
      'SOURCE_NOT_FOUND',
    ],
    [
      `ERROR: [youtube] ${ID}: Sign in to confirm your age. This video may be inappropriate for some users. ${hint}`,
      'SOURCE_AUTH_REQUIRED',
    ],
    [
      `ERROR: [youtube] ${ID}: Join this channel to get access to members-only content like this video, and other exclusive perks.`,
      'SOURCE_AUTH_REQUIRED',
    ],
    [`ERROR: [youtube] ${ID}: This video requires payment to watch.`, 'SOURCE_AUTH_REQUIRED'],
    [
      'ERROR: [TikTok] 7301234567890123456: This post may not be comfortable for some audiences. Log in for access. Use --cookies, --cookies-from-browser, --username and --password, --netrc-cmd, or --netrc (tiktok) to provide account credentials',
      'SOURCE_AUTH_REQUIRED',
    ],
    [
      `ERROR: [youtube] ${ID}: Video unavailable. The uploader has not made this video available in your country`,
      'SOURCE_REGION_RESTRICTED',
    ],
    ['ERROR: [vimeo] 12345: This video is not available from your location due to geo restriction', 'SOURCE_REGION_RESTRICTED'],
    [`ERROR: [youtube] ${ID}: Sign in to confirm you’re not a bot. ${hint}`, 'SOURCE_BLOCKED'],
    ['ERROR: [youtube] : Sign in to confirm you’re not a bot. This helps protect our community. Learn more', 'SOURCE_BLOCKED'],
    ['ERROR: [TikTok] 7301234567890123456: Your IP address is blocked from accessing this post', 'SOURCE_BLOCKED'],
    ['ERROR: unable to download video data: HTTP Error 403: Forbidden', 'SOURCE_BLOCKED'],
    [
      'ERROR: [generic] watch?v=x&status=429: Unable to download webpage: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)',
      'SOURCE_RATE_LIMITED',
    ],
    [
      `ERROR: [youtube] ${ID}: This content isn't available, try again later. The current session has been rate-limited by YouTube for up to an hour.`,
      'SOURCE_RATE_LIMITED',
    ],
    ["ERROR: [generic] watch?v=x&slow=1: Unable to download webpage: timed out (caused by TransportError('timed out'))", 'SOURCE_TIMEOUT'],
    [
      "ERROR: [generic] watch?v=x: Unable to download webpage: [Errno 111] Connection refused (caused by TransportError('[Errno 111] Connection refused'))",
      'SOURCE_TIMEOUT',
    ],
    ['\r[download] File is larger than max-filesize (24494 bytes > 10000 bytes). Aborting.', 'FILE_TOO_LARGE'],
    [
      'WARNING: [generic] Falling back on generic information extractor\nERROR: Unsupported URL: http://127.0.0.1:18766/watch?v=x&html=1',
      'UNSUPPORTED_MEDIA',
    ],
    [`ERROR: [youtube] ${ID}: Requested format is not available. Use --list-formats for a list of available formats`, 'UNSUPPORTED_MEDIA'],
    [
      'ERROR: [generic] watch?v=x&status=500: Unable to download webpage: HTTP Error 500: Internal Server Error (caused by <HTTPError 500: Internal Server Error>)',
      'SOURCE_CHANGED',
    ],
    [`ERROR: [youtube] ${ID}: This live event will begin in a few moments.`, 'SOURCE_CHANGED'],
  ])('%s → %s', (output, code) => {
    expect(classifyYtdlpFailure(output).code).toBe(code);
  });

  test('warnings do not decide; the detail is the last ERROR line', () => {
    const err = classifyYtdlpFailure(
      "WARNING: [youtube] Sign in to confirm you’re not a bot (retrying with another client)\nERROR: [youtube] abc: Private video. Sign in if you've been granted access\n",
      'videosite',
    );
    expect(err.code).toBe('SOURCE_PRIVATE');
    expect(err.retryable).toBe(false);
    expect(err.detail).toBe("videosite: ERROR: [youtube] abc: Private video. Sign in if you've been granted access");
  });

  test("this worker's disk full while yt-dlp writes is its retryable INTERNAL_ERROR, not the source changing", () => {
    const err = classifyYtdlpFailure(
      `[download] Destination: /tmp/transcript-scratch/worker-1/job-x/audio-1.webm\nERROR: unable to write data: [Errno 28] No space left on device\n`,
      'videosite',
    );
    expect(err).toMatchObject({
      code: 'INTERNAL_ERROR',
      retryable: true,
      detail: 'yt-dlp on this worker: ERROR: unable to write data: [Errno 28] No space left on device',
    });
  });

  test('anything unknown is SOURCE_CHANGED (retryable) with the last line', () => {
    const err = classifyYtdlpFailure("Traceback (most recent call last):\n  ...\nKeyError: 'streamingData'\n", 'shortvideo');
    expect(err).toMatchObject({ code: 'SOURCE_CHANGED', retryable: true, detail: "shortvideo: KeyError: 'streamingData'" });
  });
});
