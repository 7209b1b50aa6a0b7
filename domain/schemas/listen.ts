import { z } from './zod';
import { DateTime, ErrorObjectSchema, Uuid } from './common';
import { Bcp47Tag } from './jobs';

// Real-time transcription (GET /v1/listen, a WebSocket): the upgrade's query, the messages both ways and the
// browser token. The OpenAPI document describes the upgrade; the AsyncAPI document (GET /asyncapi.json,
// api/listen/asyncapi.ts) describes the messages, both from these schemas.

export const LISTEN_SAMPLE_RATE = 16_000;
export const OPUS_SAMPLE_RATE = 48_000;
export const LISTEN_ENCODINGS = ['pcm_s16le', 'opus'] as const;
export type ListenEncoding = (typeof LISTEN_ENCODINGS)[number];
/** The largest binary message: 2 s of 16 kHz 16-bit audio (clients send about 0.1 s at a time). */
export const MAX_LISTEN_FRAME_BYTES = 64 * 1024;
/** A message the socket does not even read: the connection is closed with 1009 (memory, not protocol). */
export const MAX_LISTEN_MESSAGE_HARD_CAP_BYTES = 1024 * 1024;
/** The longest stream, as the longest job: 2 hours of audio. */
export const MAX_LISTEN_AUDIO_S = 7200;

export const ListenQuery = z
  .strictObject({
    language: Bcp47Tag.optional().openapi({
      description: 'The spoken language. Default: detected from the first utterance, then kept for the stream.',
    }),
    encoding: z.enum(LISTEN_ENCODINGS).default('pcm_s16le').openapi({
      description:
        'The audio in binary messages. `pcm_s16le`: 16-bit little-endian mono PCM at 16 kHz, any whole number of samples a message (about 0.1 s keeps latency low). `opus`: one Opus packet a message (RFC 6716, as WebCodecs `AudioEncoder` and libopus give them, without an Ogg or WebM container), mono or stereo (heard as mono), of any frame length up to 120 ms; a stream is billed by the duration its packets say. A packet the decoder cannot read is heard as silence of its length.',
    }),
    sample_rate: z.coerce
      .number()
      .refine((v) => v === LISTEN_SAMPLE_RATE || v === OPUS_SAMPLE_RATE, `sample_rate must be ${LISTEN_SAMPLE_RATE} or ${OPUS_SAMPLE_RATE}`)
      .optional()
      .openapi({
        type: 'integer',
        description: `Samples a second: ${LISTEN_SAMPLE_RATE} for pcm_s16le, ${OPUS_SAMPLE_RATE} for opus (an Opus stream decodes at ${OPUS_SAMPLE_RATE / 1000} kHz whatever it was made from). Optional: it is checked against the encoding when given.`,
      }),
    keep_audio: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .default(false)
      .openapi({
        type: 'boolean',
        description:
          "Keep the audio received, to download afterwards from `GET /v1/listen/sessions/{id}/audio` (WAV for pcm_s16le, Ogg Opus for opus) until the plan's transcript retention ends or it is deleted. Free. Default false: the audio is not kept.",
      }),
    token: z.string().min(1).max(512).optional().openapi({
      description: 'A browser token from POST /v1/listen/tokens, instead of an Authorization header (browsers cannot send one).',
    }),
  })
  .openapi('ListenQuery');
export type ListenQuery = z.infer<typeof ListenQuery>;

export const ListenTokenSchema = z
  .object({
    token: z.string().openapi({ description: 'Opens one stream (`GET /v1/listen?token=…`); shown once.' }),
    expires_at: z.string().openapi({ format: 'date-time', description: 'It must open its stream by then (60 s).' }),
  })
  .openapi('ListenToken');

// ----------------------------------------------------------------------------------------------- messages

/** The client's one text message: the audio has ended (the stream answers its last final, then `closed`). */
export const ListenStopMessage = z.strictObject({ type: z.literal('stop') }).openapi('ListenStopMessage');

