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
