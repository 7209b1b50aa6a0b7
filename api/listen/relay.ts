import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ServiceError } from '../../core/errors';
import type { Principal } from '../../domain/accounts/principal';
import type { PlanId } from '../../core/plans';
import {
  closeListenSession,
  listenCredits,
  listenTokenWorkspace,
  openListenSession,
  readListenToken,
  recordListenAudio,
  type ListenSession,
} from '../../domain/listen/sessions';
import {
  ListenQuery,
  ListenStopMessage,
  MAX_LISTEN_AUDIO_S,
  MAX_LISTEN_FRAME_BYTES,
  MAX_LISTEN_MESSAGE_HARD_CAP_BYTES,
  type ListenServerMessage,
} from '../../domain/schemas/listen';
import { openRecognizerStream, type RecognizerStream, type RecognizerStreamLine } from '../../integrations/recognizers/stream-client';
import { roundSec } from '../../integrations/recognizers/result';
import { resolveLanguage } from '../../integrations/recognizers/types';
import { listenAudio, type ListenAudio } from '../../domain/listen/audio';
import { KeptAudioWriter } from '../../domain/listen/kept-audio';
import { authenticate, authorisePrincipal } from '../http/auth';
import type { AppDeps } from '../http/context';
import { rawErrorResponse } from '../http/envelope';
import { toServiceError } from '../http/middleware';
import { parseInput } from '../http/parse-input';

// GET /v1/listen upgraded to a WebSocket (issue 54, item 3): the API authenticates the caller, holds the stream's
// slot and credits (domain/listen/sessions.ts) and relays the audio to a recognizer's stream port
// (recognizer/stream_server.py), which sends the segments back. Nothing of a stream stays in this process beyond
// the socket: another API instance serves the next one. The messages: domain/schemas/listen.ts, and the AsyncAPI
// document at /asyncapi.json.

export const LISTEN_PATH = '/v1/listen';
/** How often the audio received is recorded (the limit's liveness and the credit hold follow it). */
const REPORT_EVERY_MS = 5_000;

/** The upgrade requests the server hands to attachListen (http.createServer's shouldUpgradeCallback). */
export function isListenUpgrade(req: http.IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket' && (req.url ?? '').split('?')[0] === LISTEN_PATH;
}

export function attachListen(server: http.Server, deps: AppDeps): void {
  // A message over the limit is answered in the stream (an `error` naming the limit, then `closed`); only one over
  // the hard cap, which no client of the protocol sends, is cut off by the library (close code 1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_LISTEN_MESSAGE_HARD_CAP_BYTES });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = randomUUID();
    socket.on('error', () => undefined);
    open(req, deps, requestId).then(
      (opened) => wss.handleUpgrade(req, socket, head, (ws) => relay(ws, opened, deps, requestId)),
      (err) => {
        const error = toServiceError(err, deps.logger, requestId);
        if (socket.writable) socket.end(rawErrorResponse(error, requestId));
        else socket.destroy();
      },
    );
  });
}

interface Opened {
  principal: Pick<Principal, 'workspaceId' | 'plan'>;
  session: ListenSession;
  recognizer: RecognizerStream;
  language: string | null;
  audio: ListenAudio;
  keepAudio: boolean;
}

/** Everything before the upgrade: a refusal is an HTTP answer in the error envelope, and nothing is held. */
async function open(req: http.IncomingMessage, deps: AppDeps, requestId: string): Promise<Opened> {
  const url = new URL(req.url ?? '/', 'http://listen');
  // As Express reads a query: a repeated parameter is a list (which the schema refuses, naming it).
  const raw: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) raw[key] = key in raw ? [raw[key]!].flat().concat(value) : value;
  const query = parseInput(ListenQuery, raw, 'query');
  const principal = await listenCaller(req, deps, query.token);
  const { language, streamUrl, audio } = listenTarget(deps, query);
  const session = await openListenSession(deps.db, {
    workspaceId: principal.workspaceId,
    plan: principal.plan,
    limit: deps.config.LISTEN_STREAMS_PER_WORKSPACE,
    language,
    tokenId: principal.tokenId,
    encoding: audio.encoding,
    keepAudio: query.keep_audio,
  });
  try {
    const recognizer = await openRecognizerStream(streamUrl, language, audio.encoding);
    return { principal, session, recognizer, language, audio, keepAudio: query.keep_audio };
  } catch (err) {
    await closeListenSession(deps.db, session.id, 0);
    deps.logger.warn({ request_id: requestId, err: (err as Error).message }, 'listen: no recognizer stream');
    throw err;
  }
}

