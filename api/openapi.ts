import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ERROR_CATALOGUE } from '../core/errors';
import { applyQueryDependencies, nullableRefsAsAnyOf, registerOpenApi } from './http/openapi-writer';
import { registerRawRoutes } from './http/raw-routes-openapi';
import { registerListenMessages } from './listen/asyncapi';
import type { AnyRoute } from './http/route';
import { JSON_DEPTH_LIMIT, UNSTORABLE_TEXT_RULE } from './http/storable-text';
import { allRoutes } from './routes';

/** The OpenAPI 3.1 document, generated from the same route declarations and zod schemas that serve requests. */
export function buildOpenApiDocument(specs: AnyRoute[] = allRoutes, serverUrl = '/') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key with the fixed prefix `tsk_`. Scopes: jobs:read, jobs:write, transcripts:read, uploads:write.',
  });
  registry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'ts_session',
    description: 'Signed-in owner session (POST /app/session).',
  });
  registerOpenApi(registry, specs);
  registerRawRoutes(registry);
  registerListenMessages(registry);
  const errorTable = Object.entries(ERROR_CATALOGUE)
    .map(
      ([code, e]) =>
        `| <a id="error-${code.toLowerCase().replace(/_/g, '-')}"></a>\`${code}\` | ${e.status} | ${e.retryable ? 'yes' : 'no'} | ${e.message} |`,
    )
    .join('\n');
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Transcript Service API',
      version: '1.0.0',
      description: [
        'Turns video links, uploaded files and direct media links into timed transcripts.',
        '',
        'Every response carries `X-Request-Id`; error bodies use the envelope `{ error: { code, message, retryable, retry_after_seconds?, details?: { detail }, doc_url }, request_id }`.',
        '',
        '**Rate limits** (per workspace, shared by every API instance, one-minute windows): *submits* are POST /v1/jobs, POST /v1/jobs/{id}/retry, POST /v1/batches, POST /v1/uploads, POST /v1/video-discoveries and POST /v1/language-discoveries; *reads* are the GET calls under /v1 except /v1/capabilities (a long poll counts once). Jobs in progress (queued, processing, awaiting_provider) are capped per plan at submit time. Over a limit: 429 RATE_LIMITED with `retry-after`, `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` and `details.detail` naming the limit.',
        '',
        `**Request bodies** are JSON sent with \`Content-Type: application/json\` (any other body answers 415 UNSUPPORTED_MEDIA_TYPE naming \`Content-Type\`), at most 1 MiB, or 4 MiB for \`POST /v1/jobs\` and \`POST /v1/batches\` so that the longest \`align_text\` fits even with every character \\u-escaped (413 PAYLOAD_TOO_LARGE naming \`body_limit_bytes\`; a batch whose items' texts pass 4 MiB together is sent as several batches) and nested at most ${JSON_DEPTH_LIMIT} levels deep (422 INVALID_REQUEST naming \`json_depth_limit=${JSON_DEPTH_LIMIT}\`, checked before the body is parsed); unknown fields are rejected with 422 INVALID_REQUEST. A body that claims a \`Content-Encoding\` it does not have answers 400 BAD_REQUEST (an encoding the service does not accept: 415 UNSUPPORTED_ENCODING); a request the HTTP parser cannot read answers 400 BAD_REQUEST; a method a path does not accept answers 405 METHOD_NOT_ALLOWED with \`Allow\`. A path or query string that is not valid percent-encoded UTF-8, or that holds NUL, answers 400 BAD_REQUEST naming \`path\` or \`query\`.`,
        '',
        `**Text**: ${UNSTORABLE_TEXT_RULE}`,
        '',
        '**Dependencies**: while the database or the workflow service is unreachable, calls that need it answer 503 SERVICE_UNAVAILABLE (retryable, with `Retry-After`); retry with the same Idempotency-Key.',
        '',
        '| Code | HTTP | Retryable | Meaning |\n|---|---|---|---|\n' + errorTable,
      ].join('\n'),
    },
    servers: [{ url: serverUrl }],
  });
  applyQueryDependencies(doc as Parameters<typeof applyQueryDependencies>[0], specs);
  nullableRefsAsAnyOf(doc.components);
  return doc;
}
