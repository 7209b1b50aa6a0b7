import type { Db } from '../db';
import type { Principal } from './principal';

/**
 * How long an API process trusts what it read about a bearer credential (an
 * API key or an OAuth access token): a revocation, a disabled workspace or a
 * changed plan takes effect on every instance within this bound, and at once on
 * the instance that made the change (forgetWorkspacePrincipals). Only valid
 * credentials are kept; a wrong one always reaches the database.
 */
export const PRINCIPAL_CACHE_MS = 5_000;
const PRINCIPAL_CACHE_MAX = 10_000;

// One cache per database handle (tests run several stacks in one process), keyed by the credential's SHA-256.
const caches = new WeakMap<Db, Map<string, { principal: Principal; until: number }>>();

function cacheOf(db: Db) {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

/** The principal remembered for this credential hash, while it is still trusted. */
export function cachedPrincipal(db: Db, hash: string): Principal | undefined {
  const hit = caches.get(db)?.get(hash);
  return hit && hit.until > Date.now() ? hit.principal : undefined;
}

/** Remembers a looked-up principal (null: forgets the hash) for PRINCIPAL_CACHE_MS, never past `notAfter`. */
export function rememberPrincipal(db: Db, hash: string, principal: Principal | null, notAfter = Infinity): void {
  const cache = cacheOf(db);
  if (!principal) {
    cache.delete(hash);
    return;
  }
  if (cache.size >= PRINCIPAL_CACHE_MAX) cache.clear();
  cache.set(hash, { principal, until: Math.min(Date.now() + PRINCIPAL_CACHE_MS, notAfter) });
}

/** Drops every remembered key and token of a workspace (revoked here, plan changed, workspace disabled). */
export function forgetWorkspacePrincipals(db: Db, workspaceId: string): void {
  const cache = caches.get(db);
  if (!cache) return;
  for (const [hash, entry] of cache) if (entry.principal.workspaceId === workspaceId) cache.delete(hash);
}
