import { ServiceError } from '../../domain/errors';
import { defineRoute, type RouteSpec } from '../http/route';
import { z } from '../http/zod';
import { IdParams } from '../schemas/common';
import { JobIdParams, JobListQuery, JobListSchema, JobRequestSchema, JobSchema, RetryRequestSchema, WaitQuery } from '../schemas/jobs';
import {
  BatchRequestSchema, BatchSchema, DeletionSchema, DeliveryQuery, ExportQuery, LanguageDiscoveryRequestSchema, LanguageDiscoverySchema,
  TranscriptSchema, UploadRequestSchema, UploadSchema, VideoDiscoveryRequestSchema, VideoDiscoverySchema, WebhookDeliverySchema,
  WebhookEndpointCreatedSchema, WebhookEndpointListSchema, WebhookEndpointRequestSchema,
} from '../schemas/resources';

// Endpoints of the spec that later issues build. They are declared here with
// their real schemas, so the OpenAPI document is complete, and answer 501
// NOT_IMPLEMENTED in the error envelope until a feature module replaces them.

const notYet = async (): Promise<never> => {
  throw new ServiceError('NOT_IMPLEMENTED', 'endpoint');
};

export const plannedRoutes: RouteSpec<any, any, any>[] = [
  defineRoute({ method: 'post', path: '/v1/jobs', operationId: 'createJob', summary: 'Submit one source', tags: ['Jobs'], auth: { kind: 'required', scope: 'jobs:write' }, rateLimit: 'submit', idempotencyKey: 'required', body: JobRequestSchema,
    responses: { 202: { description: 'Accepted.', schema: JobSchema, headers: { Location: 'Path of the job to poll.', 'Retry-After': 'Seconds before the first poll.' } }, 200: { description: 'Reused same-workspace result (free), or an idempotent replay.', schema: JobSchema } },
    errors: ['INVALID_URL', 'UNSUPPORTED_SOURCE', 'UNSAFE_URL', 'CAPABILITY_UNAVAILABLE', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/jobs', operationId: 'listJobs', summary: 'Job history', tags: ['Jobs'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read', query: JobListQuery,
    responses: { 200: { description: 'A page of jobs.', schema: JobListSchema } }, errors: [], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/jobs/:id', operationId: 'getJob', summary: 'Job, optional long poll', tags: ['Jobs'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read', params: JobIdParams, query: WaitQuery,
    responses: { 200: { description: 'The job (a failed job is still 200).', schema: JobSchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/jobs/:id/cancel', operationId: 'cancelJob', summary: 'Cancel', tags: ['Jobs'], auth: { kind: 'required', scope: 'jobs:write' }, params: JobIdParams,
    responses: { 200: { description: 'The cancelled job.', schema: JobSchema } }, errors: ['NOT_FOUND', 'CANCELLATION_NOT_ALLOWED'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/jobs/:id/retry', operationId: 'retryJob', summary: 'New job from a retryable failure', tags: ['Jobs'], auth: { kind: 'required', scope: 'jobs:write' }, rateLimit: 'submit', idempotencyKey: 'required', params: JobIdParams, body: RetryRequestSchema,
    responses: { 202: { description: 'The new job.', schema: JobSchema }, 200: { description: 'Replay of the same retry key.', schema: JobSchema } }, errors: ['NOT_FOUND', 'JOB_NOT_RETRYABLE', 'IDEMPOTENCY_CONFLICT', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/batches', operationId: 'createBatch', summary: 'Submit jobs atomically', tags: ['Batches'], auth: { kind: 'required', scope: 'jobs:write' }, rateLimit: 'submit', idempotencyKey: 'required', body: BatchRequestSchema,
    responses: { 202: { description: 'Accepted.', schema: BatchSchema }, 200: { description: 'Replay.', schema: BatchSchema } }, errors: ['INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'INVALID_URL', 'UNSUPPORTED_SOURCE', 'CAPABILITY_UNAVAILABLE'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/batches/:id', operationId: 'getBatch', summary: 'Batch counters and child job ids', tags: ['Batches'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read', params: IdParams,
    responses: { 200: { description: 'The batch.', schema: BatchSchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/transcripts/:id', operationId: 'getTranscript', summary: 'Transcript', tags: ['Transcripts'], auth: { kind: 'required', scope: 'transcripts:read' }, rateLimit: 'read', params: IdParams,
    responses: { 200: { description: 'The transcript.', schema: TranscriptSchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'delete', path: '/v1/transcripts/:id', operationId: 'deleteTranscript', summary: 'Hide and purge', tags: ['Transcripts'], auth: { kind: 'required', scope: 'jobs:write' }, params: IdParams,
    responses: { 202: { description: 'Hidden now; purge scheduled.', schema: DeletionSchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/transcripts/:id/export', operationId: 'exportTranscript', summary: 'File export', tags: ['Transcripts'], auth: { kind: 'required', scope: 'transcripts:read' }, rateLimit: 'read', params: IdParams, query: ExportQuery,
    responses: { 200: { description: 'The file, with Content-Disposition: attachment; filename=…', contentTypes: ['text/plain', 'text/srt', 'text/vtt', 'application/json'], headers: { 'Content-Disposition': 'attachment with the download filename' } } },
    errors: ['NOT_FOUND', 'TIMESTAMPS_UNAVAILABLE'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/uploads', operationId: 'createUpload', summary: 'Reserve an upload slot', tags: ['Uploads'], auth: { kind: 'required', scope: 'uploads:write' }, rateLimit: 'submit', body: UploadRequestSchema,
    responses: { 201: { description: 'Slot with a signed PUT URL valid 24 hours.', schema: UploadSchema } }, errors: ['UNSUPPORTED_MEDIA', 'FILE_TOO_LARGE', 'STORAGE_UNAVAILABLE'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/uploads/:id/complete', operationId: 'completeUpload', summary: 'Finish an upload', tags: ['Uploads'], auth: { kind: 'required', scope: 'uploads:write' }, params: IdParams,
    responses: { 200: { description: 'The verified upload (`ready`).', schema: UploadSchema } }, errors: ['NOT_FOUND', 'CONFLICT', 'INVALID_MEDIA', 'UNSUPPORTED_MEDIA', 'FILE_TOO_LARGE', 'DURATION_LIMIT_EXCEEDED', 'NO_AUDIO', 'STORAGE_UNAVAILABLE'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/video-discoveries', operationId: 'createVideoDiscovery', summary: 'Queue a video listing', tags: ['Discoveries'], auth: { kind: 'required', scope: 'jobs:write' }, rateLimit: 'submit', idempotencyKey: 'required', body: VideoDiscoveryRequestSchema,
    responses: { 202: { description: 'Queued.', schema: VideoDiscoverySchema }, 200: { description: 'Reused from the short cache, or a replay.', schema: VideoDiscoverySchema } }, errors: ['INVALID_CURSOR', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'UNSUPPORTED_SOURCE'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/video-discoveries/:id', operationId: 'getVideoDiscovery', summary: 'Read a video listing', tags: ['Discoveries'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read', params: IdParams,
    responses: { 200: { description: 'The discovery.', schema: VideoDiscoverySchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/language-discoveries', operationId: 'createLanguageDiscovery', summary: 'Queue a caption-language listing', tags: ['Discoveries'], auth: { kind: 'required', scope: 'jobs:write' }, rateLimit: 'submit', idempotencyKey: 'required', body: LanguageDiscoveryRequestSchema,
    responses: { 202: { description: 'Queued.', schema: LanguageDiscoverySchema }, 200: { description: 'Reused from the short cache, or a replay.', schema: LanguageDiscoverySchema } }, errors: ['INVALID_URL', 'UNSUPPORTED_SOURCE', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'IDEMPOTENCY_CONFLICT'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/language-discoveries/:id', operationId: 'getLanguageDiscovery', summary: 'Read a caption-language listing', tags: ['Discoveries'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read', params: IdParams,
    responses: { 200: { description: 'The discovery.', schema: LanguageDiscoverySchema } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'post', path: '/v1/webhook-endpoints', operationId: 'createWebhookEndpoint', summary: 'Register a webhook endpoint', tags: ['Webhooks'], auth: { kind: 'required', scope: null, sessionOnly: true }, body: WebhookEndpointRequestSchema,
    responses: { 201: { description: 'The endpoint with its one-time signing secret.', schema: WebhookEndpointCreatedSchema } }, errors: ['INVALID_URL', 'UNSAFE_URL', 'CONFLICT'], handler: notYet }),
  defineRoute({ method: 'get', path: '/v1/webhook-endpoints', operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints (enabled and disabled, never a secret)', tags: ['Webhooks'], auth: { kind: 'required', scope: 'jobs:read' }, rateLimit: 'read',
    responses: { 200: { description: 'Endpoints.', schema: WebhookEndpointListSchema } }, errors: [], handler: notYet }),
  defineRoute({ method: 'delete', path: '/v1/webhook-endpoints/:id', operationId: 'disableWebhookEndpoint', summary: 'Disable a webhook endpoint', tags: ['Webhooks'], auth: { kind: 'required', scope: null, sessionOnly: true }, params: IdParams,
    responses: { 204: { description: 'Disabled.' } }, errors: ['NOT_FOUND'], handler: notYet }),
  defineRoute({ method: 'get', path: '/app/webhooks/deliveries', operationId: 'listWebhookDeliveries', summary: 'Recent webhook delivery attempts, redacted', tags: ['Webhooks'], auth: { kind: 'required', scope: 'jobs:read' }, query: DeliveryQuery,
    responses: { 200: { description: 'Attempts, newest first.', schema: z.object({ deliveries: z.array(WebhookDeliverySchema) }) } }, errors: [], handler: notYet }),
  defineRoute({ method: 'post', path: '/app/webhooks/deliveries/:id/resend', operationId: 'resendWebhookDelivery', summary: 'Resend the event of a delivery attempt', tags: ['Webhooks'], auth: { kind: 'required', scope: null, sessionOnly: true }, params: IdParams,
    responses: { 202: { description: 'Resend scheduled.' } }, errors: ['NOT_FOUND'], handler: notYet }),
];
