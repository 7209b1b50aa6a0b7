import type { components } from './schema';

// Real-time transcription (GET /v1/listen as a WebSocket, messages in the service's /asyncapi.json): the socket
// side of `client.listen()`. Works with the WebSocket of browsers and of Node 22+, or one passed in.

export type ListenMessage = components['schemas']['ListenServerMessage'];
export type ListenSegment = components['schemas']['ListenFinalMessage'] | components['schemas']['ListenPartialMessage'];
export type ListenClosed = components['schemas']['ListenClosedMessage'];
export type ListenSession = components['schemas']['ListenSessionMessage'];

/** What `listen()` needs of a WebSocket class: the standard one (browsers, Node 22+). */
export type WebSocketClass = new (url: string) => WebSocket;

export interface ListenStream extends AsyncIterable<ListenMessage> {
  /** The `session` message: the stream's id and language. */
  readonly session: ListenSession;
  /** 16-bit little-endian mono PCM at 16 kHz (about 0.1 s a message keeps latency low; at most 64 KiB), or one Opus packet with `encoding: 'opus'`. */
  send(audio: ArrayBufferView | ArrayBuffer): void;
  /** The audio has ended: the service answers the last final, then `closed`. */
  stop(): void;
  /** Settles with `closed` (the charge) when the stream has ended; rejects with the `error` that ended it first. */
  readonly closed: Promise<ListenClosed>;
}

/** A stream the service refused or ended with an `error` message. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly error?: components['schemas']['ErrorObject'],
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

/** Opens the socket and waits for `session`; rejects when the upgrade is refused (the caller asks why). */
export function openListenStream(WS: WebSocketClass, url: string): Promise<ListenStream> {
  return new Promise((resolve, reject) => {
    const ws = new WS(url);
    ws.binaryType = 'arraybuffer';
    const queue: ListenMessage[] = [];
    let wake: (() => void) | null = null;
    let ended = false;
    let settle!: { resolve: (c: ListenClosed) => void; reject: (e: Error) => void };
    const closed = new Promise<ListenClosed>((res, rej) => (settle = { resolve: res, reject: rej }));
    closed.catch(() => undefined); // observed through the iterator too
    let opened = false;
    let last: ListenClosed | null = null;
    let failure: ListenError | null = null;
    ws.addEventListener('message', (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      const message = JSON.parse(event.data) as ListenMessage;
      if (message.type === 'session' && !opened) {
        opened = true;
        resolve(stream(message));
      }
      if (message.type === 'closed') last = message;
      if (message.type === 'error') failure ??= new ListenError(`${message.error.code}: ${message.error.message}`, message.error);
      queue.push(message);
      wake?.();
    });
    ws.addEventListener('close', () => {
      ended = true;
      wake?.();
      if (!opened) return reject(new ListenError('The service refused the stream before it opened.'));
      if (last) settle.resolve(last);
      else settle.reject(failure ?? new ListenError('The stream ended without closing.'));
    });
    ws.addEventListener('error', () => undefined); // a close always follows

    function stream(session: ListenSession): ListenStream {
      return {
        session,
        closed,
        send: (audio) => ws.send(audio),
        stop: () => ws.send(JSON.stringify({ type: 'stop' })),
        async *[Symbol.asyncIterator]() {
          for (;;) {
            const next = queue.shift();
            if (next) {
              yield next;
              continue;
            }
            if (ended) return;
            await new Promise<void>((r) => (wake = r));
            wake = null;
          }
        },
      };
    }
  });
}

/** ws(s)://host/v1/listen?token=…&language=… from the API's http(s) base. */
/** The query of GET /v1/listen besides the token. */
export interface ListenOptions {
  language?: string;
  /** `pcm_s16le` (the default): 16 kHz 16-bit mono PCM. `opus`: one Opus packet a `send`, as WebCodecs' AudioEncoder gives them. */
  encoding?: 'pcm_s16le' | 'opus';
  /** Keep the audio, to download from GET /v1/listen/sessions/{id}/audio once the stream ends. */
  keepAudio?: boolean;
}

export function listenQuery(opts: ListenOptions): { language?: string; encoding?: 'pcm_s16le' | 'opus'; keep_audio?: true } {
  return {
    ...(opts.language ? { language: opts.language } : {}),
    ...(opts.encoding ? { encoding: opts.encoding } : {}),
    ...(opts.keepAudio ? { keep_audio: true as const } : {}),
  };
}

export function listenUrl(baseUrl: string, token: string, opts: ListenOptions = {}): string {
  const url = new URL(`${baseUrl}/v1/listen`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  for (const [key, value] of Object.entries(listenQuery(opts))) url.searchParams.set(key, String(value));
  return url.toString();
}
