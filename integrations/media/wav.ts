import { open } from 'node:fs/promises';
import { ServiceError } from '../../core/errors';

// Just enough of RIFF/WAVE to read what toRecognizerWav writes (16 kHz mono
// s16le): its format and length, for clamping word times. Chunks are walked,
// not assumed: ffmpeg puts a LIST chunk before `data`.

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataOffset: number;
  dataBytes: number;
  durationSec: number;
}

export async function readWavInfo(path: string): Promise<WavInfo> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 4096));
    await fh.read(head, 0, head.length, 0);
    return parseWavHeader(head, size, path);
  } finally {
    await fh.close();
  }
}

export function parseWavHeader(head: Buffer, fileSize: number, name = 'wav'): WavInfo {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') {
    throw new ServiceError('INVALID_MEDIA', `${name}: not a RIFF/WAVE file`);
  }
  let pos = 12;
  let fmt: { sampleRate: number; channels: number; bitsPerSample: number } | undefined;
  while (pos + 8 <= head.length) {
    const id = head.toString('latin1', pos, pos + 4);
    const len = head.readUInt32LE(pos + 4);
    if (id === 'fmt ') {
      fmt = { channels: head.readUInt16LE(pos + 10), sampleRate: head.readUInt32LE(pos + 12), bitsPerSample: head.readUInt16LE(pos + 22) };
    } else if (id === 'data' && fmt) {
      const dataOffset = pos + 8;
      // A streamed wav has a placeholder length: the data then runs to the end of the file.
      const dataBytes = Math.min(len, fileSize - dataOffset);
      const bytesPerSecond = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
      return { ...fmt, dataOffset, dataBytes, durationSec: dataBytes / bytesPerSecond };
    }
    pos += 8 + len + (len % 2);
  }
  throw new ServiceError('INVALID_MEDIA', `${name}: no fmt/data chunk in the first ${head.length} bytes`);
}

/** The plain 44-byte header of a 16-bit mono PCM wav holding `dataBytes` of samples at `sampleRate` (16 kHz: the recognizer's input). */
export function pcmWavHeader(dataBytes: number, sampleRate = 16_000): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // the fmt chunk's size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // bytes a second
  header.writeUInt16LE(2, 32); // bytes a frame
  header.writeUInt16LE(16, 34); // bits a sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
