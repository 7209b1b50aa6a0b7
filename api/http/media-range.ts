import type { Request, Response } from 'express';
import { ServiceError } from '../../core/errors';
import type { ObjectStore } from '../../integrations/storage/object-store';
import type { TranscriptMedia } from '../../domain/transcripts/media';
import { sendError } from './envelope';

/** Bytes read from the store per write. */
const MEDIA_CHUNK_BYTES = 1024 * 1024;

/** What a Range header asks of a representation of `size` bytes (RFC 9110 §14.1.2 and §14.2). */
export type ByteRangeAnswer = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * The one part of the media a Range header selects, read to the letter of RFC 9110:
 * - no header, another unit, or a header that does not parse: the whole representation (a server MAY ignore Range);
 * - a suffix longer than the media (`bytes=-99999999`) selects the whole of it, as a part (§14.1.2);
 * - ranges that overlap or touch are one part; two or more separate parts get the whole file with 200 rather than
 *   `multipart/byteranges`, which no player needs (§14.2 lets a server ignore a Range it does not want to serve);
 * - none of them satisfiable (every first byte past the end, a suffix of 0, or empty media): 416.
 */
export function byteRangeOf(header: string | undefined, size: number): ByteRangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!m) return { kind: 'whole' };
  const parts: { start: number; end: number }[] = [];
  for (const spec of m[1]!.split(',')) {
    const s = spec.trim();
    if (s === '') continue; // `bytes=0-1,,2-3` has empty list elements, which the grammar allows
    const r = /^(\d*)-(\d*)$/.exec(s);
    if (!r || (r[1] === '' && r[2] === '')) return { kind: 'whole' };
    if (r[1] === '') {
      const suffix = Number(r[2]);
      if (suffix > 0 && size > 0) parts.push({ start: Math.max(0, size - suffix), end: size - 1 });
      continue;
    }
    const first = Number(r[1]);
    const last = r[2] === '' ? Infinity : Number(r[2]);
    if (last < first) return { kind: 'whole' }; // not a valid range-spec: the header is ignored
    if (first < size) parts.push({ start: first, end: Math.min(last, size - 1) });
  }
  if (parts.length === 0) return { kind: 'unsatisfiable' };
  parts.sort((a, b) => a.start - b.start);
  const merged = [parts[0]!];
  for (const p of parts.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (p.start <= last.end + 1) last.end = Math.max(last.end, p.end);
    else merged.push(p);
  }
  return merged.length === 1 ? { kind: 'part', ...merged[0]! } : { kind: 'whole' };
}

/**
 * Sends stored media for a player: one byte range at a time (seeking), read from the store in pieces of at most
 * MEDIA_CHUNK_BYTES, so a 250 MB file never sits in memory. Used by the dashboard's player and by signed media links.
 */
export async function sendStoredMedia(req: Request, res: Response, store: ObjectStore, media: TranscriptMedia): Promise<void> {
  const answer = byteRangeOf(req.get('range'), media.size);
  const headers = { 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' };
  if (answer.kind === 'unsatisfiable') {
    res.set({ ...headers, 'Content-Range': `bytes */${media.size}` });
    return sendError(
      res,
      new ServiceError('RANGE_NOT_SATISFIABLE', 'Range', {
        message: `No range asked for starts inside the media's ${media.size} bytes.`,
      }),
    );
  }
  const { start, end } = answer.kind === 'part' ? answer : { start: 0, end: media.size - 1 };
  res.status(answer.kind === 'part' ? 206 : 200).set({
    ...headers,
    'Content-Type': media.contentType,
    'Content-Length': String(end - start + 1),
    ...(answer.kind === 'part' ? { 'Content-Range': `bytes ${start}-${end}/${media.size}` } : {}),
  });
  for (let at = start; at <= end && !res.destroyed; at += MEDIA_CHUNK_BYTES) {
    const chunk = await store.readRange(media.key, at, Math.min(end + 1, at + MEDIA_CHUNK_BYTES));
    // A player that goes away mid-file closes the response without draining it: stop there too.
    if (!res.write(chunk)) await new Promise((r) => (res.once('drain', r), res.once('close', r)));
  }
  res.end();
}
