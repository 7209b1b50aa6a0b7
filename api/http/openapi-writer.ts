import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { ERROR_CATALOGUE, type ErrorCode } from '../../core/errors';
import { z } from '../../domain/schemas/zod';
import { ErrorEnvelopeSchema } from './envelope';
import { IdempotencyKeySchema, type AnyRoute } from './route';

// The OpenAPI side of the route declarations (api/http/route.ts): each
// declaration's auth rule, scope, rate-limit class, schemas, responses and
// error codes written as its operation; api/openapi.ts assembles the document.

export const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

/**
 * Rewrites the separate query parameters of operations that declare
 * `queryDependentRequired` into one exploded object parameter carrying the
 * rule. The wire format is unchanged: `?platform=videosite&source_id=abc`.
 */
export function applyQueryDependencies(
  doc: { paths?: Record<string, Record<string, { parameters?: ParameterObject[] }>> },
  specs: AnyRoute[],
): void {
  for (const spec of specs) {
    if (!spec.queryDependentRequired) continue;
    const op = doc.paths?.[toOpenApiPath(spec.path)]?.[spec.method];
    if (!op?.parameters) continue;
    const query = op.parameters.filter((p) => p.in === 'query');
    const properties = Object.fromEntries(
      query.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }]),
    );
    op.parameters = [
      ...op.parameters.filter((p) => p.in !== 'query'),
      {
        name: 'query',
        in: 'query',
        style: 'form',
        explode: true,
        description: `Query parameters; ${Object.entries(spec.queryDependentRequired)
          .map(([k, v]) => `\`${k}\` needs ${v.map((x) => `\`${x}\``).join(', ')}`)
          .join('; ')}.`,
        schema: {
          type: 'object',
          properties,
          required: query.filter((p) => p.required).map((p) => p.name),
          additionalProperties: false,
          dependentRequired: spec.queryDependentRequired,
        },
      } as ParameterObject,
    ];
  }
}

export function registerOpenApi(registry: OpenAPIRegistry, specs: AnyRoute[]): void {
  for (const spec of specs) {
    if (spec.internal) continue;
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.headers
          ? { headers: Object.fromEntries(Object.entries(r.headers).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }])) }
          : {}),
        ...(r.schema || r.contentTypes
          ? { content: Object.fromEntries((r.contentTypes ?? ['application/json']).map((ct) => [ct, { schema: r.schema ?? z.string() }])) }
          : {}),
      };
    }
    const errorsByStatus = new Map<number, ErrorCode[]>();
    // Any operation may answer 503 SERVICE_UNAVAILABLE: a process that is stopping (with Retry-After), or the
    // database or Temporal unreachable (the document's description says both).
    const allErrors = new Set<ErrorCode>([...spec.errors, 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
    if (spec.auth.kind === 'required') ['UNAUTHENTICATED', 'FORBIDDEN', 'EMAIL_UNVERIFIED'].forEach((c) => allErrors.add(c as ErrorCode));
    if (spec.rateLimit) allErrors.add('RATE_LIMITED');
    if (spec.params || spec.query || spec.body || spec.idempotencyKey) allErrors.add('INVALID_REQUEST');
    if (spec.method !== 'get') for (const code of ['UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'] as const) allErrors.add(code);
    for (const code of allErrors) {
      const status = ERROR_CATALOGUE[code].status;
      errorsByStatus.set(status, [...(errorsByStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of errorsByStatus) {
      responses[String(status)] ??= {
        description: `Error envelope. Codes: ${codes.join(', ')}.`,
        content: { 'application/json': { schema: ErrorEnvelopeSchema } },
      };
    }
    const auth = spec.auth;
    const scopeNote =
      auth.kind === 'required'
        ? auth.sessionOnly
          ? 'Requires a signed-in owner session (cookie + X-CSRF-Token on writes); API keys get 403 FORBIDDEN.'
          : `Requires ${auth.scope ? `the \`${auth.scope}\` scope` : 'any valid API key or session'}.`
        : auth.kind === 'optional'
          ? 'Authentication optional; with a key the answer reflects its plan.'
          : 'No authentication.';
    const rateNote = spec.rateLimit ? ` Counts against the plan's ${spec.rateLimit === 'submit' ? 'submits' : 'reads'} per minute.` : '';
    registry.registerPath({
      method: spec.method,
      path: toOpenApiPath(spec.path),
      operationId: spec.operationId,
      summary: spec.summary,
      description: `${spec.description ? `${spec.description}\n\n` : ''}${scopeNote}${rateNote}`,
      tags: spec.tags,
      security:
        auth.kind === 'public'
          ? []
          : auth.kind === 'optional'
            ? [{}, { bearerAuth: [] }]
            : auth.kind === 'required' && auth.sessionOnly
              ? [{ sessionCookie: [] }]
              : [{ bearerAuth: auth.scope ? [auth.scope] : [] }, { sessionCookie: [] }],
      request: {
        ...(spec.params ? { params: spec.params as any } : {}),
        ...(spec.query ? { query: spec.query as any } : {}),
        ...(spec.idempotencyKey ? { headers: z.object({ 'Idempotency-Key': IdempotencyKeySchema }) } : {}),
        ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      },
      responses,
      ...({
        'x-required-scope': auth.kind === 'required' ? (auth.sessionOnly ? 'owner-session' : (auth.scope ?? 'any')) : 'none',
        'x-rate-limit': spec.rateLimit ?? 'none',
        'x-error-codes': [...allErrors],
      } as object),
    } as any);
  }
}

/**
 * zod-to-openapi 9.1 writes `.nullable()` of a registered schema as `allOf: [{ $ref }, { type: [..., 'null'] }]`,
 * which no null satisfies: allOf needs the referenced object too (upstream asteasolutions/zod-to-openapi#387, open).
 * Rewritten in place as `anyOf: [{ $ref }, { type: 'null' }]`, which is what `.nullable()` means.
 */
export function nullableRefsAsAnyOf(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(nullableRefsAsAnyOf);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && allOf.length === 2) {
    const ref = allOf.find((m: Record<string, unknown>) => typeof m.$ref === 'string') as Record<string, unknown> | undefined;
    const other = allOf.find((m) => m !== ref) as Record<string, unknown> | undefined;
    const onlyNullable = other && Object.keys(other).length === 1 && Array.isArray(other.type) && other.type.includes('null');
    if (ref && onlyNullable) {
      delete schema.allOf;
      schema.anyOf = [ref, { type: 'null' }];
    }
  }
  Object.values(schema).forEach(nullableRefsAsAnyOf);
}
