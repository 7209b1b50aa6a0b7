import { createHmac, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../core/errors';
import { DISCOVERY_RETENTION_HOURS } from '../schemas/discoveries';

// next_cursor of a video discovery: where the listing continues (the
// platform's continuation token and how many videos of that platform page were
// already handed out), bound to the workspace, the kind and the request
// fields, with the time it was issued; HMAC-signed with a key derived from
// SECRETS_KEY. Altered, foreign or older than the discovery retention →
// INVALID_CURSOR.

export interface CursorPosition {
  continuation: string | null;
  skip: number;
}

interface CursorBody {
  v: 1;
  /** Workspace. */
  w: string;
  /** Kind. */
  k: string;
  /** Hash of the request's listing fields (domain/discoveries/video.ts listingHash). */
  r: string;
  c: string | null;
  s: number;
  /** Issued at, epoch seconds. */
  t: number;
}

const MAX_AGE_MS = DISCOVERY_RETENTION_HOURS * 3600_000;

function cursorKey(secretsKey: string): Buffer {
  return createHmac('sha256', secretsKey).update('video-discovery-cursor-v1').digest();
}

function sign(secretsKey: string, payload: string): Buffer {
  return createHmac('sha256', cursorKey(secretsKey)).update(payload).digest().subarray(0, 24);
}

export function encodeCursor(
  secretsKey: string,
  bound: { workspaceId: string; kind: string; listingHash: string },
  position: CursorPosition,
  now = new Date(),
): string {
  const body: CursorBody = {
    v: 1,
    w: bound.workspaceId,
    k: bound.kind,
    r: bound.listingHash,
    c: position.continuation,
    s: position.skip,
    t: Math.floor(now.getTime() / 1000),
  };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${sign(secretsKey, payload).toString('base64url')}`;
}

/** The position a cursor names, after checking its signature, binding and age. */
export function decodeCursor(
  secretsKey: string,
  cursor: string,
  bound: { workspaceId: string; kind: string; listingHash: string },
  now = new Date(),
): CursorPosition {
  const invalid = (why: string) =>
    new ServiceError('INVALID_CURSOR', 'cursor', { message: `The cursor ${why}; restart from the first page.` });
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) throw invalid('is malformed');
  // Compared as text: decoding would ignore trailing characters a client appended.
  const expected = Buffer.from(sign(secretsKey, payload).toString('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('was altered or is not ours');
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw invalid('is malformed');
  }
  if (body.v !== 1 || typeof body.s !== 'number' || !Number.isInteger(body.s) || body.s < 0) throw invalid('is malformed');
  if (body.w !== bound.workspaceId) throw invalid('belongs to another workspace');
  if (body.k !== bound.kind || body.r !== bound.listingHash) throw invalid('belongs to another request');
  if (now.getTime() - body.t * 1000 > MAX_AGE_MS) throw invalid(`is older than ${DISCOVERY_RETENTION_HOURS} hours`);
  return { continuation: body.c ?? null, skip: body.s };
}
