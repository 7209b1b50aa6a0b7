import { ServiceError } from '../../core/errors';
import { MAX_MEDIA_BYTES, mediaTypeEssence, sameMediaType, type ObjectStore } from './object-store';
import { formatMatchesType, sniffMedia, SNIFF_BYTES, UPLOAD_FORMATS, type MediaFormat } from './sniff-media';

/**
 * The completion check of an upload (POST /v1/uploads/{id}/complete): the
 * stored object must have exactly the declared size and Content-Type, and its
 * first bytes must be a media format allowed for uploads that fits that type.
 * Needed because a presigned S3 PUT accepts any body and any Content-Type.
 * Duration and audio track are for ffprobe afterwards.
 */
export async function verifyStoredUpload(
  store: ObjectStore,
  key: string,
  declared: { bytes: number; contentType: string },
): Promise<{ format: MediaFormat }> {
  const stat = await store.stat(key);
  if (!stat) throw new ServiceError('CONFLICT', 'no file has been uploaded to the signed URL yet');
  if (stat.size > MAX_MEDIA_BYTES) throw new ServiceError('FILE_TOO_LARGE', `uploaded ${stat.size} bytes; the limit is ${MAX_MEDIA_BYTES}`);
  if (stat.size !== declared.bytes) {
    throw new ServiceError('INVALID_MEDIA', `uploaded ${stat.size} bytes but ${declared.bytes} were declared; upload the whole file again`);
  }
  if (!sameMediaType(stat.contentType, declared.contentType)) {
    throw new ServiceError(
      'UNSUPPORTED_MEDIA',
      `uploaded with Content-Type ${mediaTypeEssence(stat.contentType)} but ${mediaTypeEssence(declared.contentType)} was declared`,
    );
  }
  const format = sniffMedia(await store.readRange(key, 0, SNIFF_BYTES));
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
