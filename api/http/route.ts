import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, Response, Router } from 'express';
import { ZodError, type ZodType } from 'zod';
import { API_KEY_PREFIX, principalFromApiKey, principalFromSession } from '../../domain/accounts/accounts';
import { principalFromAccessToken } from '../../domain/oauth/tokens';
import { oauthResources } from '../oauth/resources';
import type { Principal, Scope } from '../../domain/accounts/principal';
import { safeEqual, sha256Hex } from '../../domain/accounts/secrets';
import { ERROR_CATALOGUE, ServiceError, type ErrorCode } from '../../domain/errors';
import type { AppDeps } from './context';
import { ErrorEnvelopeSchema, zodToServiceError } from './envelope';
import { assertJsonBody } from './json-body';
import { assertStorableText } from './storable-text';
import { idempotencyKeyUsed, type IdempotencyScope } from '../../domain/idempotency';
import type { RateLimitKind } from './rate-limit';
import { z } from '../../domain/schemas/zod';

// One declaration per endpoint drives both the Express handler and its OpenAPI
// entry: authentication, scope, rate-limit class, the zod schemas that validate
// params/query/body, the responses and the error codes.

export const SESSION_COOKIE = 'ts_session';
export const CSRF_HEADER = 'x-csrf-token';

export type AuthRule =
  { kind: 'public' } | { kind: 'optional' } | { kind: 'required'; scope: Scope | null; sessionOnly?: boolean; allowUnverified?: boolean };

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Non-JSON bodies (exports, pages). */
  raw?: { contentType: string; body: string | Buffer };
}

export interface HandlerCtx<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal | null;
  deps: AppDeps;
  req: Request;
  res: Response;
  requestId: string;
  /** The Idempotency-Key and the operation it scopes, on routes that require one. */
  idempotency: IdempotencyScope | undefined;
}

export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'patch' | 'delete' | 'put';
  /** Express path (`/v1/jobs/:id`); the OpenAPI path is derived (`/v1/jobs/{id}`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthRule;
  rateLimit?: RateLimitKind;
  idempotencyKey?: 'required';
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** Status → description (+ schema). */
  responses: Record<number, { description: string; schema?: ZodType; contentTypes?: string[]; headers?: Record<string, string> }>;
  errors: ErrorCode[];
  /** Hidden from the public OpenAPI document (provider and billing ingress). */
  internal?: boolean;
  /**
   * Query parameters that must come together (JSON Schema `dependentRequired`).
   * OpenAPI can state that only for one object-valued parameter, so the
   * document describes such a query as one `form`/`explode` object.
   */
  queryDependentRequired?: Record<string, string[]>;
  handler: (ctx: HandlerCtx<P, Q, B>) => Promise<Reply>;
}

export function defineRoute<P, Q, B>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

/** 8–128 printable ASCII characters. */
export const IdempotencyKeySchema = z
  .string()
  .min(8)
  .max(128)
  .regex(/^[\x20-\x7E]{8,128}$/, 'must be 8 to 128 printable ASCII characters')
  .openapi({ description: 'Idempotency-Key: 8–128 printable ASCII characters; replay window 48 hours.' });

/**
 * The caller of a request: an API key (`Authorization: Bearer <API_KEY>`), an
 * OAuth access token (`Authorization: Bearer <token>`, domain/oauth/tokens.ts)
 * or a signed-in session cookie; null when none is sent. The REST routes and
 * the agent tool server (`/mcp`, api/mcp/server.ts) both authenticate here.
 */
export async function authenticate(req: Request, deps: AppDeps): Promise<(Principal & { csrfTokenHash?: string }) | null> {
  const header = req.get('authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new ServiceError('UNAUTHENTICATED', 'Authorization', { message: 'Authorization must be "Bearer <API_KEY>".' });
    const credential = m[1]!;
    if (credential.startsWith(API_KEY_PREFIX)) {
      const principal = await principalFromApiKey(deps.db, credential);
      if (!principal) throw new ServiceError('UNAUTHENTICATED', 'Authorization', { message: 'The API key is not valid or was revoked.' });
      return principal;
    }
    // An OAuth access token (api/oauth/provider.ts), with the scopes the owner consented to.
    const principal = await principalFromAccessToken(deps.db, credential, oauthResources(deps.baseUrl));
    if (!principal)
      throw new ServiceError('UNAUTHENTICATED', 'Authorization', {
        message: 'The API key or access token is not valid, has expired or was revoked.',
      });
    return principal;
  }
  const cookie = (req as Request & { cookies?: Record<string, string> }).cookies?.[SESSION_COOKIE];
  if (cookie) return principalFromSession(deps.db, cookie);
  return null;
}

function authorise(rule: AuthRule, principal: (Principal & { csrfTokenHash?: string }) | null, req: Request): void {
  if (rule.kind !== 'required') return;
  authorisePrincipal(rule, principal);
  // Cookie sessions must prove same-origin intent on writes (synchronizer token).
  if (principal!.kind === 'session' && req.method !== 'GET' && req.method !== 'HEAD') {
    const sent = req.get(CSRF_HEADER);
    if (!sent || !principal!.csrfTokenHash || !safeEqual(sha256Hex(sent), principal!.csrfTokenHash)) {
      throw new ServiceError('FORBIDDEN', 'X-CSRF-Token', {
        message: 'Missing or wrong X-CSRF-Token header for a cookie-authenticated write.',
      });
    }
  }
}

