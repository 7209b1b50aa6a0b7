import type { Request, Response } from 'express';
import type { ObjectStore } from '../../integrations/storage/object-store';
import type { TranscriptMedia } from '../../domain/transcripts/media';

/** Bytes read from the store per write. */
const MEDIA_CHUNK_BYTES = 1024 * 1024;

/**
 * Sends stored media for a player: Range requests (seeking) through Express's own Range parsing, read from the
 * store in pieces of at most MEDIA_CHUNK_BYTES, so a 250 MB file never sits in memory. Used by the dashboard's
 * player and by signed media links.
 */
export async function sendStoredMedia(req: Request, res: Response, store: ObjectStore, media: TranscriptMedia): Promise<void> {
  // range-parser: -1 unsatisfiable, -2 malformed (then the whole file).
  const ranges = req.range(media.size, { combine: true });
  const range = Array.isArray(ranges) && ranges.type === 'bytes' ? ranges[0]! : null;
  const headers = { 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' };
  if (ranges === -1) {
    res
      .status(416)
      .set({ ...headers, 'Content-Range': `bytes */${media.size}` })
      .end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: media.size - 1 };
  res.status(range ? 206 : 200).set({
    ...headers,
    'Content-Type': media.contentType,
    'Content-Length': String(end - start + 1),
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${media.size}` } : {}),
  });
  for (let at = start; at <= end && !res.destroyed; at += MEDIA_CHUNK_BYTES) {
    const chunk = await store.readRange(media.key, at, Math.min(end + 1, at + MEDIA_CHUNK_BYTES));
    // A player that goes away mid-file closes the response without draining it: stop there too.
    if (!res.write(chunk)) await new Promise((r) => (res.once('drain', r), res.once('close', r)));
  }
  res.end();
}
