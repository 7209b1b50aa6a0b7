import { ServiceError } from '../../core/errors';
import { assertListenAllowed, mintListenToken } from '../../domain/listen/sessions';
import { listenTarget, tokenCaller } from '../listen/relay';
import { authorisePrincipal } from '../http/auth';
import type { PlanId } from '../../core/plans';
import { ListenQuery, ListenSessionResource, ListenTokenSchema } from '../../domain/schemas/listen';
import { IdParams } from '../../domain/schemas/common';
import { deleteKeptAudio, keptAudioFile, listenSessionView } from '../../domain/listen/kept-audio';
import { defineRoute, type AnyRoute } from '../http/route';

// GET /v1/listen as the OpenAPI document and a plain HTTP GET see it: the WebSocket itself is served on the
// upgrade (api/listen/relay.ts), and its messages are in the AsyncAPI document (/asyncapi.json).

const listen = defineRoute({
  method: 'get',
  path: '/v1/listen',
  operationId: 'listen',
  summary: 'Real-time transcription (WebSocket)',
  tags: ['Real-time'],
  description:
    'Open with `Upgrade: websocket`. Send audio as binary messages (16-bit little-endian mono PCM at 16 kHz, at most 64 KiB each, about 0.1 s a message keeps latency low; or with `encoding=opus` one Opus packet a message, as the AudioEncoder of WebCodecs makes them, billed by the duration the packets say) and `{"type":"stop"}` when it ends; receive `session`, then `partial` segments while an utterance is spoken and one `final` when it ends (a 0.5 s pause), and `closed` with the charge. The messages are described in the AsyncAPI document at `/asyncapi.json`.\n\n' +
    "Authentication: `Authorization: Bearer <API_KEY>` (scope `jobs:write`), or `?token=` from `POST /v1/listen/tokens` for a browser, which cannot send that header. Needs a paid plan. At most `LISTEN_STREAMS_PER_WORKSPACE` streams (default 2) of a workspace run at once: another answers 429 RATE_LIMITED naming `streams_per_workspace=N`. Price: AI transcription's 2 credits a minute, counted by the second of audio received and rounded up to whole credits (1 credit = 30 s), no minimum; a minute's credits are held ahead while the stream runs, and a stream whose next minute cannot be held gets an `error` message (INSUFFICIENT_BALANCE) and ends. At most 2 hours of audio a stream. The audio is not kept unless `keep_audio=true` asks for it (free; downloaded from `GET /v1/listen/sessions/{id}/audio` once the stream ends, until the plan's transcript retention ends or it is deleted).\n\n" +
    "Refusals come before the upgrade, as HTTP answers in the error envelope. A GET without `Upgrade: websocket` runs the same checks without holding anything and answers the same refusal, or 426 UPGRADE_REQUIRED when a stream would be accepted now (a browser, which never sees a refused upgrade's status, learns the reason this way; a recognizer with no free slot is found only by the upgrade). A browser token is not used up by it.",
  auth: { kind: 'optional' },
  query: ListenQuery,
  responses: { 101: { description: 'Switching Protocols: the WebSocket is open, and its first message is `session`.' } },
  errors: [
    'UNAUTHENTICATED',
    'FORBIDDEN',
    'PLAN_REQUIRED',
    'INSUFFICIENT_BALANCE',
    'RATE_LIMITED',
    'LANGUAGE_UNSUPPORTED',
    'UPGRADE_REQUIRED',
    'SERVICE_UNAVAILABLE',
    'PROVIDER_UNAVAILABLE',
  ],
  handler: async ({ principal, query, deps }) => {
    // The upgrade's checks in the upgrade's order, nothing held: a client whose upgrade failed learns why here.
    // A cookie session does not open a stream (a WebSocket is not bound by CORS): the dashboard mints a token.
    let caller: { workspaceId: string; plan: PlanId };
    if (principal && principal.kind !== 'session') {
      authorisePrincipal({ kind: 'required', scope: 'jobs:write' }, principal);
      caller = principal;
    } else if (query.token !== undefined) {
      caller = await tokenCaller(deps, query.token);
    } else {
      throw new ServiceError('UNAUTHENTICATED', 'Authorization', {
        message: 'Send Authorization: Bearer <API_KEY>, or a token from POST /v1/listen/tokens.',
      });
    }
    listenTarget(deps, query);
    await assertListenAllowed(deps.db, {
      workspaceId: caller.workspaceId,
      plan: caller.plan,
      limit: deps.config.LISTEN_STREAMS_PER_WORKSPACE,
    });
    throw new ServiceError('UPGRADE_REQUIRED', 'Upgrade', {
      message: 'Open GET /v1/listen as a WebSocket (Upgrade: websocket): this stream would be accepted now.',
    });
  },
});

