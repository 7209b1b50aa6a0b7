import { completeUpload, getUpload, reserveUpload } from '../../domain/uploads/uploads';
import { requestWaitSignal } from '../http/drain';
import { defineRoute, type AnyRoute } from '../http/route';
import { IdParams } from '../../domain/schemas/common';
import { UploadRequestSchema, UploadSchema } from '../../domain/schemas/resources';

const tags = ['Uploads'];

const create = defineRoute({
  method: 'post',
  path: '/v1/uploads',
  operationId: 'createUpload',
  summary: 'Reserve an upload slot',
  tags,
  description:
    'Returns a `pending` upload with `signed_upload_url`, valid 24 hours. PUT the file there with exactly the declared Content-Type and size, then call POST /v1/uploads/{id}/complete. Statuses: `pending` → `verifying` (completion called) → `ready` (verified, usable as `source.upload_id`) or `failed` (verification refused the file; `error` says why); a slot not completed within 24 hours shows `expired`. On the embedded local store a PUT with another type or size is refused at once (422/413); on S3 the mismatch is found at completion.',
  auth: { kind: 'required', scope: 'uploads:write' },
  rateLimit: 'submit',
  body: UploadRequestSchema,
  responses: { 201: { description: 'Slot with a signed PUT URL valid 24 hours.', schema: UploadSchema } },
  errors: ['STORAGE_UNAVAILABLE'],
  handler: async ({ deps, principal, body }) => ({
    status: 201,
    body: await reserveUpload(deps.db, deps.objectStore, principal.workspaceId, body),
  }),
});

const complete = defineRoute({
  method: 'post',
  path: '/v1/uploads/:id/complete',
  operationId: 'completeUpload',
  summary: 'Finish an upload',
  tags,
  description:
    'No body. Verifies the stored file: present, exactly the declared size, the declared type, content recognised as audio or video, readable with an audio track, at most 2 hours. 200 with the `ready` upload; otherwise the upload becomes `failed` and the answer names the problem (INVALID_MEDIA, UNSUPPORTED_MEDIA, NO_AUDIO, DURATION_LIMIT_EXCEEDED, FILE_TOO_LARGE). 409 CONFLICT for a second completion, an expired slot, or when no file was uploaded yet (then the slot stays pending).',
  auth: { kind: 'required', scope: 'uploads:write' },
  params: IdParams,
  responses: {
    200: { description: 'The verified upload (`ready`).', schema: UploadSchema },
    202: {
      description:
        'Verification still running after 20 s: the upload is `verifying`. Poll GET /v1/uploads/{id} (or complete again, which joins the same verification).',
      schema: UploadSchema,
      headers: { Location: 'Path of the upload to poll.', 'Retry-After': 'Seconds before the next poll.' },
    },
  },
  errors: [
    'NOT_FOUND',
    'CONFLICT',
    'INVALID_MEDIA',
    'UNSUPPORTED_MEDIA',
    'FILE_TOO_LARGE',
    'DURATION_LIMIT_EXCEEDED',
    'NO_AUDIO',
    'STORAGE_UNAVAILABLE',
  ],
  handler: async ({ deps, principal, params, req }) => {
    const result = await completeUpload(
      deps.db,
      deps.temporal,
      deps.config.TEMPORAL_TASK_QUEUE,
      principal.workspaceId,
      params.id,
      deps.config.UPLOAD_VERIFY_WAIT_SECONDS * 1000,
      requestWaitSignal(req, deps),
    );
    return {
      status: result.status,
      body: result.upload,
      headers: result.status === 202 ? { Location: `/v1/uploads/${params.id}`, 'Retry-After': '2' } : undefined,
    };
  },
});

const read = defineRoute({
  method: 'get',
  path: '/v1/uploads/:id',
  operationId: 'getUpload',
  summary: 'Read an upload',
  tags,
  description: 'The upload as it stands: poll it after a 202 from completion until it is `ready` or `failed`.',
  auth: { kind: 'required', scope: 'uploads:write' },
  rateLimit: 'read',
  params: IdParams,
  responses: { 200: { description: 'The upload.', schema: UploadSchema } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params }) => ({ status: 200, body: await getUpload(deps.db, principal.workspaceId, params.id) }),
});

export const uploadRoutes: AnyRoute[] = [create, complete, read];
