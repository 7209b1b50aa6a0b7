import type { Db } from '../db';
import { cachedPrincipal, forgetWorkspacePrincipals, rememberPrincipal } from '../accounts/principal-cache';
import { sha256Hex } from '../accounts/secrets';
import { SCOPES, type Principal, type Scope } from '../accounts/principal';
import { ServiceError } from '../../core/errors';
import type { PlanId } from '../../core/plans';
import { revokeGrant } from './records';

// OAuth access tokens as API principals: the REST routes and the tool server
// authenticate them here (api/http/auth.ts authenticate()), beside API keys
// and with the same bound: what a process read about a token is trusted for at
// most PRINCIPAL_CACHE_MS (5 s, the cache API keys share: domain/accounts/principal-cache.ts), and never past the token's own expiry. A
// revoked authorization or refresh-token reuse (which revokes the grant)
// therefore stops its access tokens at once on the instance that revoked and
// within 5 s on every other.

export interface TokenResources {
  /** Resource indicators (RFC 8707) whose tokens this API accepts: the service and its tool server. */
  accepted: readonly string[];
}

/** The principal of a bearer OAuth access token, or null when it is unknown, expired, revoked or for another resource. */
export async function principalFromAccessToken(db: Db, raw: string, resources: TokenResources): Promise<Principal | null> {
  if (raw.length < 32 || raw.length > 256) return null; // opaque tokens are 43 characters (256 random bits)
  const hash = sha256Hex(raw);
  const hit = cachedPrincipal(db, hash);
  if (hit) return hit;
  const found = await lookUpAccessToken(db, hash, resources);
  rememberPrincipal(db, hash, found?.principal ?? null, found?.expiresAt);
  return found?.principal ?? null;
}

async function lookUpAccessToken(
  db: Db,
  hash: string,
  resources: TokenResources,
): Promise<{ principal: Principal; expiresAt: number } | null> {
  const rows = await db.$queryRaw<
    {
      payload: { scope?: string; aud?: string | string[]; exp?: number; clientId?: string; grantId?: string };
      expires_at: Date;
      user_id: string;
      workspace_id: string;
      plan: PlanId;
      status: string;
      verified: boolean;
    }[]
  >`
    SELECT r.payload, r.expires_at, u.id::text AS user_id, w.id::text AS workspace_id, w.plan::text AS plan, w.status::text AS status,
           EXISTS (SELECT 1 FROM users o WHERE o.workspace_id = w.id AND o.role = 'owner' AND o.email_verified_at IS NOT NULL) AS verified
    FROM oauth_records r
    JOIN users u ON u.id::text = r.account_id
    JOIN workspaces w ON w.id = u.workspace_id
    WHERE r.model = 'AccessToken' AND r.key_hash = ${hash} AND r.expires_at > now()`;
  const row = rows[0];
  if (!row) return null;
  const expiresAt = Math.min(row.expires_at.getTime(), (row.payload.exp ?? Infinity) * 1000);
  if (expiresAt <= Date.now()) return null;
  const audiences = Array.isArray(row.payload.aud) ? row.payload.aud : [row.payload.aud];
  if (!audiences.some((a) => a !== undefined && resources.accepted.includes(a))) return null;
  if (row.status !== 'active') throw new ServiceError('FORBIDDEN', 'workspace', { message: 'This workspace is disabled.' });
  const scopes = (row.payload.scope ?? '').split(' ').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  return {
    principal: {
      kind: 'oauth',
      workspaceId: row.workspace_id,
      plan: row.plan,
      scopes,
      emailVerified: row.verified,
      userId: row.user_id,
      oauthGrantId: row.payload.grantId,
      oauthClientId: row.payload.clientId,
      oauthAudiences: audiences.filter((a): a is string => typeof a === 'string'),
    },
    expiresAt,
  };
}

export interface OAuthAuthorizationRecord {
  id: string;
  client_id: string;
  client_name: string | null;
  scopes: string[];
  resources: string[];
  created_at: string;
  expires_at: string | null;
  /** Access and refresh tokens of this authorization that are still usable. */
  active_access_tokens: number;
  active_refresh_tokens: number;
  last_token_issued_at: string | null;
}

/** The agents a workspace's owner authorised (one grant per consent), newest first. */
export async function listAuthorizations(db: Db, workspaceId: string): Promise<OAuthAuthorizationRecord[]> {
  const rows = await db.$queryRaw<
    {
      grant_id: string;
      client_id: string;
      payload: { resources?: Record<string, string> };
      created_at: Date;
      expires_at: Date | null;
      client_payload: { client_name?: string } | null;
      access: bigint;
      refresh: bigint;
      last_issued: Date | null;
    }[]
  >`
    SELECT g.grant_id, g.client_id, g.payload, g.created_at, g.expires_at,
           (SELECT c.payload FROM oauth_records c WHERE c.model = 'Client' AND c.client_id = g.client_id LIMIT 1) AS client_payload,
           (SELECT count(*) FROM oauth_records t WHERE t.grant_id = g.grant_id AND t.model = 'AccessToken' AND t.expires_at > now()) AS access,
           (SELECT count(*) FROM oauth_records t WHERE t.grant_id = g.grant_id AND t.model = 'RefreshToken' AND t.expires_at > now() AND t.consumed_at IS NULL) AS refresh,
           (SELECT max(t.created_at) FROM oauth_records t WHERE t.grant_id = g.grant_id AND t.model IN ('AccessToken', 'RefreshToken')) AS last_issued
    FROM oauth_records g
    WHERE g.model = 'Grant' AND (g.expires_at IS NULL OR g.expires_at > now())
      AND g.account_id IN (SELECT u.id::text FROM users u WHERE u.workspace_id = ${workspaceId}::uuid)
    ORDER BY g.created_at DESC, g.grant_id DESC`;
  return rows.map((r) => {
    const resources = r.payload.resources ?? {};
    const scopes = [...new Set(Object.values(resources).flatMap((s) => s.split(' ')))].filter(Boolean).sort();
    return {
      id: r.grant_id,
      client_id: r.client_id,
      // A CIMD client is not stored: its id is the URL of its metadata document.
      client_name: r.client_payload?.client_name ?? null,
      scopes,
      resources: Object.keys(resources),
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at?.toISOString() ?? null,
      active_access_tokens: Number(r.access),
      active_refresh_tokens: Number(r.refresh),
      last_token_issued_at: r.last_issued?.toISOString() ?? null,
    };
  });
}

/** Revokes one authorization of the workspace: the grant and every code, access and refresh token issued under it. */
export async function revokeAuthorization(db: Db, workspaceId: string, grantId: string): Promise<void> {
  const owned = await db.$queryRaw<{ ok: number }[]>`
    SELECT 1 AS ok FROM oauth_records g
    WHERE g.model = 'Grant' AND g.grant_id = ${grantId}
      AND g.account_id IN (SELECT u.id::text FROM users u WHERE u.workspace_id = ${workspaceId}::uuid)`;
  if (owned.length === 0) throw new ServiceError('NOT_FOUND', 'id');
  await revokeGrant(db, grantId);
  forgetWorkspacePrincipals(db, workspaceId); // after the delete: this instance refuses the tokens at once
}