/** The rule's checks on the principal alone (presence, session-only, scope, verified e-mail); the agent tool server's tools use it too. */
export function authorisePrincipal(
  rule: { kind: 'required'; scope: Scope | null; sessionOnly?: boolean; allowUnverified?: boolean },
  principal: Principal | null,
): asserts principal is Principal {
  if (!principal)
    throw new ServiceError('UNAUTHENTICATED', 'Authorization', { message: 'Send Authorization: Bearer <API_KEY>, or sign in.' });
  if (rule.sessionOnly && principal.kind !== 'session') {
    throw new ServiceError('FORBIDDEN', 'session', { message: 'This call needs a signed-in owner session; API keys cannot make it.' });
  }
  if (rule.scope && !principal.scopes.includes(rule.scope)) {
    throw new ServiceError('FORBIDDEN', `scope:${rule.scope}`, {
      message: `The ${principal.kind === 'oauth' ? 'access token' : 'API key'} lacks the ${rule.scope} scope.`,
    });
  }
  if (!rule.allowUnverified && !principal.emailVerified) throw new ServiceError('EMAIL_UNVERIFIED', 'email');
}

function parsePart<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  assertStorableText(value, where);
  const result = schema.safeParse(value);
  if (!result.success) throw zodToServiceError(result.error, where);
  return result.data;
}

/** `POST /v1/jobs/<id>/retry`: the route's path with its parameters filled in; idempotency records are scoped by it. */
export function operationName(spec: RouteSpec<any, any, any>, params: Record<string, string> | undefined): string {
  return `${spec.method.toUpperCase()} ${spec.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => String(params?.[name] ?? '').toLowerCase())}`;
}

export function mount(router: Router, specs: RouteSpec<any, any, any>[], deps: AppDeps): void {
  for (const spec of specs) {
    router[spec.method](spec.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        // A JSON route reads JSON only: a form or text body (a cross-site form post) is refused before anything runs.
        if (spec.method !== 'get') assertJsonBody(req);
        const principal = spec.auth.kind === 'public' ? null : await authenticate(req, deps);
        authorise(spec.auth, principal, req);
        let idempotencyKey: string | undefined;
        if (spec.idempotencyKey) {
          const raw = req.get('idempotency-key');
          if (raw === undefined)
            throw new ServiceError('INVALID_REQUEST', 'Idempotency-Key', { message: 'The Idempotency-Key header is required.' });
          const parsed = IdempotencyKeySchema.safeParse(raw);
          if (!parsed.success)
            throw new ServiceError('INVALID_REQUEST', 'Idempotency-Key', {
              message: 'Idempotency-Key must be 8 to 128 printable ASCII characters.',
            });
          idempotencyKey = parsed.data;
        }
        const params = parsePart(spec.params, req.params, 'params');
        const query = parsePart(spec.query, req.query, 'query');
        // Bodies are always JSON; an absent body validates as {} so optional bodies work.
        const body = parsePart(spec.body, req.body ?? {}, 'body');
        const idempotency =
          idempotencyKey === undefined
            ? undefined
            : { key: idempotencyKey, operation: operationName(spec, params as Record<string, string>) };
        const limit =
          spec.rateLimit && principal
            ? async () => {
                // A replay of a used key creates nothing, so it is not counted as a submit.
                const replay = idempotency !== undefined && (await idempotencyKeyUsed(deps.db, principal.workspaceId, idempotency));
                if (!replay) res.set((await deps.rateLimits.consume(spec.rateLimit!, principal.plan, principal.workspaceId)).headers);
              }
            : null;
        const handle = () => spec.handler({ params, query, body, principal, deps, req, res, requestId: res.locals.requestId, idempotency });
        let reply: Reply;
        if (limit && spec.method === 'get') {
          // A read changes nothing: it runs beside the rate-limit statement (one round trip of latency
          // instead of two), and its answer is dropped when the limit refuses it.
          const reading = handle();
          reading.catch(() => undefined);
          await limit();
          reply = await reading;
        } else {
          if (limit) await limit();
          reply = await handle();
        }
        if (reply.headers) res.set(reply.headers);
        res.status(reply.status);
        if (reply.raw) {
          res.type(reply.raw.contentType).send(reply.raw.body);
        } else if (reply.body === undefined) {
          res.end();
        } else {
          res.json(reply.body);
        }
      } catch (err) {
        if (err instanceof ZodError) return next(zodToServiceError(err, 'body'));
        next(err);
      }
    });
  }
}

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
  specs: RouteSpec<any, any, any>[],
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

export function registerOpenApi(registry: OpenAPIRegistry, specs: RouteSpec<any, any, any>[]): void {
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
    const allErrors = new Set<ErrorCode>([...spec.errors, 'INTERNAL_ERROR']);
    if (spec.auth.kind === 'required') ['UNAUTHENTICATED', 'FORBIDDEN', 'EMAIL_UNVERIFIED'].forEach((c) => allErrors.add(c as ErrorCode));
    if (spec.rateLimit) allErrors.add('RATE_LIMITED');
    if (spec.params || spec.query || spec.body || spec.idempotencyKey) allErrors.add('INVALID_REQUEST');
    if (spec.method !== 'get') allErrors.add('UNSUPPORTED_MEDIA_TYPE');
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
