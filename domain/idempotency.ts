import { createHash } from 'node:crypto';
import type { Db, Tx } from './db';
import { ServiceError } from '../core/errors';
import { Prisma } from '../prisma/generated/client';

// Idempotency-Key handling. The claim is an INSERT on the unique
// (workspace, operation, key) index inside the caller's transaction: a second
// request with the same key waits on that index until the first commits, then
// sees its record. So two concurrent requests with one key create one object.

export const IDEMPOTENCY_WINDOW_MS = 48 * 3600 * 1000;

/** Stable hash of a parsed request body (object keys sorted). */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** An Idempotency-Key and the operation it was sent to (`POST /v1/jobs`, `POST /v1/jobs/<id>/retry`, ...). */
export interface IdempotencyScope {
  key: string;
  operation: string;
}

/**
 * Whether this key was already used for this operation (a replay or a
 * conflict): such a request creates nothing, so it does not count as a submit.
 */
export async function idempotencyKeyUsed(db: Db, workspaceId: string, scope: IdempotencyScope): Promise<boolean> {
  const rows = await db.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM idempotency_records
    WHERE workspace_id = ${workspaceId}::uuid AND operation = ${scope.operation} AND key = ${scope.key} AND expires_at > now()`;
  return rows.length > 0;
}

export type Claim = { kind: 'claimed'; recordId: string } | { kind: 'replay'; resourceId: string };

/** A key to claim for a request, with what it will name: the id the new object is created with. */
export interface KeyClaim {
  workspaceId: string;
  operation: string;
  key: string;
  hash: string;
  resource: { type: string; id: string };
}

/**
 * The claim as one statement: a new record, or an expired one taken over; it answers the record's id when
 * claimed and no row when the key is held. `resource` is written with it, so no second statement binds it.
 * A statement of its own (claimIdempotencyKey) or the first part of a larger one (accept-work.ts), which may
 * make it conditional (`when`: nothing is claimed when false).
 */
export function claimStatement(args: KeyClaim, when?: Prisma.Sql): Prisma.Sql {
  const { workspaceId, operation, key, hash, resource } = args;
  return Prisma.sql`
    INSERT INTO idempotency_records (id, workspace_id, operation, key, request_hash, resource_type, resource_id, created_at, expires_at)
    SELECT gen_random_uuid(), ${workspaceId}::uuid, ${operation}, ${key}, ${hash}, ${resource.type}::"IdempotentResource",
           ${resource.id}::uuid, now(), now() + ${IDEMPOTENCY_WINDOW_MS} * interval '1 millisecond'
    ${when ? Prisma.sql`WHERE ${when}` : Prisma.empty}
    ON CONFLICT (workspace_id, operation, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, resource_type = EXCLUDED.resource_type, resource_id = EXCLUDED.resource_id,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_records.expires_at < now()
    RETURNING id::text`;
}

/** Claims the key for a request, in the caller's transaction. */
export async function claimIdempotencyKey(tx: Tx, args: KeyClaim): Promise<Claim> {
  const inserted = await tx.$queryRaw<{ id: string }[]>(claimStatement(args));
  if (inserted[0]) return { kind: 'claimed', recordId: inserted[0].id };
  return replayOf(tx, args);
}

/**
 * A key the claim found held (and unexpired): the object it names, when the body is the one it was first
 * sent with; IDEMPOTENCY_CONFLICT when not.
 */
export async function replayOf(db: Db | Tx, args: KeyClaim): Promise<{ kind: 'replay'; resourceId: string }> {
  const { workspaceId, operation, key, hash } = args;
  const existing = await db.idempotencyRecord.findUnique({ where: { workspaceId_operation_key: { workspaceId, operation, key } } });
  if (!existing) throw new ServiceError('INTERNAL_ERROR');
  if (existing.requestHash !== hash) {
    throw new ServiceError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key', {
      message: 'This Idempotency-Key was already used with a different body.',
    });
  }
  if (!existing.resourceId) throw new ServiceError('INTERNAL_ERROR');
  return { kind: 'replay', resourceId: existing.resourceId };
}
