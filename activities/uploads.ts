import path from 'node:path';
import { jsonColumn, type Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { asActivity } from './failures';
import { probeMedia } from '../integrations/media/probe';
import { verifyStoredUpload, type ObjectStore } from '../integrations/storage';
import { withScratchDir } from '../integrations/scratch';
import { verifiedUploadKey } from '../domain/uploads/keys';

export function createUploadActivities(db: Db, store: ObjectStore) {
  return {
    /**
     * Verifies a finished upload: present, exact size, declared type, content
     * sniffed as audio/video, readable with audio, at most 2 hours. Marks it
     * `ready`, or `failed` with the error (and removes the file) — never half.
     *
     * The bytes verified are the bytes kept: the object at the signed URL is copied here once, checked, and that
     * copy is stored under the upload's verified key, which no signed URL names. A PUT to the signed URL after
     * completion (S3 accepts it; the local store refuses it) cannot replace what jobs, the player and media links read.
     */
    async verifyUpload(uploadId: string): Promise<{ status: string }> {
      const upload = await db.upload.findUniqueOrThrow({ where: { id: uploadId } });
      if (upload.status !== 'verifying' && upload.status !== 'pending') return { status: upload.status };
      return withScratchDir('upload-', (dir) =>
        asActivity(async () => {
          try {
            const file = path.join(dir, 'media');
            await verifyStoredUpload(store, upload.objectKey, { bytes: upload.bytes, contentType: upload.contentType }, file);
            const info = await probeMedia(file);
            const verifiedKey = verifiedUploadKey(upload.workspaceId, upload.id);
            await store.put(verifiedKey, file, upload.contentType);
            await db.upload.update({
              where: { id: uploadId },
              data: { status: 'ready', objectKey: verifiedKey, durationMs: info.durationMs, completedAt: new Date() },
            });
            // The file at the signed URL is a copy now; a retry after this point finds the upload ready.
            await store.delete(upload.objectKey).catch(() => undefined);
            return { status: 'ready' };
          } catch (err) {
            // Nothing uploaded yet is not a verdict on the file: the slot goes back to pending.
            if (err instanceof ServiceError && err.code === 'CONFLICT') {
              await db.upload.updateMany({ where: { id: uploadId, status: 'verifying' }, data: { status: 'pending' } });
            } else if (err instanceof ServiceError && !err.retryable) {
              await db.upload.update({
                where: { id: uploadId },
                data: { status: 'failed', error: jsonColumn(err.toObject()), completedAt: new Date() },
              });
              await store.delete(upload.objectKey).catch(() => undefined);
            }
            throw err;
          }
        }),
      );
    },

    /** A verification that could not finish (storage down past its retries) leaves the slot completable again. */
    async reopenUpload(uploadId: string): Promise<void> {
      await db.upload.updateMany({ where: { id: uploadId, status: 'verifying' }, data: { status: 'pending' } });
    },
  };
}
