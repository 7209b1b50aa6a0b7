import type { Request, Response } from 'express';
import type { Principal, Scope } from '../../domain/accounts/principal';
import type { IdempotencyScope } from '../../domain/idempotency';
import { countCall, countThen, countThenRunTellingReplays, readBesideLimit } from './accounting';
import { authorisePrincipal, type AuthRule } from './auth';
import type { AppDeps } from './context';
import { parseInput } from './parse-input';
import type { RateLimitKind } from './rate-limit';
import { operationName, parseIdempotencyKey, type AnyRoute, type Reply } from './route';

// The stages every call goes through, whichever front end it came by (issue 51): the REST routes (route.ts
// mount), the dashboard's forms (api/dashboard/kit.ts callRoute, through the REST route they stand for) and the agent
// tool server's tools (api/mcp/tools/kit.ts). Who may call (the rule: scope, session-only, verified e-mail), the
// idempotency key, the parsing of the inputs, the rate-limit class with a replay of a used key never counted nor
// refused, then the handler. The transport's own checks stay with it: the bearer header or the session cookie
// (api/http/auth.ts authenticate), the JSON body and X-CSRF-Token on /v1, the form token on the dashboard,
// Origin and the protocol version on /mcp.

export interface RouteCall {
  /** The caller the front end authenticated (null: none). */
  principal: Principal | null;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** The idempotency key as the front end carries it, and the name to give in an error (the header, a form field). */
  idempotencyKey?: { value: unknown; field: string };
  req: Request;
  res: Response;
  requestId: string;
  /** Where the rate-limit headers go (the REST response; a dashboard redirect has none to show). */
  setHeaders?: (headers: Record<string, string>) => void;
}

/** One call of a route, by any front end: the same rule, accounting and parsing as `POST /v1/...` itself. */
export async function runRoute(spec: AnyRoute, deps: AppDeps, call: RouteCall): Promise<Reply> {
  const rule = spec.auth as AuthRule;
  const principal = call.principal;
  if (rule.kind === 'required') authorisePrincipal(rule, principal);
  const idempotencyKey = spec.idempotencyKey
    ? parseIdempotencyKey(call.idempotencyKey?.value, call.idempotencyKey?.field ?? 'Idempotency-Key')
    : undefined;
  const params = spec.params ? parseInput(spec.params, call.params ?? {}, 'params') : undefined;
  const query = spec.query ? parseInput(spec.query, call.query ?? {}, 'query') : undefined;
  const body = spec.body ? parseInput(spec.body, call.body ?? {}, 'body') : undefined;
  const idempotency: IdempotencyScope | undefined =
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, operation: operationName(spec, params as Record<string, string>) };
  const input = { params, query, body, principal, deps, req: call.req, res: call.res, requestId: call.requestId, idempotency };
  const preparing: Promise<unknown> | undefined = spec.prepare?.(input);
  // Awaited by the handler's turn; a call the limit refuses drops it, error and all.
  preparing?.catch(() => undefined);
  const handle = async (): Promise<Reply> => spec.handler({ ...input, prepared: await preparing });
  if (!spec.rateLimit || !principal) return handle();
  const counting = { kind: spec.rateLimit, principal, idempotency };
  if (spec.method === 'get') return readBesideLimit(deps, counting, handle, call.setHeaders);
  if (spec.answersReplays && idempotency) {
    return countThenRunTellingReplays(
      deps,
      { ...counting, idempotency },
      async () => {
        const answer = await handle();
        return { result: answer, replay: answer.replay === true };
      },
      call.setHeaders,
    );
  }
  return countThen(deps, counting, handle, call.setHeaders);
}

/** A tool's caller held to the scopes of its REST twin (presence, scope, verified e-mail). */
export function requireScopes(principal: Principal | null, ...scopes: Scope[]): Principal {
  for (const scope of scopes) authorisePrincipal({ kind: 'required', scope }, principal);
  authorisePrincipal({ kind: 'required', scope: null }, principal);
  return principal;
}

/** A tool's call counted as its REST twin's: a submit (not an idempotent replay) or a read. Answers whether it is a replay. */
export async function countToolCall(deps: AppDeps, principal: Principal, kind: RateLimitKind, idempotency?: IdempotencyScope) {
  return (await countCall(deps, { kind, principal, idempotency })).replay;
}

/** A read tool's read, beside its rate-limit statement as on the REST routes. */
export function countedToolRead<T>(deps: AppDeps, principal: Principal, read: () => Promise<T>): Promise<T> {
  return readBesideLimit(deps, { kind: 'read', principal }, read);
}
