import { randomUUID } from 'node:crypto';
import type { DiscoveryStatus } from '../../prisma/generated/client';
import type { Principal } from '../accounts/principal';
import { jsonColumn, type Db, type Tx } from '../db';
import { ServiceError } from '../../core/errors';
import { requestHash, type IdempotencyScope } from '../idempotency';
import { acceptWork } from '../accept-work';
import {
  DEFAULT_DISCOVERY_LIMIT,
  DISCOVERY_CACHE_SECONDS,
  DISCOVERY_RETENTION_HOURS,
  type LanguageDiscoveryRequest,
  type LanguageDiscoveryView,
  type VideoDiscoveryRequest,
  type VideoDiscoveryView,
} from '../schemas/discoveries';
import { languageDiscoveryFacts, startDiscoveryWorkflow, videoDiscoveryFacts, type WorkflowStarter } from '../workflow-starts';
import { type StartDispatcher } from '../start-dispatcher';
import { normalizeDiscoveryInput } from '../../integrations/platforms/discovery';
import type { DiscoveryPosition, VideoDiscoveryInput } from '../../integrations/platforms/discovery-types';
import { recognizeLinkAt } from '../jobs/submit';
import type { JobWakeups } from '../jobs/wakeups';
import { decodeCursor } from './cursor';
import { languageDiscoveryView, videoDiscoveryView } from './view';

// POST /v1/video-discoveries and /v1/language-discoveries. As for jobs, one
// short transaction writes the idempotency record, the 1-credit hold and the
// row (credits reserved last, by one conditional statement), and the workflow
// starts after the commit (domain/workflow-starts.ts; the starter makes up a
// lost start). The same workspace asking the same thing within
// DISCOVERY_CACHE_SECONDS gets the earlier discovery again, free: 200 when it
// succeeded, 202 while it still runs.

export const DISCOVERY_CREDITS = 1;

export interface DiscoveryServiceDeps extends WorkflowStarter {
  db: Db;
  secretsKey: string;
  starts: StartDispatcher;
}

export interface DiscoveryAccepted<V> {
  status: 200 | 202;
  discovery: V;
}

/** What the workflow needs to fetch the page (stored on the row, `listing`). */
export interface VideoListing {
  input: VideoDiscoveryInput;
  position: DiscoveryPosition | null;
  limit: number;
  /** Binds cursors to the request's listing fields (domain/discoveries/cursor.ts). */
  listingHash: string;
}

/** The listing fields of a request: what a cursor continues (not the page size, not the cursor itself). */
export function listingHash(input: VideoDiscoveryInput): string {
  return requestHash({
    kind: input.kind,
    query: input.query ?? null,
    channel: input.channel ?? null,
    playlist: input.playlist ?? null,
    user: input.user ?? null,
    details: input.includeDetails ?? false,
  });
}

const expiresAt = (from: Date) => new Date(from.getTime() + DISCOVERY_RETENTION_HOURS * 3600_000);
/** created_at and expires_at from one clock reading: exactly 24 h apart. */
const lifetime = () => {
  const now = new Date();
  return { createdAt: now, expiresAt: expiresAt(now) };
};
const cacheSince = () => new Date(Date.now() - DISCOVERY_CACHE_SECONDS * 1000);

/** The table of each kind of discovery, whose rows record that their workflow started. */
const STARTED_TABLE = { video_discovery: 'video_discoveries', language_discovery: 'language_discoveries' } as const;

/** What differs between the two kinds of discovery on the accepting path; acceptDiscovery does the rest. */
interface DiscoveryKindOps<Row extends { id: string; status: string }> {
  resourceType: 'video_discovery' | 'language_discovery';
  /** The latest discovery with this cache key, not failed, created after `since`. */
  findCached(where: {
    workspaceId: string;
    cacheKey: string;
    status: { in: DiscoveryStatus[] };
    createdAt: { gt: Date };
  }): Promise<Row | null>;
  create(tx: Tx, id: string, holdId: string, times: { createdAt: Date; expiresAt: Date }): Promise<Row>;
  find(id: string): Promise<Row>;
  start(row: Row): Promise<unknown>;
}

/**
 * The one accepting transaction (domain/accept-work.ts: key, 1-credit hold,
 * row, credits reserved last), the workflow started after the commit; or the
 * earlier discovery answered again: a replay, or a reuse from the short cache.
 */
async function acceptDiscovery<Row extends { id: string; status: string }>(
  deps: DiscoveryServiceDeps,
  principal: Principal,
  idempotency: IdempotencyScope,
  hash: string,
  cacheKey: string,
  ops: DiscoveryKindOps<Row>,
): Promise<{ status: 200 | 202; row: Row }> {
  const cached = await ops.findCached({
    workspaceId: principal.workspaceId,
    cacheKey,
    status: { in: ['queued', 'processing', 'succeeded'] },
    createdAt: { gt: cacheSince() },
  });
  const id = randomUUID();
  const outcome = await acceptWork(deps.db, deps.starts, {
    principal,
    idempotency,
    hash,
    resource: { type: ops.resourceType, id },
    existingId: cached?.id ?? null,
    holds: [DISCOVERY_CREDITS],
    holdReason: `${ops.resourceType.replace('_', ' ')} ${id}`,
    create: (tx, [holdId]) => ops.create(tx, id, holdId!, lifetime()),
    start: { label: `${ops.resourceType} ${id}`, run: (created) => ops.start(created), records: STARTED_TABLE[ops.resourceType] },
  });
  if (outcome.kind === 'created') return { status: 202, row: outcome.created };
  const row = await ops.find(outcome.id);
  // A replay or a reuse: 200 once there is a result to reuse, 202 while it is still being made.
  return { status: row.status === 'queued' || row.status === 'processing' ? 202 : 200, row };
}

