import { ServiceError } from '../../domain/errors';
import { defineRoute, type RouteSpec } from '../http/route';
import { IdParams } from '../../domain/schemas/common';
import {
  LanguageDiscoveryRequestSchema,
  LanguageDiscoverySchema,
  VideoDiscoveryRequestSchema,
  VideoDiscoverySchema,
} from '../../domain/schemas/resources';

// Endpoints of the spec not built yet (discoveries). They are declared with
// their real schemas, so the OpenAPI document is complete, and answer 501
// NOT_IMPLEMENTED in the error envelope; building one means moving its
// declaration to a feature module.

const notYet = async (): Promise<never> => {
  throw new ServiceError('NOT_IMPLEMENTED', 'endpoint');
};

export const plannedRoutes: RouteSpec<any, any, any>[] = [
  defineRoute({
    method: 'post',
    path: '/v1/video-discoveries',
    operationId: 'createVideoDiscovery',
    summary: 'Queue a video listing',
    tags: ['Discoveries'],
    auth: { kind: 'required', scope: 'jobs:write' },
    rateLimit: 'submit',
    idempotencyKey: 'required',
    body: VideoDiscoveryRequestSchema,
    responses: {
      202: { description: 'Queued.', schema: VideoDiscoverySchema },
      200: { description: 'Reused from the short cache, or a replay.', schema: VideoDiscoverySchema },
    },
    errors: ['INVALID_CURSOR', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'UNSUPPORTED_SOURCE', 'NOT_IMPLEMENTED'],
    handler: notYet,
  }),
  defineRoute({
    method: 'get',
    path: '/v1/video-discoveries/:id',
    operationId: 'getVideoDiscovery',
    summary: 'Read a video listing',
    tags: ['Discoveries'],
    auth: { kind: 'required', scope: 'jobs:read' },
    rateLimit: 'read',
    params: IdParams,
    responses: { 200: { description: 'The discovery.', schema: VideoDiscoverySchema } },
    errors: ['NOT_FOUND', 'NOT_IMPLEMENTED'],
    handler: notYet,
  }),
  defineRoute({
    method: 'post',
    path: '/v1/language-discoveries',
    operationId: 'createLanguageDiscovery',
    summary: 'Queue a caption-language listing',
    tags: ['Discoveries'],
    auth: { kind: 'required', scope: 'jobs:write' },
    rateLimit: 'submit',
    idempotencyKey: 'required',
    body: LanguageDiscoveryRequestSchema,
    responses: {
      202: { description: 'Queued.', schema: LanguageDiscoverySchema },
      200: { description: 'Reused from the short cache, or a replay.', schema: LanguageDiscoverySchema },
    },
    errors: ['INVALID_URL', 'UNSUPPORTED_SOURCE', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'NOT_IMPLEMENTED'],
    handler: notYet,
  }),
  defineRoute({
    method: 'get',
    path: '/v1/language-discoveries/:id',
    operationId: 'getLanguageDiscovery',
    summary: 'Read a caption-language listing',
    tags: ['Discoveries'],
    auth: { kind: 'required', scope: 'jobs:read' },
    rateLimit: 'read',
    params: IdParams,
    responses: { 200: { description: 'The discovery.', schema: LanguageDiscoverySchema } },
    errors: ['NOT_FOUND', 'NOT_IMPLEMENTED'],
    handler: notYet,
  }),
];
