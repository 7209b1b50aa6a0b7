import {
  getLanguageDiscovery,
  getVideoDiscovery,
  submitLanguageDiscovery,
  submitVideoDiscovery,
  waitForDiscovery,
} from '../../domain/discoveries/submit';
import { WaitQuery } from '../../domain/schemas/jobs';
import { IdParams } from '../../domain/schemas/common';
import {
  DISCOVERY_CACHE_SECONDS,
  LanguageDiscoveryRequestSchema,
  LanguageDiscoverySchema,
  VideoDiscoveryRequestSchema,
  VideoDiscoverySchema,
} from '../../domain/schemas/discoveries';
import type { AppDeps } from '../http/context';
import { requestWaitSignal } from '../http/drain';
import { defineRoute, type Reply, type AnyRoute } from '../http/route';
import { discoveryDeps } from '../wiring';

const tags = ['Discoveries'];
const POLL_AFTER_SECONDS = 1;

function accepted(path: string, result: { status: 200 | 202; discovery: { id: string } }): Reply {
  return {
    status: result.status,
    body: result.discovery,
    headers: result.status === 202 ? { Location: `${path}/${result.discovery.id}`, 'Retry-After': String(POLL_AFTER_SECONDS) } : {},
  };
}

const common = `1 credit, held at acceptance, charged when it succeeds, released when it fails. The same workspace asking the same thing within ${DISCOVERY_CACHE_SECONDS / 60} minutes gets that discovery again, free: 200 when it has succeeded, 202 while it still runs. Counts as a submit for rate limits. Status: queued → processing → succeeded or failed (with \`error\`, as on a job); retryable source errors are retried automatically meanwhile. Kept 24 hours, then 404.`;

const createVideoDiscovery = defineRoute({
  method: 'post',
  path: '/v1/video-discoveries',
  operationId: 'createVideoDiscovery',
  summary: 'Queue a video listing',
  tags,
  description: `One page of a search, a channel, a channel search, a playlist, or a shortvideo profile. Pages hold exactly \`limit\` videos except the last, without duplicates or gaps between pages. ${common} "The same thing" is the same kind, normalised inputs, limit and cursor position. A cursor that was altered, belongs to another workspace or request, or is older than 24 hours answers 422 INVALID_CURSOR.`,
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  idempotencyKey: 'required',
  body: VideoDiscoveryRequestSchema,
  responses: {
    202: {
      description: 'Queued, or an identical request still running.',
      schema: VideoDiscoverySchema,
      headers: { Location: 'Path of the discovery to poll.', 'Retry-After': 'Seconds before the first poll.' },
    },
    200: { description: 'Reused from the short cache (free), or an idempotent replay.', schema: VideoDiscoverySchema },
  },
  errors: ['INVALID_CURSOR', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT'],
  handler: async ({ deps, principal, body, idempotency }) =>
    accepted('/v1/video-discoveries', await submitVideoDiscovery(discoveryDeps(deps), principal, body, idempotency!)),
});

const createLanguageDiscovery = defineRoute({
  method: 'post',
  path: '/v1/language-discoveries',
  operationId: 'createLanguageDiscovery',
  summary: 'Queue a caption-language listing',
  tags,
  description: `The caption tracks of a videosite video (any link form; other platforms and direct links answer 422 UNSUPPORTED_SOURCE). ${common} "The same thing" is the same video. Failures are those of a caption job (SOURCE_PRIVATE, SOURCE_NOT_FOUND, SOURCE_AUTH_REQUIRED, …).`,
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  idempotencyKey: 'required',
  body: LanguageDiscoveryRequestSchema,
  responses: {
    202: {
      description: 'Queued, or an identical request still running.',
      schema: LanguageDiscoverySchema,
      headers: { Location: 'Path of the discovery to poll.', 'Retry-After': 'Seconds before the first poll.' },
    },
    200: { description: 'Reused from the short cache (free), or an idempotent replay.', schema: LanguageDiscoverySchema },
  },
  errors: ['INVALID_URL', 'UNSUPPORTED_SOURCE', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT'],
  handler: async ({ deps, principal, body, idempotency }) =>
    accepted('/v1/language-discoveries', await submitLanguageDiscovery(discoveryDeps(deps), principal, body, idempotency!)),
});

/** GET of one discovery, with the same long poll as a job's. */
function readRoute(
  path: string,
  operationId: string,
  summary: string,
  schema: typeof VideoDiscoverySchema | typeof LanguageDiscoverySchema,
  get: (db: AppDeps['db'], workspaceId: string, id: string) => Promise<{ status: string }>,
) {
  return defineRoute({
    method: 'get',
    path: `${path}/:id`,
    operationId,
    summary,
    tags,
    auth: { kind: 'required', scope: 'jobs:read' },
    rateLimit: 'read',
    description:
      'With `wait` (seconds, at most 25), returns as soon as the discovery is succeeded or failed (woken by the completion itself, on any API instance), or after `wait` seconds.',
    params: IdParams,
    query: WaitQuery,
    responses: { 200: { description: 'The discovery (a failed one is still 200).', schema } },
    errors: ['NOT_FOUND'],
    handler: async ({ deps, principal, params, query, req }) => {
      const signal = requestWaitSignal(req, deps);
      const read = (): Promise<{ status: string }> => get(deps.db, principal.workspaceId, params.id);
      return { status: 200, body: await waitForDiscovery(deps.wakeups, params.id, read, query.wait, signal) };
    },
  });
}

const getVideoDiscoveryRoute = readRoute(
  '/v1/video-discoveries',
  'getVideoDiscovery',
  'Read a video listing',
  VideoDiscoverySchema,
  getVideoDiscovery,
);
const getLanguageDiscoveryRoute = readRoute(
  '/v1/language-discoveries',
  'getLanguageDiscovery',
  'Read a caption-language listing',
  LanguageDiscoverySchema,
  getLanguageDiscovery,
);

export const discoveryRoutes: AnyRoute[] = [
  createVideoDiscovery,
  getVideoDiscoveryRoute,
  createLanguageDiscovery,
  getLanguageDiscoveryRoute,
];
