import { open } from 'node:fs/promises';
import { ServiceError } from '../../core/errors';
import { MAX_DURATION_MS } from '../../core/plans';
import { lastLine, runTool } from './run-tool';
import { SNIFF_BYTES, sniffMedia } from '../storage/sniff-media';

// What a media file is, measured by ffprobe before any credit is charged or
// any audio reaches a recognizer. The checks run in the order the spec's
// error codes imply: not media at all, unreadable media, media without a
// sound track, media that is too long.

export { toRecognizerWav } from './convert';

export interface MediaInfo {
  durationMs: number;
  hasAudio: boolean;
  hasVideo: boolean;
  /** ffprobe's demuxer name, e.g. `mp3`, `wav`, `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`. */
  formatName: string;
  /** Codec of the first audio stream (`mp3`, `aac`, `opus`, `pcm_s16le`, …); null when there is none. */
  audioCodec: string | null;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
}
interface FfprobeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: FfprobeStream[];
}

// Demuxers ffprobe will happily open that are not audio or video: text shown
// as "ANSI art" (tty), still images, subtitles and playlists.
const NOT_MEDIA_FORMATS =
  /^(tty|image2|.*_pipe|gif|apng|webp|bmp|png|jpeg|svg|srt|webvtt|ass|lrc|subviewer|microdvd|hls|concat|ffmetadata|bin|txt)$/;

/** Probes `filePath`; throws UNSUPPORTED_MEDIA, INVALID_MEDIA, NO_AUDIO or DURATION_LIMIT_EXCEEDED. */
export async function probeMedia(filePath: string, opts: { signal?: AbortSignal } = {}): Promise<MediaInfo> {
  const head = await readHead(filePath, SNIFF_BYTES);
  if (head.length === 0) throw new ServiceError('INVALID_MEDIA', 'file is empty (0 bytes)');
  const sniffed = sniffMedia(head);
  // Text is refused before ffprobe sees it: its tty demuxer reads any text as a video.
  if (!sniffed && looksLikeText(head)) throw new ServiceError('UNSUPPORTED_MEDIA', 'file content is text, not audio or video');

  const run = await runTool('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', filePath], {
    signal: opts.signal,
    timeoutMs: 60_000,
  });
  const parsed = run.code === 0 ? parseJson(run.stdout) : undefined;
  if (!parsed?.format) {
    // A recognised container that ffprobe cannot read is damaged; anything else is not media.
    // ffprobe starts its complaint with the file's path, a scratch path of this machine: the caller's file is "the file".
    const why = (lastLine(run.stderr) || `ffprobe exit ${run.code}`).replaceAll(filePath, 'the file');
    if (sniffed) throw new ServiceError('INVALID_MEDIA', `${sniffed} file unreadable: ${why}`);
    throw new ServiceError('UNSUPPORTED_MEDIA', `not an audio or video file type: ${why}`);
  }

  const formatName = parsed.format.format_name ?? 'unknown';
  const streams = parsed.streams ?? [];
  const audio = streams.filter((s) => s.codec_type === 'audio');
  // Cover art in an mp3/m4a is a "video" stream flagged attached_pic: it is not video.
  const video = streams.filter((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (NOT_MEDIA_FORMATS.test(formatName) || (audio.length === 0 && video.length === 0)) {
    throw new ServiceError('UNSUPPORTED_MEDIA', `format ${formatName} is not audio or video`);
  }
  if (audio.length === 0)
    throw new ServiceError('NO_AUDIO', `format ${formatName} has ${video.length} video stream(s) and no audio stream`);

  let durationMs = seconds(parsed.format.duration) ?? maxOf(audio.map((s) => seconds(s.duration)));
  // Some recordings (browser MediaRecorder webm, raw ADTS) carry no duration: decode the audio to measure it.
  if (durationMs === null) durationMs = await decodedDurationMs(filePath, opts.signal);
  if (durationMs === null || durationMs <= 0)
    throw new ServiceError('INVALID_MEDIA', `format ${formatName}: no decodable audio (duration unknown)`);
  if (durationMs > MAX_DURATION_MS) throw new ServiceError('DURATION_LIMIT_EXCEEDED', `duration_ms=${durationMs} > ${MAX_DURATION_MS}`);

  return { durationMs, hasAudio: true, hasVideo: video.length > 0, formatName, audioCodec: audio[0].codec_name ?? null };
}

async function readHead(filePath: string, n: number): Promise<Buffer> {
  const fh = await open(filePath, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Printable ASCII/UTF-8 with whitespace and no NUL or other control bytes: text, not a binary container. */
function looksLikeText(head: Buffer): boolean {
  for (const byte of head) {
    if (byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    if (byte < 0x20 || byte === 0x7f) return false;
  }
  return true;
}

function parseJson(text: string): FfprobeOutput | undefined {
  try {
    return JSON.parse(text) as FfprobeOutput;
  } catch {
    return undefined;
  }
}

function seconds(value: string | undefined): number | null {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n * 1000) : null;
}

function maxOf(values: Array<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length > 0 ? Math.max(...known) : null;
}

async function decodedDurationMs(filePath: string, signal?: AbortSignal): Promise<number | null> {
  const run = await runTool('ffmpeg', ['-nostdin', '-hide_banner', '-i', filePath, '-map', '0:a:0', '-f', 'null', '-'], {
    signal,
    timeoutMs: 10 * 60_000,
  });
  // The final progress line holds the decoded length: "... time=00:01:02.50 ...".
  const times = [...run.stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times[times.length - 1];
  if (run.code !== 0 || !last) return null;
  return Math.round((Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3])) * 1000);
}
