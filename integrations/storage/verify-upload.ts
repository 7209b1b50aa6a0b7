import fsp from 'node:fs/promises';
import { ServiceError } from '../../core/errors';
import { MAX_MEDIA_BYTES, mediaTypeEssence, sameMediaType, type ObjectStore } from './object-store';
import { formatMatchesType, sniffMedia, SNIFF_BYTES, UPLOAD_FORMATS, type MediaFormat } from './sniff-media';

/**
 * The completion check of an upload (POST /v1/uploads/{id}/complete): the
 * stored object must have exactly the declared size and Content-Type, and its
 * first bytes must be a media format allowed for uploads that fits that type.
 * Needed because a presigned S3 PUT accepts any body and any Content-Type.
 *
 * The object is copied to `toFile` first and every check after the stat reads
 * that copy, so what was checked is exactly what the caller keeps (a PUT that
 * replaces the object meanwhile changes nothing here). Duration and audio track
 * are for ffprobe afterwards, on the same copy.
 */
export async function verifyStoredUpload(
  store: ObjectStore,
  key: string,
  declared: { bytes: number; contentType: string },
  toFile: string,
): Promise<{ format: MediaFormat }> {
  const stat = await store.stat(key);
  if (!stat) throw new ServiceError('CONFLICT', 'no file has been uploaded to the signed URL yet');
  if (stat.size > MAX_MEDIA_BYTES) throw new ServiceError('FILE_TOO_LARGE', `uploaded ${stat.size} bytes; the limit is ${MAX_MEDIA_BYTES}`);
  assertDeclaredSize(stat.size, declared.bytes);
  if (!sameMediaType(stat.contentType, declared.contentType)) {
    throw new ServiceError(
      'UNSUPPORTED_MEDIA',
      `uploaded with Content-Type ${mediaTypeEssence(stat.contentType)} but ${mediaTypeEssence(declared.contentType)} was declared`,
    );
  }
  await store.download(key, toFile);
  assertDeclaredSize((await fsp.stat(toFile)).size, declared.bytes);
  const format = sniffMedia(await readHead(toFile, SNIFF_BYTES));
  if (!format || !UPLOAD_FORMATS.has(format)) {
    throw new ServiceError(
      'UNSUPPORTED_MEDIA',
      format ? `the file is ${format}, which is not an allowed upload type` : 'the first bytes of the file match no audio or video format',
    );
  }
  if (!formatMatchesType(format, declared.contentType)) {
    throw new ServiceError('UNSUPPORTED_MEDIA', `the file is ${format}, not ${mediaTypeEssence(declared.contentType)} as declared`);
  }
  return { format };
}

function assertDeclaredSize(size: number, declared: number): void {
  if (size !== declared)
    throw new ServiceError('INVALID_MEDIA', `uploaded ${size} bytes but ${declared} were declared; upload the whole file again`);
}

async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
