import type { ObjectStore } from '../../integrations/storage/object-store';
import type { Db } from '../db';

/** The stored media a transcript was made from, where the service keeps it: an upload's file, while it exists. */
export interface TranscriptMedia {
  key: string;
  size: number;
  contentType: string;
}

/**
 * The media behind a visible transcript of this workspace, for the dashboard's player. Only uploads are
 * stored (links are fetched, converted and dropped); null when the transcript is not an upload's or the
 * file is gone.
 */
export async function transcriptMedia(
  db: Db,
  store: ObjectStore,
  workspaceId: string,
  transcriptId: string,
): Promise<TranscriptMedia | null> {
  const t = await db.transcript.findFirst({
    where: { id: transcriptId, workspaceId, publishedAt: { not: null }, deletedAt: null, expiresAt: { gt: new Date() } },
    select: { platform: true, mediaId: true },
  });
  if (!t || t.platform !== 'upload') return null;
  const upload = await db.upload.findFirst({ where: { id: t.mediaId, workspaceId, status: 'ready' }, select: { objectKey: true } });
  if (!upload) return null;
  const stat = await store.stat(upload.objectKey);
  return stat ? { key: upload.objectKey, size: stat.size, contentType: stat.contentType } : null;
}

/** The byte range [start, end] (inclusive) a `Range: bytes=…` header asks for; null when absent or not one satisfiable range. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'unsatisfiable';
  let start: number;
  let end: number;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}
