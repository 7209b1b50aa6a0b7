import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import type { ObjectStore } from '../../integrations/storage';
import { UPLOAD_URL_TTL_SECONDS } from '../../integrations/storage';
import { transcriptionCredits } from '../../core/plans';
import { timeoutOrAbort } from '../../core/waiting';
import type { Upload } from '../../prisma/generated/client';
import { workflowIds } from '../../workflows/definitions';
import { startUploadVerification } from '../workflow-starts';
import type { Db } from '../db';
import { uploadObjectKey } from './keys';
import { isErrorCode, ServiceError, type ErrorObject } from '../../core/errors';

// Upload statuses: `pending` (slot reserved, waiting for the file and the
// completion call), `verifying` (completion called; a worker is checking the
// file), `ready` (verified: usable as a job source), `failed`
// (verification refused the file; reserve a new slot), `expired` (the 24-hour
// slot lapsed before completion).

export const UPLOAD_STATUSES = ['pending', 'verifying', 'ready', 'failed', 'expired'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

export function toUploadView(u: Upload, signedUrl: string | null = null) {
  const expired = u.status === 'pending' && u.expiresAt <= new Date();
  return {
    id: u.id,
    status: (expired ? 'expired' : u.status) as UploadStatus,
    filename: u.filename,
    content_type: u.contentType,
    bytes: u.bytes,
    signed_upload_url: signedUrl,
    expires_at: u.expiresAt.toISOString(),
    duration_ms: u.durationMs,
    error: (u.error as ErrorObject | null) ?? null,
    created_at: u.createdAt.toISOString(),
    completed_at: u.completedAt?.toISOString() ?? null,
  };
}

/** POST /v1/uploads: a slot and a signed PUT URL valid 24 hours. */
export async function reserveUpload(
  db: Db,
  store: ObjectStore,
  workspaceId: string,
  input: { filename: string; content_type: string; bytes: number },
) {
  const id = randomUUID();
  const objectKey = uploadObjectKey(workspaceId, id);
  let url: string;
  try {
    url = await store.presignPut(objectKey, {
      contentType: input.content_type,
      bytes: input.bytes,
      expiresSeconds: UPLOAD_URL_TTL_SECONDS,
    });
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError('STORAGE_UNAVAILABLE', 'storage', { cause: err });
  }
  const row = await db.upload.create({
    data: {
      id,
      workspaceId,
      filename: input.filename,
      contentType: input.content_type,
      bytes: input.bytes,
      objectKey,
      status: 'pending',
      expiresAt: new Date(Date.now() + UPLOAD_URL_TTL_SECONDS * 1000),
    },
  });
  return toUploadView(row, url);
}

/** GET /v1/uploads/{id}: the upload as it stands (poll it after a 202 from completion). */
export async function getUpload(db: Db, workspaceId: string, id: string) {
  const upload = await db.upload.findFirst({ where: { id, workspaceId } });
  if (!upload) throw new ServiceError('NOT_FOUND', 'id', { message: 'No upload with this id in this workspace.' });
  return toUploadView(upload);
}

export type CompletionResult = { status: 200 | 202; upload: ReturnType<typeof toUploadView> };

/**
 * POST /v1/uploads/{id}/complete: the worker verifies the stored file (size,
 * type, content sniffed, duration) in a workflow named after the upload, so a
 * second concurrent completion joins the same verification instead of racing
 * it. The request waits at most `waitMs`: a verification still running then
 * answers 202 with the upload `verifying` (poll GET /v1/uploads/{id}, or
 * complete again, which joins the same verification).
 */
export async function completeUpload(
  db: Db,
  temporal: Client,
  taskQueue: string,
  workspaceId: string,
  id: string,
  waitMs: number,
  /** Ends the wait early (the client went away, the process is stopping): 202 with the upload verifying. */
  signal?: AbortSignal,
): Promise<CompletionResult> {
  const upload = await db.upload.findFirst({ where: { id, workspaceId } });
  if (!upload) throw new ServiceError('NOT_FOUND', 'id', { message: 'No upload with this id in this workspace.' });
  if (upload.status === 'ready') throw new ServiceError('CONFLICT', 'status=ready', { message: 'This upload was already completed.' });
  if (upload.status === 'failed')
    throw new ServiceError('CONFLICT', 'status=failed', { message: 'This upload failed verification; reserve a new slot.' });
  if (upload.status === 'pending' && upload.expiresAt <= new Date()) {
    await db.upload.updateMany({ where: { id, status: 'pending' }, data: { status: 'expired' } });
    throw new ServiceError('CONFLICT', 'expires_at', { message: 'The 24-hour upload slot expired; reserve a new one.' });
  }
  if (upload.status === 'expired')
    throw new ServiceError('CONFLICT', 'expires_at', { message: 'The 24-hour upload slot expired; reserve a new one.' });
  // Committed first, started second: a lost start is made up by the starter (domain/workflow-starts.ts).
  await db.upload.updateMany({ where: { id, status: 'pending' }, data: { status: 'verifying', verificationRequestedAt: new Date() } });
  await temporal.withDeadline(Date.now() + waitMs, () => startUploadVerification({ temporal, taskQueue }, id));
  const handle = temporal.workflow.getHandle(workflowIds.uploadVerify(id));
  const verdict = await waitAtMost(handle.result(), waitMs, signal);
  if (verdict.kind === 'timeout') return { status: 202, upload: toUploadView(await db.upload.findUniqueOrThrow({ where: { id } })) };
  if (verdict.kind === 'failed') {
    const err = verdict.error;
    // workflow failure ← activity failure ← the catalogue error the activity threw
    let cause: unknown = err instanceof WorkflowFailedError ? err.cause : undefined;
    while (cause && !(cause instanceof ApplicationFailure)) cause = (cause as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
      throw new ServiceError(cause.type, (cause.details?.[0] as string | undefined) ?? 'file', { message: cause.message });
    }
    throw err;
  }
  const after = await db.upload.findUniqueOrThrow({ where: { id } });
  if (after.status !== 'ready') {
    const e = after.error as ErrorObject | null;
    throw new ServiceError(e?.code ?? 'INVALID_MEDIA', e?.details?.detail ?? 'file', { message: e?.message });
  }
  return { status: 200, upload: toUploadView(after) };
}

type Verdict<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'timeout' };

async function waitAtMost<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<Verdict<T>> {
  const limit = timeoutOrAbort(ms, signal);
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ kind: 'done', value }) as const,
        (error) => ({ kind: 'failed', error }) as const,
      ),
      limit.ended.then(() => ({ kind: 'timeout' }) as const),
    ]);
  } finally {
    limit.stop();
  }
}

/**
 * The price of AI transcription of a ready upload, before any job is submitted (the dashboard's
 * playground shows it and fills `max_credits` with it): the measured duration at the documented rate.
 */
export async function quoteUploadTranscription(db: Db, workspaceId: string, id: string) {
  const upload = await db.upload.findFirst({ where: { id, workspaceId } });
  if (!upload) throw new ServiceError('NOT_FOUND', 'upload_id', { message: 'No upload with this id in this workspace.' });
  if (upload.status !== 'ready' || upload.durationMs === null)
    throw new ServiceError('CONFLICT', `status=${upload.status}`, { message: 'The upload is not verified yet: complete it first.' });
  return { upload_id: upload.id, duration_ms: upload.durationMs, credits: transcriptionCredits(upload.durationMs) };
}
