import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectStore } from '../../integrations/storage/object-store';
import type { Db } from '../db';
import { visible, type TranscriptView } from './read';

/** The stored media a transcript was made from, where the service keeps it: an upload's file, while it exists. */
export interface TranscriptMedia {
  key: string;
  size: number;
  contentType: string;
}

/**
 * The media behind the source of a transcript the caller already read (getTranscript: visible, this workspace), for the
 * dashboard's player. Only uploads are stored (links are fetched, converted and dropped); null when the
 * transcript is not an upload's or the file is gone.
 */
export async function transcriptMedia(
  db: Db,
  store: ObjectStore,
  workspaceId: string,
  source: Pick<TranscriptView['source'], 'platform' | 'media_id'>,
): Promise<TranscriptMedia | null> {
  if (source.platform !== 'upload') return null;
  const upload = await db.upload.findFirst({ where: { id: source.media_id, workspaceId, status: 'ready' }, select: { objectKey: true } });
  if (!upload) return null;
  const stat = await store.stat(upload.objectKey);
  return stat ? { key: upload.objectKey, size: stat.size, contentType: stat.contentType } : null;
}

/** The media of a visible transcript of this workspace, by id (reads only its source, not its text). */
export async function transcriptMediaById(db: Db, store: ObjectStore, workspaceId: string, id: string): Promise<TranscriptMedia | null> {
  const t = await db.transcript.findFirst({ where: visible(workspaceId, id), select: { platform: true, mediaId: true } });
  return t ? transcriptMedia(db, store, workspaceId, { platform: t.platform, media_id: t.mediaId }) : null;
}

/** How long a signed media link works: long enough to listen through a session, short enough to go stale. */
export const MEDIA_LINK_TTL_SECONDS = 3600;

/** The HMAC a media link carries: bound to the transcript, its workspace and the expiry, under a key derived for this use only. */
function mediaSignature(secretsKey: string, workspaceId: string, transcriptId: string, expires: number): string {
  const key = createHmac('sha256', secretsKey).update('transcript-media-link').digest();
  return createHmac('sha256', key).update(`${workspaceId}.${transcriptId}.${expires}`).digest('hex');
}

/**
 * A link that plays a transcript's stored media without a credential, for a player that cannot send one (the MCP
 * App's audio element in a host's sandboxed frame): GET /media/transcripts/{id}?expires=&signature=, valid an hour.
 */
export function signedMediaLink(secretsKey: string, baseUrl: string, workspaceId: string, transcriptId: string, now = Date.now()) {
  const expires = Math.floor(now / 1000) + MEDIA_LINK_TTL_SECONDS;
  const signature = mediaSignature(secretsKey, workspaceId, transcriptId, expires);
  return {
    url: `${baseUrl.replace(/\/+$/, '')}/media/transcripts/${transcriptId}?expires=${expires}&signature=${signature}`,
    expires_at: new Date(expires * 1000).toISOString(),
  };
}

/**
 * The media a signed link names, or null when the link is not valid (wrong or altered signature, expired, the
 * transcript deleted or not an upload's): the caller answers all of these alike, so a link reveals nothing.
 * `link.id` is a UUID (the caller checks it before any query); `expires` is spelled as it was signed (plain decimal
 * digits, no leading zero), so one expiry has one spelling.
 */
export async function mediaBySignedLink(
  db: Db,
  store: ObjectStore,
  secretsKey: string,
  link: { id: string; expires: string; signature: string },
  now = Date.now(),
): Promise<TranscriptMedia | null> {
  if (!/^[1-9]\d{0,11}$/.test(link.expires) || Number(link.expires) * 1000 < now || !/^[0-9a-f]{64}$/.test(link.signature)) return null;
  const t = await db.transcript.findFirst({ where: { id: link.id, deletedAt: null }, select: { workspaceId: true } });
  if (!t) return null;
  const expected = Buffer.from(mediaSignature(secretsKey, t.workspaceId, link.id, Number(link.expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(link.signature, 'hex'))) return null;
  return transcriptMediaById(db, store, t.workspaceId, link.id);
}