const listenToken = defineRoute({
  method: 'post',
  path: '/v1/listen/tokens',
  operationId: 'createListenToken',
  summary: 'Mint a browser token for one real-time stream',
  tags: ['Real-time'],
  description:
    'For a server to hand to a browser: the browser opens `GET /v1/listen?token=…` without the API key. A token opens one stream of this workspace within 60 s, and nothing else; it is shown once and not stored (it is signed). Free; rate-limited as a submit.',
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  responses: { 201: { description: 'The token.', schema: ListenTokenSchema } },
  errors: [],
  handler: async ({ principal, deps }) => {
    const { token, expiresAt } = mintListenToken(deps.secretsKey, principal.workspaceId);
    return { status: 201, body: { token, expires_at: expiresAt.toISOString() } };
  },
});

const getListenSession = defineRoute({
  method: 'get',
  path: '/v1/listen/sessions/:id',
  operationId: 'getListenSession',
  summary: 'A real-time stream',
  tags: ['Real-time'],
  description:
    'A stream of this workspace (its id is in the `session` message): whether it runs, the audio received and the credits charged, and its kept audio when it was opened with `keep_audio=true`.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: IdParams,
  responses: { 200: { description: 'The stream.', schema: ListenSessionResource } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => ({
    status: 200,
    body: await listenSessionView(deps.db, principal.workspaceId, params.id),
  }),
});

const getListenAudio = defineRoute({
  method: 'get',
  path: '/v1/listen/sessions/:id/audio',
  operationId: 'getListenAudio',
  summary: 'A stream’s kept audio',
  tags: ['Real-time'],
  description:
    'The audio of an ended stream opened with `keep_audio=true`, as received: WAV (16 kHz 16-bit mono) for pcm_s16le, Ogg Opus for opus, whole, named in `Content-Disposition`. 404 `NOT_FOUND` naming `audio` when it was not kept, was deleted or has expired; 409 `CONFLICT` naming `status` while the stream runs.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: IdParams,
  responses: {
    200: {
      description: 'The audio.',
      contentTypes: ['audio/wav', 'audio/ogg'],
      headers: { 'Content-Disposition': 'attachment with the download filename' },
    },
  },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async ({ deps, principal, params }) => {
    const file = await keptAudioFile(deps.db, deps.objectStore, principal.workspaceId, params.id);
    return {
      status: 200,
      headers: { 'Content-Disposition': `attachment; filename="${file.filename}"` },
      stream: {
        contentType: file.contentType,
        // Chunk by chunk from the store: a two-hour stream is never held whole.
        write: async (res) => {
          for await (const chunk of file.body) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
        },
      },
    };
  },
});

const deleteListenAudio = defineRoute({
  method: 'delete',
  path: '/v1/listen/sessions/:id/audio',
  operationId: 'deleteListenAudio',
  summary: 'Delete a stream’s kept audio',
  tags: ['Real-time'],
  description:
    'Hidden at once and removed from storage; the stream’s record (seconds, charge) stays. 404 `NOT_FOUND` naming `audio` when it was not kept; 409 `CONFLICT` while the stream runs. Deleting again answers 204.',
  auth: { kind: 'required', scope: 'jobs:write' },
  params: IdParams,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async ({ deps, principal, params }) => {
    await deleteKeptAudio(deps.db, deps.objectStore, principal.workspaceId, params.id);
    return { status: 204 };
  },
});

export const listenRoutes: AnyRoute[] = [listen, listenToken, getListenSession, getListenAudio, deleteListenAudio];
