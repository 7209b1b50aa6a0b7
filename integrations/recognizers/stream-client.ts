import net from 'node:net';
import { EventEmitter } from 'node:events';
import { ServiceError, type ErrorCode, ERROR_CODES } from '../../core/errors';

// The API's side of the recognizer's stream port (recognizer/stream_server.py, which describes the protocol): one
// TCP connection a real-time stream, audio frames in, segments back as lines of JSON.

export type RecognizerStreamLine =
  | { type: 'partial' | 'final'; seq: number; start: number; end: number; text: string; language: string }
  | { type: 'end'; audio_seconds: number }
  | { type: 'error'; code: string; message: string };

/** What each audio frame holds: 16-bit little-endian mono PCM at 16 kHz, or one Opus packet. */
export type RecognizerStreamEncoding = 'pcm_s16le' | 'opus';

export interface RecognizerStream {
  /** One frame of the stream's encoding. */
  send(audio: Buffer): void;
  /** The audio has ended: the recognizer answers what is left, then `end`. */
  finish(): void;
  /** Drops the stream at once (the client went away). */
  abort(): void;
  on(event: 'line', listener: (line: RecognizerStreamLine) => void): this;
  /** The connection is gone: after `end`, or with `error` when it broke first. */
  on(event: 'close', listener: (error?: Error) => void): this;
}

const CONNECT_TIMEOUT_MS = 5_000;

/** Opens a stream at `url` (tcp://host:port); PROVIDER_UNAVAILABLE when no recognizer answers or none has a free slot. */
export function openRecognizerStream(
  url: string,
  language: string | null,
  encoding: RecognizerStreamEncoding = 'pcm_s16le',
): Promise<RecognizerStream> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    const unavailable = (message: string) => new ServiceError('PROVIDER_UNAVAILABLE', 'recognizer', { message, retryAfterSeconds: 5 });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(unavailable('No recognizer answered in time.'));
    }, CONNECT_TIMEOUT_MS);
    const stream = new StreamConnection(socket);
    let ready = false;
    stream.on('line', (line: RecognizerStreamLine | { type: 'ready' }) => {
      if (ready) return;
      clearTimeout(timer);
      if (line.type === 'ready') {
        ready = true;
        resolve(stream);
        return;
      }
      socket.destroy();
      if (line.type === 'error') {
        const code = (ERROR_CODES as string[]).includes(line.code) ? (line.code as ErrorCode) : 'PROVIDER_UNAVAILABLE';
        reject(code === 'PROVIDER_UNAVAILABLE' ? unavailable(line.message) : new ServiceError(code, line.message));
      } else reject(unavailable('The recognizer answered something unexpected.'));
    });
    stream.on('close', (err?: Error) => {
      if (ready) return;
      clearTimeout(timer);
      reject(unavailable(`No recognizer stream at ${hostname}:${port}${err ? ` (${err.message})` : ''}.`));
    });
    socket.once('connect', () => socket.write(`${JSON.stringify({ language, encoding })}\n`));
  });
}

class StreamConnection extends EventEmitter implements RecognizerStream {
  private buffered = '';

  constructor(private readonly socket: net.Socket) {
    super();
    socket.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString('utf8');
      let at: number;
      while ((at = this.buffered.indexOf('\n')) >= 0) {
        const text = this.buffered.slice(0, at);
        this.buffered = this.buffered.slice(at + 1);
        let line: RecognizerStreamLine;
        try {
          line = JSON.parse(text) as RecognizerStreamLine;
        } catch {
          continue;
        }
        // Nothing follows `ready` before audio is sent, so the caller has its listeners before any segment.
        this.emit('line', line);
      }
    });
    let failure: Error | undefined;
    socket.on('error', (err) => (failure = err));
    socket.on('close', () => this.emit('close', failure));
  }

  send(audio: Buffer): void {
    if (audio.length === 0) return; // an empty frame is the protocol's end of the audio: finish() sends it
    const head = Buffer.alloc(4);
    head.writeUInt32BE(audio.length);
    this.socket.write(Buffer.concat([head, audio]));
  }

  finish(): void {
    this.socket.write(Buffer.alloc(4));
  }

  abort(): void {
    this.socket.destroy();
  }
}
