import { ServiceError } from '../../core/errors';
import { hostFault, lastLine, runTool } from './run-tool';

// Every recognizer here takes the same input: 16 kHz, mono, signed 16-bit
// PCM in a wav file. Whisper is trained on 16 kHz audio; converting once,
// here, keeps the recognition workers free of codecs.

export interface WavCut {
  /** Start of the piece in the input, milliseconds. Default 0. */
  startMs?: number;
  /** Length of the piece, milliseconds. Default: to the end. */
  durationMs?: number;
  signal?: AbortSignal;
}

/** Writes the first audio stream of `input` (or the piece `startMs`..`startMs+durationMs`) to `output` as 16 kHz mono s16 wav; returns `output`. */
export async function toRecognizerWav(input: string, output: string, cut: WavCut = {}): Promise<string> {
  const args = ['-nostdin', '-hide_banner', '-v', 'error', '-y'];
  // -ss before -i seeks the demuxer, then decodes exactly from the position (audio seeking is sample-accurate).
  if (cut.startMs) args.push('-ss', msToSeconds(cut.startMs));
  args.push('-i', input);
  if (cut.durationMs !== undefined) args.push('-t', msToSeconds(cut.durationMs));
  args.push('-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le');
  // A plain 44-byte header (no LIST/INFO chunk): readers that skip exactly 44 bytes would otherwise hear the rest as samples.
  args.push('-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-f', 'wav', output);
  const run = await runTool('ffmpeg', args, { signal: cut.signal, timeoutMs: 30 * 60_000 });
  const fault = hostFault('ffmpeg', run.stderr);
  if (fault) throw fault;
  if (run.code !== 0)
    throw new ServiceError('INVALID_MEDIA', `audio could not be decoded: ${lastLine(run.stderr) || `ffmpeg exit ${run.code}`}`);
  return output;
}

/** Encodes a wav as Ogg Opus at 32 kbit/s (speech at 16 kHz mono keeps its words at that rate); returns `output`. */
export async function toOggOpus(input: string, output: string, signal?: AbortSignal): Promise<string> {
  const args = ['-nostdin', '-hide_banner', '-v', 'error', '-y', '-i', input, '-c:a', 'libopus', '-b:a', '32k', '-application', 'voip'];
  args.push('-map_metadata', '-1', '-fflags', '+bitexact', '-f', 'ogg', output);
  const run = await runTool('ffmpeg', args, { signal, timeoutMs: 30 * 60_000 });
  const fault = hostFault('ffmpeg', run.stderr);
  if (fault) throw fault;
  if (run.code !== 0)
    throw new ServiceError('INTERNAL_ERROR', `audio could not be encoded: ${lastLine(run.stderr) || `ffmpeg exit ${run.code}`}`);
  return output;
}

function msToSeconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}
