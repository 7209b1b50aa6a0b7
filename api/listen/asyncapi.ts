import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import {
  ListenClosedMessage,
  ListenErrorMessage,
  ListenFinalMessage,
  ListenPartialMessage,
  ListenQuery,
  ListenServerMessage,
  ListenSessionMessage,
  ListenStopMessage,
  MAX_LISTEN_FRAME_BYTES,
  MAX_LISTEN_MESSAGE_HARD_CAP_BYTES,
} from '../../domain/schemas/listen';
import { LISTEN_PATH } from './relay';

// The AsyncAPI 3.0 document of GET /v1/listen's WebSocket (served at /asyncapi.json beside /openapi.json): the
// messages come from the same zod schemas the relay sends and checks (domain/schemas/listen.ts).

/** Each message the service sends, with its schema's component name. */
const SERVER_MESSAGES = {
  session: ['ListenSessionMessage', ListenSessionMessage],
  partial: ['ListenPartialMessage', ListenPartialMessage],
  final: ['ListenFinalMessage', ListenFinalMessage],
  closed: ['ListenClosedMessage', ListenClosedMessage],
  error: ['ListenErrorMessage', ListenErrorMessage],
} as const;

/**
 * The messages as OpenAPI components too, though no HTTP operation returns them: the generated clients type
 * their `listen()` from them (clients/typescript), from the one schema each.
 */
export function registerListenMessages(registry: OpenAPIRegistry): void {
  for (const [name, schema] of Object.values(SERVER_MESSAGES)) registry.register(name, schema);
  registry.register('ListenStopMessage', ListenStopMessage);
  registry.register('ListenServerMessage', ListenServerMessage);
}

export function buildAsyncApiDocument(baseUrl: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  for (const [name, schema] of [
    ...Object.values(SERVER_MESSAGES),
    ['ListenStopMessage', ListenStopMessage],
    ['ListenQuery', ListenQuery],
  ] as const)
    registry.register(name, schema);
  const schemas = new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas ?? {};
  const base = new URL(baseUrl);
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const messages: Record<string, unknown> = {
    audio: {
      name: 'audio',
      title: 'Audio',
      summary: `A binary message of the stream's encoding, at most ${MAX_LISTEN_FRAME_BYTES} bytes: 16-bit little-endian mono PCM at 16 kHz (about 0.1 s a message keeps latency low), or with encoding=opus one Opus packet (RFC 6716, no container). An empty message carries nothing. A larger message gets an error message (INVALID_REQUEST naming max_frame_bytes=${MAX_LISTEN_FRAME_BYTES}) and ends the stream; one over ${MAX_LISTEN_MESSAGE_HARD_CAP_BYTES} bytes closes the socket with 1009 unread.`,
      contentType: 'application/octet-stream',
      payload: { type: 'string', format: 'binary', maxLength: MAX_LISTEN_FRAME_BYTES },
    },
    stop: {
      name: 'stop',
      title: 'Stop',
      summary: 'The audio has ended.',
      contentType: 'application/json',
      payload: ref('ListenStopMessage'),
    },
    ...Object.fromEntries(
      Object.entries(SERVER_MESSAGES).map(([name, [component]]) => [
        name,
        { name, title: name, contentType: 'application/json', payload: ref(component) },
      ]),
    ),
  };
  const messageRef = (name: string) => ({ $ref: `#/channels/listen/messages/${name}` });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Transcript service: real-time transcription',
      version: '1.0.0',
      description:
        'GET /v1/listen upgraded to a WebSocket. Authentication, limits and price: the OpenAPI document (`/openapi.json`, operation `listen`). The client sends audio and, at its end, `stop`; the service answers `session` first, `partial` and `final` segments as utterances are heard, `closed` with the charge, and `error` when the stream cannot go on. Close codes: 1000 after `closed`; 1011 when the recognizer failed or went away (an `error`, then `closed` with the charge, say so first).',
    },
    servers: {
      api: { host: base.host, protocol: base.protocol === 'https:' ? 'wss' : 'ws', description: 'This service.' },
    },
    channels: {
      listen: {
        address: LISTEN_PATH,
        messages: Object.fromEntries(Object.keys(messages).map((name) => [name, { $ref: `#/components/messages/${name}` }])),
        bindings: {
          ws: {
            method: 'GET',
            query: ref('ListenQuery'),
            headers: {
              type: 'object',
              properties: {
                Authorization: { type: 'string', description: 'Bearer <API_KEY> (scope jobs:write), unless `token` is given.' },
              },
            },
          },
        },
      },
    },
    operations: {
      sendAudio: { action: 'send', channel: { $ref: '#/channels/listen' }, messages: [messageRef('audio'), messageRef('stop')] },
      receiveSegments: {
        action: 'receive',
        channel: { $ref: '#/channels/listen' },
        messages: Object.keys(SERVER_MESSAGES).map(messageRef),
      },
    },
    components: { messages, schemas },
  };
}
