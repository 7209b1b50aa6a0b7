import { ServiceError } from '../../core/errors';
import { LISTEN_SAMPLE_RATE, OPUS_SAMPLE_RATE, type ListenEncoding } from '../schemas/listen';
import { opusPacketMs } from './opus';

/** The audio a stream takes (`encoding`, `sample_rate`), and how long each binary message of it plays. */
export interface ListenAudio {
  encoding: ListenEncoding;
  sampleRate: number;
  /** The milliseconds of audio in one binary message, or why it cannot be taken (INVALID_REQUEST naming `audio`). */
  measure(message: Uint8Array): number | ServiceError;
}

const PCM_BYTES_PER_MS = (LISTEN_SAMPLE_RATE / 1000) * 2;

/** The stream's audio from its query; INVALID_REQUEST naming `sample_rate` when the rate is not the encoding's. */
export function listenAudio(query: { encoding: ListenEncoding; sample_rate?: number }): ListenAudio {
  const sampleRate = query.encoding === 'opus' ? OPUS_SAMPLE_RATE : LISTEN_SAMPLE_RATE;
  if (query.sample_rate !== undefined && query.sample_rate !== sampleRate)
    throw new ServiceError('INVALID_REQUEST', 'sample_rate', {
      message: `encoding=${query.encoding} is ${sampleRate} samples a second.`,
    });
  if (query.encoding === 'opus')
    return {
      encoding: 'opus',
      sampleRate,
      measure: (packet) =>
        opusPacketMs(packet) ??
        new ServiceError('INVALID_REQUEST', 'audio', {
          message: 'With encoding=opus each binary message is one Opus packet (RFC 6716) of at most 120 ms.',
        }),
    };
  return {
    encoding: 'pcm_s16le',
    sampleRate,
    measure: (pcm) =>
      pcm.length % 2 === 0
        ? pcm.length / PCM_BYTES_PER_MS
        : new ServiceError('INVALID_REQUEST', 'audio', {
            message: 'Audio is 16-bit samples: a binary message holds an even number of bytes.',
          }),
  };
}