export async function submitVideoDiscovery(
  deps: DiscoveryServiceDeps,
  principal: Principal,
  req: VideoDiscoveryRequest,
  idempotency: IdempotencyScope,
): Promise<DiscoveryAccepted<VideoDiscoveryView>> {
  const input = normalizeDiscoveryInput({
    kind: req.kind,
    query: req.query,
    channel: req.channel,
    playlist: req.playlist,
    user: req.user,
    includeDetails: req.include_details,
  });
  const limit = req.limit ?? DEFAULT_DISCOVERY_LIMIT;
  const lh = listingHash(input);
  const position = req.cursor
    ? decodeCursor(deps.secretsKey, req.cursor, { workspaceId: principal.workspaceId, kind: req.kind, listingHash: lh })
    : null;
  const listing: VideoListing = { input, position, limit, listingHash: lh };
  const cacheKey = requestHash({ listing: lh, limit, position });
  const { status, row } = await acceptDiscovery(
    deps,
    principal,
    idempotency,
    requestHash(req),
    requestHash({ listing: lh, limit, position }),
    {
      resourceType: 'video_discovery',
      findCached: (where) => deps.db.videoDiscovery.findFirst({ where, orderBy: { createdAt: 'desc' } }),
      create: (tx, id, holdId, times) =>
        tx.videoDiscovery.create({
          data: {
            id,
            workspaceId: principal.workspaceId,
            kind: req.kind,
            request: jsonColumn({ ...req, limit }),
            listing: jsonColumn(listing),
            cacheKey,
            holdId,
            ...times,
          },
        }),
      find: (id) => deps.db.videoDiscovery.findUniqueOrThrow({ where: { id } }),
      start: (created) => startDiscoveryWorkflow(deps, 'video', videoDiscoveryFacts(created)),
    },
  );
  return { status, discovery: videoDiscoveryView(row) };
}

export async function submitLanguageDiscovery(
  deps: DiscoveryServiceDeps,
  principal: Principal,
  req: LanguageDiscoveryRequest,
  idempotency: IdempotencyScope,
): Promise<DiscoveryAccepted<LanguageDiscoveryView>> {
  const link = recognizeLinkAt(req.source.url, 'source.url');
  if (link.platform !== 'videosite')
    throw new ServiceError('UNSUPPORTED_SOURCE', 'source.url', { message: 'Language discovery takes videosite links only.' });
  const cacheKey = requestHash({ platform: 'videosite', mediaId: link.mediaId });
  const { status, row } = await acceptDiscovery(deps, principal, idempotency, requestHash(req), cacheKey, {
    resourceType: 'language_discovery',
    findCached: (where) => deps.db.languageDiscovery.findFirst({ where, orderBy: { createdAt: 'desc' } }),
    create: (tx, id, holdId, times) =>
      tx.languageDiscovery.create({
        data: { id, workspaceId: principal.workspaceId, sourceUrl: link.canonicalUrl, mediaId: link.mediaId, cacheKey, holdId, ...times },
      }),
    find: (id) => deps.db.languageDiscovery.findUniqueOrThrow({ where: { id } }),
    start: (created) => startDiscoveryWorkflow(deps, 'language', languageDiscoveryFacts(created)),
  });
  return { status, discovery: languageDiscoveryView(row) };
}

/**
 * GET with an optional long poll: returns once the discovery is final (woken by
 * the NOTIFY its completing transaction sends, on any API instance) or after
 * `waitSeconds`.
 */
export async function waitForDiscovery<V extends { status: string }>(
  wakeups: JobWakeups,
  id: string,
  read: () => Promise<V>,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<V> {
  if (waitSeconds <= 0) return read();
  const sub = wakeups.subscribe(id);
  try {
    const first = await read();
    if (first.status === 'succeeded' || first.status === 'failed') return first;
    await sub.wait(waitSeconds * 1000, signal);
    return read();
  } finally {
    sub.cancel();
  }
}

/** GET: this workspace's discovery while it is retained; otherwise 404 (an expired one is purged by the retention schedule). */
export async function getVideoDiscovery(db: Db, workspaceId: string, id: string): Promise<VideoDiscoveryView> {
  const row = await db.videoDiscovery.findFirst({ where: { id, workspaceId, expiresAt: { gt: new Date() } } });
  if (!row) throw new ServiceError('NOT_FOUND', 'id', { message: 'No video discovery with this id in this workspace.' });
  return videoDiscoveryView(row);
}

export async function getLanguageDiscovery(db: Db, workspaceId: string, id: string): Promise<LanguageDiscoveryView> {
  const row = await db.languageDiscovery.findFirst({ where: { id, workspaceId, expiresAt: { gt: new Date() } } });
  if (!row) throw new ServiceError('NOT_FOUND', 'id', { message: 'No language discovery with this id in this workspace.' });
  return languageDiscoveryView(row);
}
