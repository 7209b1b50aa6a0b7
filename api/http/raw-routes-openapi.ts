import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { MAX_MEDIA_BYTES } from '../../integrations/storage/object-store';
import { Uuid } from '../../domain/schemas/common';
import { z } from '../../domain/schemas/zod';
import { ErrorEnvelopeSchema } from './envelope';

// The two routes that are not JSON route declarations (api/http/route.ts), written into the document so that
// clients see them and the schema fuzzing reaches them: the signed media link (a player streams it in byte
// ranges, api/mcp/app/transcript-app.ts) and the local store's signed upload PUT (its body is the raw file,
// integrations/storage/local-upload-handler.ts).

const envelope = (description: string) => ({ description, content: { 'application/json': { schema: ErrorEnvelopeSchema } } });
const MEDIA_TYPES = ['audio/*', 'video/*'];
const binary = z.string().openapi({ format: 'binary' });
/** Unix seconds, written as signed: digits without a leading zero. */
const Seconds = z
  .string()
  .regex(/^[1-9]\d{0,11}$/)
  .openapi({ description: 'Unix seconds, as in the URL the service gave.' });

export function registerRawRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/media/transcripts/{id}',
    operationId: 'getSignedTranscriptMedia',
    summary: 'Play an upload transcript’s media through a signed link',
    description:
      'The link `get_transcript` gives the MCP App (valid one hour): no credential, the signature is the credential. Byte ranges per RFC 9110: one range answers 206 (a suffix longer than the media selects all of it), several ranges answer 200 with the whole file, a range that starts past the end answers 416 with `Content-Range: bytes */<size>`. A link that is malformed, altered, expired or names a deleted transcript answers 403 FORBIDDEN naming `signature`, the same for each, so a link tells nothing about what exists.',
    tags: ['Transcripts'],
    security: [],
    request: {
      params: z.object({ id: Uuid }),
      query: z.object({ expires: Seconds, signature: z.string().regex(/^[0-9a-f]{64}$/) }),
      headers: z.object({
        Range: z.string().optional().openapi({ description: 'bytes=<first>-<last>, bytes=<first>- or bytes=-<suffix>' }),
      }),
    },
    responses: {
      200: { description: 'The whole file.', content: Object.fromEntries(MEDIA_TYPES.map((t) => [t, { schema: binary }])) },
      206: { description: 'One byte range.', content: Object.fromEntries(MEDIA_TYPES.map((t) => [t, { schema: binary }])) },
      400: envelope('Error envelope. Codes: BAD_REQUEST (a path or query that is not percent-encoded UTF-8).'),
      403: envelope('Error envelope. Codes: FORBIDDEN.'),
      416: envelope('Error envelope. Codes: RANGE_NOT_SATISFIABLE.'),
      503: envelope('Error envelope. Codes: STORAGE_UNAVAILABLE, SERVICE_UNAVAILABLE.'),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/uploads/put/uploads/{workspace_id}/{upload_id}',
    operationId: 'putUploadFile',
    summary: 'Send an upload’s file to its signed URL (the service’s own store)',
    description:
      'Where `signed_upload_url` points when the service keeps uploads on its own disk (the embedded default; with S3 the URL is S3’s own). The body is the file, with the `Content-Type` and exactly the `Content-Length` declared at `POST /v1/uploads`. A URL takes one file: a second PUT, or one after `POST /v1/uploads/{id}/complete`, answers 409 CONFLICT naming `signed_upload_url`; what completion verified can never be replaced.',
    tags: ['Uploads'],
    security: [],
    request: {
      params: z.object({ workspace_id: Uuid, upload_id: Uuid }),
      query: z.object({
        expires: Seconds,
        content_type: z.string().min(3).max(255),
        bytes: z
          .string()
          .regex(/^[1-9]\d{0,11}$/)
          .openapi({ description: `The declared size, at most ${MAX_MEDIA_BYTES}.` }),
        signature: z.string().min(1).max(128),
      }),
      body: { required: true, content: Object.fromEntries(MEDIA_TYPES.map((t) => [t, { schema: binary }])) },
    },
    responses: {
      200: { description: 'Stored.' },
      400: envelope('Error envelope. Codes: BAD_REQUEST (a path or query that is not percent-encoded UTF-8).'),
      403: envelope('Error envelope. Codes: FORBIDDEN (signature, expiry).'),
      404: envelope('Error envelope. Codes: NOT_FOUND (the service stores uploads on S3).'),
      405: envelope('Error envelope. Codes: METHOD_NOT_ALLOWED (a method other than PUT), with Allow.'),
      409: envelope('Error envelope. Codes: CONFLICT (the URL already took a file).'),
      413: envelope('Error envelope. Codes: PAYLOAD_TOO_LARGE.'),
      422: envelope('Error envelope. Codes: INVALID_REQUEST (Content-Type or Content-Length other than declared).'),
      503: envelope('Error envelope. Codes: STORAGE_UNAVAILABLE.'),
    },
  });
}
