import type { NextFunction, Request, Response, Router } from 'express';
import { ZodError, type ZodType } from 'zod';
import type { Principal } from '../../domain/accounts/principal';
import { ServiceError, type ErrorCode } from '../../core/errors';
import type { IdempotencyScope } from '../../domain/idempotency';
import { z } from '../../domain/schemas/zod';
import { assertCsrfHeader, authenticate, type AuthRule } from './auth';
import type { AppDeps } from './context';
import { zodToServiceError } from './envelope';
import { assertJsonBody } from './json-body';
import { runRoute } from './pipeline';
import type { RateLimitKind } from './rate-limit';

// One declaration per endpoint drives the Express handler (mount, here), its
// OpenAPI entry (api/http/openapi-writer.ts) and the dashboard forms that do
// the same thing (api/http/pipeline.ts runRoute): authentication, scope,
// rate-limit class, the zod schemas that validate params/query/body, the
// responses and the error codes.

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Non-JSON bodies (exports, pages). */
  raw?: { contentType: string; body: string | Buffer };
  /**
   * A body written over time (Server-Sent Events): the status and headers go out at once, then `write` writes to the
   * response until it returns; the response ends after it.
   */
  stream?: { contentType: string; write: (res: Response) => Promise<void> };
  /** The answer to a replay of the call's Idempotency-Key (a route that `answersReplays`): not counted. */
  replay?: boolean;
}

/** The caller a handler receives: always there behind a `required` rule, perhaps absent otherwise. */
export type PrincipalFor<A extends AuthRule> = A extends { kind: 'required' } ? Principal : Principal | null;

export interface HandlerCtx<P, Q, B, R = undefined, A extends AuthRule = AuthRule> {
  params: P;
  query: Q;
  body: B;
  principal: PrincipalFor<A>;
  deps: AppDeps;
  req: Request;
  res: Response;
  requestId: string;
  /** The Idempotency-Key and the operation it scopes, on routes that require one. */
  idempotency: IdempotencyScope | undefined;
  /** What the route's `prepare` read (undefined without one). */
  prepared: R;
}

export interface RouteSpec<P = unknown, Q = unknown, B = unknown, R = undefined, A extends AuthRule = AuthRule> {
  method: 'get' | 'post' | 'patch' | 'delete' | 'put';
  /** Express path (`/v1/jobs/:id`); the OpenAPI path is derived (`/v1/jobs/{id}`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
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
  /**
   * The handler's reads, nothing written: run beside the rate-limit statement of a write (one round trip of
   * latency instead of two). Its answer, or its error, reaches the handler only once the call is counted.
   */
  prepare?: (ctx: Omit<HandlerCtx<P, Q, B, R, A>, 'prepared'>) => Promise<R>;
  /**
   * The handler says when it answered a replay of the Idempotency-Key (`Reply.replay`), so the key is not
   * looked up before the count (api/http/accounting.ts countThenRunTellingReplays).
   */
  answersReplays?: boolean;
  handler: (ctx: HandlerCtx<P, Q, B, R, A>) => Promise<Reply>;
}

/** Any route, as the mount, the OpenAPI writer and the call pipeline take them. */
export type AnyRoute = RouteSpec<any, any, any, any, any>;

export function defineRoute<P, Q, B, R, const A extends AuthRule>(spec: RouteSpec<P, Q, B, R, A>): RouteSpec<P, Q, B, R, A> {
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
 * An idempotency key as every entry point takes it (the Idempotency-Key header,
 * a dashboard form's hidden field, the transcribe tool's argument); 422
 * INVALID_REQUEST naming `field` when it is missing or malformed.
 */
export function parseIdempotencyKey(raw: unknown, field: string): string {
  if (raw === undefined || raw === null) throw new ServiceError('INVALID_REQUEST', field, { message: `${field} is required.` });
  const parsed = IdempotencyKeySchema.safeParse(raw);
  if (!parsed.success)
    throw new ServiceError('INVALID_REQUEST', field, { message: `${field} must be 8 to 128 printable ASCII characters.` });
  return parsed.data;
}

/** `POST /v1/jobs/<id>/retry`: the route's path with its parameters filled in; idempotency records are scoped by it. */
export function operationName(spec: AnyRoute, params: Record<string, string> | undefined): string {
  return `${spec.method.toUpperCase()} ${spec.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => String(params?.[name] ?? '').toLowerCase())}`;
}

export function mount(router: Router, specs: AnyRoute[], deps: AppDeps): void {
  for (const spec of specs) {
    router[spec.method](spec.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        // A JSON route reads JSON only: a form or text body (a cross-site form post) is refused before anything runs.
        if (spec.method !== 'get') assertJsonBody(req);
        const principal = spec.auth.kind === 'public' ? null : await authenticate(req, deps);
        // The transport's own check: a cookie session proves same-origin intent on writes (X-CSRF-Token).
        assertCsrfHeader(spec.auth, principal, req);
        const reply = await runRoute(spec, deps, {
          principal,
          params: req.params,
          query: req.query,
          // Bodies are always JSON; an absent body validates as {} so optional bodies work.
          body: req.body ?? {},
          idempotencyKey: { value: req.get('idempotency-key'), field: 'Idempotency-Key' },
          req,
          res,
          requestId: res.locals.requestId,
          setHeaders: (headers) => res.set(headers),
        });
        if (reply.headers) res.set(reply.headers);
        res.status(reply.status);
        if (reply.stream) {
          res.type(reply.stream.contentType);
          res.flushHeaders();
          await reply.stream.write(res);
          res.end();
        } else if (reply.raw) {
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