/** The caller: an API key or access token with jobs:write (Authorization header), or a browser token (`token`). */
async function listenCaller(
  req: http.IncomingMessage,
  deps: AppDeps,
  token: string | undefined,
): Promise<Pick<Principal, 'workspaceId' | 'plan'> & { tokenId?: string }> {
  if (token !== undefined && !req.headers.authorization) return tokenCaller(deps, token);
  // The same authentication as every REST route, on the upgrade request's headers.
  const asRequest = { get: (name: string) => req.headers[name.toLowerCase()] as string | undefined } as Parameters<typeof authenticate>[0];
  const principal = await authenticate(asRequest, deps);
  authorisePrincipal({ kind: 'required', scope: 'jobs:write' }, principal);
  return principal;
}

/** The workspace a browser token opens a stream of; UNAUTHENTICATED naming `token` when it is not valid. */
export async function tokenCaller(deps: AppDeps, token: string): Promise<{ workspaceId: string; plan: PlanId; tokenId: string }> {
  const read = readListenToken(deps.secretsKey, token);
  if (!read) throw new ServiceError('UNAUTHENTICATED', 'token', { message: 'The token is not valid or has expired (tokens last 60 s).' });
  return { ...(await listenTokenWorkspace(deps.db, read.workspaceId)), tokenId: read.tokenId };
}

/**
 * What the upgrade and the plain GET both check once the caller is known: the audio's format, the language the
 * recognizer takes, and a real-time recognizer to relay to.
 */
export function listenTarget(deps: AppDeps, query: ListenQuery): { language: string | null; streamUrl: string; audio: ListenAudio } {
  const audio = listenAudio(query);
  let language: string | null = null;
  if (query.language) {
    try {
      language = resolveLanguage(deps.recognizer, query.language)!;
    } catch (err) {
      if (err instanceof ServiceError) throw new ServiceError(err.code, 'language', { message: err.detail ?? err.message });
      throw err;
    }
  }
  const streamUrl = deps.config.RECOGNIZER_STREAM_URL;
  if (!streamUrl)
    throw new ServiceError('SERVICE_UNAVAILABLE', 'listen', {
      message: 'This deployment runs no real-time recognizer (RECOGNIZER_STREAM_URL).',
    });
  return { language, streamUrl, audio };
}

