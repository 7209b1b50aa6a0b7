import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAX_OPUS_PACKET_MS, opusPacketMs } from '../domain/listen/opus';
import { evalClips } from './support/asr-eval';
import { oggOpusPackets } from './support/ogg';

// The duration GET /v1/listen?encoding=opus bills each packet for (domain/listen/opus.ts), read from the packet's
// TOC byte, against ffmpeg's own Opus parser on real speech encoded by libopus in every frame length it makes
// (SILK at a low bitrate, CELT and hybrid at a high one, mono and stereo).

const run = promisify(execFile);
const clip = evalClips().find((c) => c.lang === 'en')!;
let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opus-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const variants = [2.5, 5, 10, 20, 40, 60, 120].flatMap((frameMs) =>
  ['12k', '64k'].flatMap((bitrate) => [1, 2].map((channels) => ({ frameMs, bitrate, channels }))),
);

test.each(variants)('libopus at $frameMs ms, $bitrate, $channels channel(s): each packet as long as ffmpeg says', async (v) => {
  const file = path.join(dir, `${v.frameMs}-${v.bitrate}-${v.channels}.ogg`);
  await run('ffmpeg', [
    '-nostdin', '-v', 'error', '-y', '-i', clip.audio, '-t', '4', '-ac', String(v.channels),
    '-c:a', 'libopus', '-b:a', v.bitrate, '-frame_duration', String(v.frameMs), file,
  ]); // prettier-ignore
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'a:0',
    '-show_entries',
    'packet=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  const ticks = stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '') // a packet with side data (the first and last) is followed by an empty line
    .map((line) => Number(line.replace(/,$/, '')));
  const packets = oggOpusPackets(fs.readFileSync(file));
  expect(packets).toHaveLength(ticks.length);
  // The last packet's duration in the container is trimmed to the end of the audio; the packet itself is whole.
  for (let i = 0; i < packets.length - 1; i++) expect(opusPacketMs(packets[i]!)! * 48).toBe(ticks[i]);
  expect(opusPacketMs(packets.at(-1)!)! * 48).toBeGreaterThanOrEqual(ticks.at(-1)!);
});

test('bytes that cannot be an Opus packet have no duration', () => {
  const toc = (config: number, code: number) => (config << 3) | code;
  expect(opusPacketMs(new Uint8Array([]))).toBeNull(); // R1: at least one byte
  expect(opusPacketMs(new Uint8Array([toc(1, 1), 1, 2, 3]))).toBeNull(); // R3: two equal frames need an even length
  expect(opusPacketMs(new Uint8Array([toc(1, 1), 1, 2, 3, 4]))).toBe(40);
  expect(opusPacketMs(new Uint8Array([toc(1, 2)]))).toBeNull(); // R4: the first frame's length is missing
  expect(opusPacketMs(new Uint8Array([toc(1, 3)]))).toBeNull(); // R5: no frame count
  expect(opusPacketMs(new Uint8Array([toc(1, 3), 0]))).toBeNull(); // R5: zero frames
  expect(opusPacketMs(new Uint8Array([toc(1, 3), 6, 0]))).toBe(MAX_OPUS_PACKET_MS); // six 20 ms SILK frames
  expect(opusPacketMs(new Uint8Array([toc(1, 3), 7, 0]))).toBeNull(); // R5: more than 120 ms
  expect(opusPacketMs(new Uint8Array([toc(16, 3), 48, 0]))).toBe(MAX_OPUS_PACKET_MS); // 48 CELT frames of 2.5 ms
  expect(opusPacketMs(new Uint8Array([toc(16, 3), 49, 0]))).toBeNull();
});
