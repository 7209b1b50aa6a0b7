import type { Request } from 'express';
import { ServiceError } from '../../core/errors';
import { API_KEY_PREFIX, principalFromApiKey, principalFromSession } from '../../domain/accounts/accounts';
import type { Principal, Scope } from '../../domain/accounts/principal';
import { safeEqual, sha256Hex } from '../../domain/accounts/secrets';
import { principalFromAccessToken } from '../../domain/oauth/tokens';
import { oauthResources } from '../oauth/resources';
import type { AppDeps } from './context';

// Who is calling and what they may do: one place for the REST routes, the
// agent tool server (api/mcp/) and the dashboard (api/dashboard/session.ts).

export const SESSION_COOKIE = 'ts_session';
export const CSRF_HEADER = 'x-csrf-token';

/** A route only a caller may use: of this scope (null: any), perhaps a signed-in owner only, perhaps before e-mail verification. */
export type RequiredRule = { kind: 'required'; scope: Scope | null; sessionOnly?: boolean; allowUnverified?: boolean };
export type AuthRule = { kind: 'public' } | { kind: 'optional' } | RequiredRule;

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

/** A cookie session's write over the JSON API proves same-origin intent with the synchronizer token (X-CSRF-Token). */
export function assertCsrfHeader(rule: AuthRule, principal: (Principal & { csrfTokenHash?: string }) | null, req: Request): void {
  if (rule.kind !== 'required' || principal?.kind !== 'session' || req.method === 'GET' || req.method === 'HEAD') return;
  const sent = req.get(CSRF_HEADER);
  if (!sent || !principal.csrfTokenHash || !safeEqual(sha256Hex(sent), principal.csrfTokenHash)) {
    throw new ServiceError('FORBIDDEN', 'X-CSRF-Token', {
      message: 'Missing or wrong X-CSRF-Token header for a cookie-authenticated write.',
    });
  }
}

/** The rule's checks on the principal alone (presence, session-only, scope, verified e-mail); the agent tool server's tools use it too. */
export function authorisePrincipal(rule: RequiredRule, principal: Principal | null): asserts principal is Principal {
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