function relay(ws: WebSocket, opened: Opened, deps: AppDeps, requestId: string): void {
  const { session, recognizer, principal, audio } = opened;
  let audioMs = 0;
  // Kept audio (keep_audio=true) goes to the object store in chunks as it comes.
  const kept = opened.keepAudio
    ? new KeptAudioWriter(deps.db, deps.objectStore, { id: session.id, workspaceId: principal.workspaceId, encoding: audio.encoding })
    : null;
  // Reading pauses while anything it depends on is pending (a raise of the hold, chunks of kept audio being written).
  let pauses = 0;
  const pauseReadingUntil = (pending: Promise<unknown>) => {
    if (pauses++ === 0) ws.pause();
    void pending.finally(() => {
      if (--pauses === 0) ws.resume(); // after a failure too: the close handshake needs reading
    });
  };
  let finishing = false;
  let closed = false;
  const send = (message: ListenServerMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const fail = (err: ServiceError) => {
    send({ type: 'error', error: err.toObject(), request_id: requestId });
    finish();
  };
  // The audio has ended (stop, credits, duration): the recognizer answers its last final, then `end`.
  const finish = () => {
    if (finishing) return;
    finishing = true;
    recognizer.finish();
  };
  // Charged for the audio received, once, whichever way the stream ends.
  const settle = async (reason: string) => {
    if (closed) return;
    closed = true;
    clearInterval(reporter);
    await kept?.finish().catch((err) => {
      deps.logger.error({ request_id: requestId, session: session.id, err: (err as Error).message }, 'listen: keeping the audio failed');
    });
    const charged = await closeListenSession(deps.db, session.id, audioMs).catch((err) => {
      deps.logger.error({ request_id: requestId, session: session.id, err: (err as Error).message }, 'listen: settling failed');
      return null;
    });
    deps.logger.info({ request_id: requestId, session: session.id, audio_ms: audioMs, reason }, 'listen: stream ended');
    return charged;
  };

  // Every few seconds, even when no audio comes: a stream whose instance stops reporting is taken as gone.
  const reporter = setInterval(() => {
    if (!finishing) report().catch(() => undefined);
  }, REPORT_EVERY_MS);
  let raising: Promise<void> | null = null;
  const report = () =>
    recordListenAudio(deps.db, session, audioMs, principal.plan).catch((err) => {
      fail(toServiceError(err, deps.logger, requestId));
    });
  // The hold stays ahead of the audio: when the credit being used is the last one held, reading pauses until the
  // next minute is held, so no audio is ever received that the hold does not cover.
  const keepHoldAhead = () => {
    if (raising || listenCredits(audioMs) + 1 <= session.held) return;
    raising = report().finally(() => (raising = null));
    pauseReadingUntil(raising);
  };

  send({
    type: 'session',
    id: session.id,
    language: opened.language,
    encoding: audio.encoding,
    sample_rate: audio.sampleRate,
    keep_audio: opened.keepAudio,
    request_id: requestId,
  });

  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (finishing) return;
    if (!isBinary) {
      const stop = parseJson(data.toString());
      if (ListenStopMessage.safeParse(stop).success) return finish();
      return fail(
        new ServiceError('INVALID_REQUEST', 'message', { message: 'Text messages are {"type":"stop"}; audio goes in binary messages.' }),
      );
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    // An empty message carries no audio (in either encoding: an empty Opus packet is not one).
    if (bytes.length === 0) return;
    if (bytes.length > MAX_LISTEN_FRAME_BYTES)
      return fail(
        new ServiceError('INVALID_REQUEST', `max_frame_bytes=${MAX_LISTEN_FRAME_BYTES}`, {
          message: `A binary message holds at most ${MAX_LISTEN_FRAME_BYTES} bytes; send about 0.1 s of audio at a time.`,
        }),
      );
    const ms = audio.measure(bytes);
    if (ms instanceof ServiceError) return fail(ms);
    if ((audioMs + ms) / 1000 > MAX_LISTEN_AUDIO_S)
      return fail(new ServiceError('DURATION_LIMIT_EXCEEDED', `max_audio_seconds=${MAX_LISTEN_AUDIO_S}`));
    if (listenCredits(audioMs + ms) > session.held)
      return fail(
        new ServiceError('INSUFFICIENT_BALANCE', 'credits_remaining', { message: 'The credits held for this stream are used up.' }),
      );
    if (kept?.failure)
      return fail(new ServiceError('SERVICE_UNAVAILABLE', 'keep_audio', { message: 'The audio could not be kept; start a new stream.' }));
    audioMs += ms;
    recognizer.send(bytes);
    if (kept) {
      kept.append(bytes);
      if (kept.backlog >= 2) pauseReadingUntil(kept.settled());
    }
    keepHoldAhead();
  });
  // A client that goes away ends the stream at once: nothing more is decoded, the audio received is charged.
  ws.on('close', () => {
    recognizer.abort();
    void settle('client closed');
  });
  ws.on('error', () => recognizer.abort());

  const sendClosed = (charged: Awaited<ReturnType<typeof settle>>) => {
    if (charged) send({ type: 'closed', audio_seconds: roundSec(charged.audioMs / 1000), credits_charged: charged.credits });
  };
  // A recognizer that fails mid-stream says so in one line and closes; the client hears it once, on close.
  let recognizerFault: string | null = null;
  recognizer.on('line', (line: RecognizerStreamLine) => {
    if (line.type === 'partial' || line.type === 'final') return send(line);
    if (line.type === 'error') {
      recognizerFault = line.message;
      return;
    }
    void settle('ended').then((charged) => {
      sendClosed(charged);
      ws.close(1000);
    });
  });
  recognizer.on('close', (error?: Error) => {
    if (closed) return;
    // The recognizer failed or went away before `end`: the client hears why, and pays for the audio it sent.
    const why = recognizerFault ?? `The recognizer stream ended early${error ? ` (${error.message})` : ''}`;
    send({
      type: 'error',
      error: new ServiceError('PROVIDER_UNAVAILABLE', 'recognizer', { message: `${why}; start a new stream.` }).toObject(),
      request_id: requestId,
    });
    void settle('recognizer gone').then((charged) => {
      sendClosed(charged);
      ws.close(1011);
    });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
