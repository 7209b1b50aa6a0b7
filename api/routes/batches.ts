import { getBatch, submitBatch } from '../../domain/batches/submit';
import { defineRoute, type AnyRoute } from '../http/route';
import { IdParams } from '../../domain/schemas/common';
import { BatchRequestSchema, BatchSchema } from '../../domain/schemas/resources';
import { jobServiceDeps } from '../wiring';

const tags = ['Batches'];

const createBatch = defineRoute({
  method: 'post',
  path: '/v1/batches',
  operationId: 'createBatch',
  summary: 'Submit jobs atomically',
  tags,
  description:
    "Up to the plan's batch size (Trial 1, Starter 10, Pro 25, Scale 50; beyond it 402 PLAN_REQUIRED) items, each a full job request. The whole batch is accepted, with every child's hold reserved in one transaction, or rejected with nothing reserved; errors name the item (`items[3].source.url`). Each child is an ordinary job. Webhooks: the batch's `webhook_endpoint_id` receives exactly one `batch.completed` when every item is final; a child emits `job.succeeded` / `job.failed` only to the endpoint named on that item. A batch counts as one submit.",
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  idempotencyKey: 'required',
  body: BatchRequestSchema,
  responses: {
    202: { description: 'Accepted.', schema: BatchSchema },
    200: { description: 'Replay of the same key.', schema: BatchSchema },
  },
  errors: [
    'INSUFFICIENT_BALANCE',
    'PLAN_REQUIRED',
    'IDEMPOTENCY_CONFLICT',
    'INVALID_URL',
    'UNSUPPORTED_SOURCE',
    'CAPABILITY_UNAVAILABLE',
    'NOT_FOUND',
  ],
  handler: async ({ deps, principal, body, idempotency }) => {
    const result = await submitBatch(jobServiceDeps(deps), principal, body, idempotency!);
    return {
      status: result.status,
      body: result.batch,
      headers: result.status === 202 ? { Location: `/v1/batches/${result.batch.id}` } : ({} as Record<string, string>),
    };
  },
});

const getBatchRoute = defineRoute({
  method: 'get',
  path: '/v1/batches/:id',
  operationId: 'getBatch',
  summary: 'Batch counters and child job ids',
  tags,
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: IdParams,
  responses: { 200: { description: 'The batch; status derived from the child counts (see the Batch schema).', schema: BatchSchema } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => ({ status: 200, body: await getBatch(deps.db, principal.workspaceId, params.id) }),
});

export const batchRoutes: AnyRoute[] = [createBatch, getBatchRoute];
