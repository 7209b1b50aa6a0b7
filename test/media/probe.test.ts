import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { probeMedia, toRecognizerWav } from '../../integrations/media/probe';
import { readWavInfo } from '../../integrations/media/wav';
import { audioDir, ffmpeg } from '../support/speech';
import { caughtServiceError, codeOf } from '../support/service-errors';

// Real files made with ffmpeg's generated sources (a tone, a test picture,
// silence); every check runs the real ffprobe/ffmpeg.

const run = promisify(execFile);
let dir: string;
let cleanup: () => Promise<void>;
const f = (name: string) => join(dir, name);
const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3:sample_rate=44100'];
const picture = ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=3'];

beforeAll(async () => {
  ({ dir, cleanup } = await audioDir('probe-'));
  await Promise.all([
    ffmpeg([...tone, '-c:a', 'pcm_s16le', f('tone.wav')]),
    ffmpeg([...tone, '-c:a', 'libmp3lame', '-b:a', '64k', f('tone.mp3')]),
    ffmpeg([...tone, '-c:a', 'aac', '-b:a', '64k', f('tone.m4a')]),
    ffmpeg([...tone, '-c:a', 'libvorbis', f('tone.ogg')]),
    ffmpeg([...tone, '-c:a', 'aac', '-f', 'adts', f('tone.aac')]),
    ffmpeg([...picture, ...tone, '-c:v', 'mpeg4', '-c:a', 'aac', '-shortest', f('movie.mp4')]),
    ffmpeg([...picture, ...tone, '-c:v', 'libvpx', '-b:v', '100k', '-c:a', 'libopus', '-shortest', f('movie.webm')]),
    ffmpeg([...picture, '-c:v', 'mpeg4', f('silent-film.mp4')]),
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x64:duration=1', '-frames:v', '1', f('picture.png')]),
    // Over two hours of silence, cheaply: 8 kHz mono AAC at 8 kb/s is about 0.5 MB and 2 s to encode.
    ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '7300', '-ac', '1', '-c:a', 'aac', '-b:a', '8k', f('long.m4a')]),
  ]);
  // An mp3 with cover art: the picture is a "video" stream ffprobe reports, but not video.
  await ffmpeg([
    '-i',
    f('tone.mp3'),
    '-i',
    f('picture.png'),
    '-map',
    '0',
    '-map',
    '1',
    '-c',
    'copy',
    '-disposition:v',
    'attached_pic',
    f('cover.mp3'),
  ]);
  // Written to a pipe, a webm has no duration in its header (as browser MediaRecorder files): probe decodes to measure.
  const piped = await run('ffmpeg', ['-v', 'error', ...tone, '-c:a', 'libopus', '-f', 'webm', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 8 * 1024 * 1024,
  });
  await writeFile(f('recorded.webm'), piped.stdout);
  await writeFile(f('notes.txt'), 'These are meeting notes, not a recording.\nSecond line.\n');
  await writeFile(f('page.html'), '<!doctype html><html><body>Video unavailable</body></html>');
  await writeFile(f('empty.mp3'), '');
  await writeFile(f('noise.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)));
  // An ID3 tag followed by garbage: claims to be mp3, cannot be decoded.
  await writeFile(f('broken.mp3'), Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(4096, 0x42)]));
}, 60_000);

afterAll(() => cleanup?.());

describe('probeMedia', () => {
  test.each([
    ['tone.wav', 'wav', 'pcm_s16le', false],
    ['tone.mp3', 'mp3', 'mp3', false],
    ['cover.mp3', 'mp3', 'mp3', false],
    ['tone.m4a', 'mov,mp4,m4a,3gp,3g2,mj2', 'aac', false],
    ['tone.ogg', 'ogg', 'vorbis', false],
    ['tone.aac', 'aac', 'aac', false],
    ['movie.mp4', 'mov,mp4,m4a,3gp,3g2,mj2', 'aac', true],
    ['movie.webm', 'matroska,webm', 'opus', true],
    ['recorded.webm', 'matroska,webm', 'opus', false],
  ])('%s: format, codec, audio/video, duration', async (name, formatName, audioCodec, hasVideo) => {
    const info = await probeMedia(f(name));
    expect(info).toMatchObject({ formatName, audioCodec, hasAudio: true, hasVideo });
    // 3 s of tone; lossy encoders add a frame or two of padding.
    expect(info.durationMs).toBeGreaterThanOrEqual(2900);
    expect(info.durationMs).toBeLessThanOrEqual(3200);
  });

  test('a video without a sound track is NO_AUDIO', async () => {
    expect((await codeOf(probeMedia(f('silent-film.mp4')))).code).toBe('NO_AUDIO');
  });

  test.each(['notes.txt', 'page.html', 'picture.png', 'noise.bin'])('%s is UNSUPPORTED_MEDIA', async (name) => {
    expect((await codeOf(probeMedia(f(name)))).code).toBe('UNSUPPORTED_MEDIA');
  });

  test.each(['broken.mp3', 'empty.mp3'])('%s (claims to be media, unreadable) is INVALID_MEDIA', async (name) => {
    expect((await codeOf(probeMedia(f(name)))).code).toBe('INVALID_MEDIA');
  });

  test('over two hours is DURATION_LIMIT_EXCEEDED, with the measured length in the detail', async () => {
    const err = await codeOf(probeMedia(f('long.m4a')));
    expect(err.code).toBe('DURATION_LIMIT_EXCEEDED');
    expect(err.detail).toMatch(/^duration_ms=73000\d\d > 7200000$/);
  });
});

describe('toRecognizerWav', () => {
  test('a video becomes 16 kHz mono 16-bit wav with a plain 44-byte header', async () => {
    const out = await toRecognizerWav(f('movie.mp4'), f('movie.16k.wav'));
    const info = await readWavInfo(out);
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16, dataOffset: 44 });
    expect(info.durationSec).toBeCloseTo(3, 1);
  });

  test('startMs/durationMs cut a piece', async () => {
    const out = await toRecognizerWav(f('tone.mp3'), f('piece.wav'), { startMs: 1000, durationMs: 1500 });
    expect((await readWavInfo(out)).durationSec).toBeCloseTo(1.5, 2);
  });

  test('undecodable input is INVALID_MEDIA', async () => {
    expect((await codeOf(toRecognizerWav(f('broken.mp3'), f('x.wav')))).code).toBe('INVALID_MEDIA');
  });

  // /dev/full fails every write with ENOSPC, as a full scratch disk does. ffmpeg 5 exits 0 all the same: the job
  // would have gone on with a cut-off file (or failed NO_SPEECH, blaming the user's media). It is the worker's fault:
  // retryable, so Temporal tries again (on another worker, or once space is freed).
  test("a full disk is the worker's retryable INTERNAL_ERROR, not a success and not the media's fault", async () => {
    const err = await caughtServiceError(toRecognizerWav(f('tone.mp3'), '/dev/full'));
    expect(err).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    expect(err.detail).toMatch(/^ffmpeg on this worker: .*No space left on device/);
  });
});