export const ListenSessionMessage = z
  .object({
    type: z.literal('session'),
    id: Uuid,
    language: z.string().nullable().openapi({ description: 'As asked; null: detected.' }),
    encoding: z.enum(LISTEN_ENCODINGS).openapi({ description: 'The audio the stream takes, as asked.' }),
    sample_rate: z
      .number()
      .int()
      .openapi({ description: `${LISTEN_SAMPLE_RATE} for pcm_s16le, ${OPUS_SAMPLE_RATE} for opus.` }),
    keep_audio: z.boolean().openapi({ description: 'The audio is being kept (`keep_audio=true`).' }),
    request_id: z.string(),
  })
  .openapi('ListenSessionMessage', { description: 'The first message: the stream is open and audio may be sent.' });

const segmentFields = {
  seq: z.number().int().min(0).openapi({ description: 'The utterance, from 0: a final replaces every partial of the same seq.' }),
  start: z.number().openapi({ description: "Seconds from the stream's first sample." }),
  end: z.number(),
  text: z.string(),
  language: z.string(),
};

export const ListenPartialMessage = z
  .object({ type: z.literal('partial'), ...segmentFields })
  .openapi('ListenPartialMessage', { description: 'What is heard so far of the utterance being spoken; replaced by the next.' });

export const ListenFinalMessage = z
  .object({ type: z.literal('final'), ...segmentFields })
  .openapi('ListenFinalMessage', { description: 'An utterance that ended (a pause of 0.5 s, or 20 s of speech): its text for good.' });

export const ListenClosedMessage = z
  .object({
    type: z.literal('closed'),
    audio_seconds: z.number().openapi({ description: 'Audio received.' }),
    credits_charged: z.number().int().openapi({ description: 'ceil(audio_seconds / 30): 2 credits a minute, by the second.' }),
  })
  .openapi('ListenClosedMessage', { description: 'The last message: the stream is over and charged; the socket closes (1000).' });

export const ListenErrorMessage = z
  .object({ type: z.literal('error'), error: ErrorObjectSchema, request_id: z.string() })
  .openapi('ListenErrorMessage', {
    description:
      'The stream cannot go on (credits ran out: INSUFFICIENT_BALANCE; a frame too large, an odd-sized PCM message, bytes that are not an Opus packet, or a text message other than stop: INVALID_REQUEST; the recognizer failed or went away: PROVIDER_UNAVAILABLE; 2 hours of audio: DURATION_LIMIT_EXCEEDED). The audio so far is charged, `closed` follows when it could be, and the socket closes.',
  });

export const ListenServerMessage = z
  .discriminatedUnion('type', [ListenSessionMessage, ListenPartialMessage, ListenFinalMessage, ListenClosedMessage, ListenErrorMessage])
  .openapi('ListenServerMessage', { description: 'Any message GET /v1/listen sends, by its `type`.' });
export type ListenServerMessage = z.infer<typeof ListenServerMessage>;

// ----------------------------------------------------------------------------------------------- the stream's record

export const ListenSessionResource = z
  .object({
    id: Uuid,
    status: z.enum(['active', 'ended']),
    language: z.string().nullable().openapi({ description: 'As asked; null: detected.' }),
    encoding: z.enum(LISTEN_ENCODINGS),
    audio_seconds: z.number().openapi({ description: 'Audio received (while active: as last reported, every few seconds).' }),
    credits_charged: z.number().int(),
    started_at: DateTime,
    ended_at: DateTime.nullable(),
    audio: z
      .object({
        content_type: z
          .enum(['audio/wav', 'audio/ogg'])
          .openapi({ description: 'audio/wav for pcm_s16le, audio/ogg (Ogg Opus) for opus.' }),
        bytes: z.number().int().openapi({ description: 'The audio as received (the file adds its container).' }),
        url: z.string().openapi({ description: 'GET it with the same credentials: /v1/listen/sessions/{id}/audio.' }),
        expires_at: DateTime,
      })
      .nullable()
      .openapi({ description: 'The kept audio; null when the stream did not ask to keep it, or it was deleted or has expired.' }),
  })
  .openapi('ListenSessionResource', { description: 'A real-time stream: what it received and was charged, and its kept audio.' });
export type ListenSessionResource = z.infer<typeof ListenSessionResource>;
