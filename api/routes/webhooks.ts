import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  MAX_WEBHOOK_ENDPOINTS,
  resendDelivery,
} from '../../domain/webhooks/endpoints';
import { defineRoute, type AnyRoute } from '../http/route';
import { z } from '../../domain/schemas/zod';
import { IdParams } from '../../domain/schemas/common';
import {
  DeliveryQuery,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointRequestSchema,
} from '../../domain/schemas/resources';

const tags = ['Webhooks'];

export const createEndpointRoute = defineRoute({
  method: 'post',
  path: '/v1/webhook-endpoints',
  operationId: 'createWebhookEndpoint',
  summary: 'Register a webhook endpoint',
  tags,
  description: `https URL of at most 2048 characters that must resolve to a public address (422 UNSAFE_URL otherwise; checked again at every delivery). At most ${MAX_WEBHOOK_ENDPOINTS} enabled endpoints per workspace (409 CONFLICT naming \`webhook_endpoints\`). The signing \`secret\` is returned exactly once. Deliveries: POST with X-Service-Event-Id, X-Service-Timestamp and X-Service-Signature (lowercase hex HMAC-SHA256 of \`{event_id}.{timestamp}.{raw_body}\` keyed with the secret); only a 2xx within 5 seconds counts; retries after 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 8 h (11 attempts over about a day), the same event_id every time.`,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  body: WebhookEndpointRequestSchema,
  responses: { 201: { description: 'The endpoint with its one-time signing secret.', schema: WebhookEndpointCreatedSchema } },
  errors: ['INVALID_URL', 'UNSAFE_URL', 'CONFLICT'],
  handler: async ({ deps, principal, body }) => ({
    status: 201,
    body: await createWebhookEndpoint(deps.db, deps.secretsKey, deps.addressPolicy, principal.workspaceId, body),
  }),
});

const list = defineRoute({
  method: 'get',
  path: '/v1/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  summary: 'List webhook endpoints (enabled and disabled, never a secret)',
  tags,
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  responses: { 200: { description: 'Endpoints, newest first.', schema: WebhookEndpointListSchema } },
  errors: [],
  handler: async ({ deps, principal }) => ({
    status: 200,
    body: { endpoints: await listWebhookEndpoints(deps.db, principal.workspaceId) },
  }),
});

export const disableEndpointRoute = defineRoute({
  method: 'delete',
  path: '/v1/webhook-endpoints/:id',
  operationId: 'disableWebhookEndpoint',
  summary: 'Disable a webhook endpoint',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  params: IdParams,
  responses: { 204: { description: 'Disabled; it receives nothing more.' } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => {
    await disableWebhookEndpoint(deps.db, principal.workspaceId, params.id);
    return { status: 204 };
  },
});

const deliveries = defineRoute({
  method: 'get',
  path: '/app/webhooks/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'Recent webhook delivery attempts, redacted',
  tags,
  description: '`limit` 1 to 100 (default 20). URLs show scheme and host only; bodies and secrets are never shown.',
  auth: { kind: 'required', scope: 'jobs:read' },
  query: DeliveryQuery,
  responses: { 200: { description: 'Attempts, newest first.', schema: z.object({ deliveries: z.array(WebhookDeliverySchema) }) } },
  errors: [],
  handler: async ({ deps, principal, query }) => ({
    status: 200,
    body: { deliveries: await listDeliveries(deps.db, principal.workspaceId, query.limit) },
  }),
});

export const resendDeliveryRoute = defineRoute({
  method: 'post',
  path: '/app/webhooks/deliveries/:id/resend',
  operationId: 'resendWebhookDelivery',
  summary: 'Resend the event of a delivery attempt',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  params: IdParams,
  responses: {
    202: {
      description: 'Resend scheduled (same event_id).',
      schema: z.object({ event_id: z.string(), status: z.literal('resend_scheduled') }),
    },
  },
  errors: ['NOT_FOUND', 'CONFLICT'],
  handler: async ({ deps, principal, params }) => ({
    status: 202,
    body: await resendDelivery(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, principal.workspaceId, params.id),
  }),
});

export const webhookRoutes: AnyRoute[] = [createEndpointRoute, list, disableEndpointRoute, deliveries, resendDeliveryRoute];
