import type { Client } from '@temporalio/client';
import { startWorkflowOnce } from '../../integrations/temporal-starts';
import { TRANSCRIPT_PURGE_WORKFLOW, workflowIds } from '../../workflows/definitions';
import type { Db } from '../db';
import { removeTranscriptMoments } from '../search/index';
import { ServiceError } from '../../core/errors';
import type { ObjectStore } from '../../integrations/storage/object-store';
import {
  contentDisposition,
  exportFilenames,
  exportServedJson,
  exportTranscript,
  type CaptionLayout,
  type ExportFormat,
  type ExportNaming,
} from './export';
import type { StoredRedactedAudio } from './redacted-audio';
import { toTranscriptView, transcriptJson, type TranscriptView } from './view';

export { toTranscriptView, type TranscriptAlignment, type TranscriptView } from './view';

/** Visible: published by its job, not deleted, inside its retention window. Anything else is gone. */
export const visible = (workspaceId: string, id: string) => ({
  id,
  workspaceId,
  publishedAt: { not: null },
  deletedAt: null,
  expiresAt: { gt: new Date() },
});

export async function getTranscript(db: Db, workspaceId: string, id: string): Promise<TranscriptView> {
  const t = await db.transcript.findFirst({ where: visible(workspaceId, id) });
  if (!t) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  return toTranscriptView(t);
}

/**
 * The transcript's JSON, as GET /v1/transcripts/{id} answers it: its stored rendering closed with its id
 * and times, or, for a transcript written before renderings, its view serialised now.
 */
export async function getTranscriptJson(db: Db, workspaceId: string, id: string): Promise<{ json: string; naming: ExportNaming }> {
  const t = await db.transcript.findFirst({
    where: visible(workspaceId, id),
    select: { id: true, title: true, publishedAt: true, createdAt: true, expiresAt: true, rendering: { select: { body: true } } },
  });
  if (!t) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  const naming = { id: t.id, source: { title: t.title } };
  if (t.rendering) return { json: transcriptJson(t.rendering.body, t), naming };
  return { json: JSON.stringify(await getTranscript(db, workspaceId, id)), naming };
}

export async function exportTranscriptFile(db: Db, workspaceId: string, id: string, format: ExportFormat, layout: CaptionLayout = {}) {
  if (format === 'json') {
    const { json, naming } = await getTranscriptJson(db, workspaceId, id);
    return exportServedJson(json, naming);
  }
  return exportTranscript(await getTranscript(db, workspaceId, id), format, layout);
}

/**
 * GET /v1/transcripts/{id}/redacted-audio: the copy with a tone over the redacted words, whole, named as the
 * exports are (`<title>-<id8>.redacted.ogg`). NOT_FOUND naming `redacted_audio` when the job asked for none.
 */
export async function redactedAudioFile(db: Db, store: ObjectStore, workspaceId: string, id: string) {
  const t = await db.transcript.findFirst({ where: visible(workspaceId, id), select: { id: true, title: true, redactedAudio: true } });
  if (!t) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  const audio = t.redactedAudio as StoredRedactedAudio | null;
  const body = audio ? await store.readRange(audio.key, 0, audio.bytes) : null;
  if (!audio || !body || body.length === 0)
    throw new ServiceError('NOT_FOUND', 'redacted_audio', {
      message: 'This transcript has no redacted audio: its job did not ask for redacted_audio.',
    });
  const names = exportFilenames({ id: t.id, source: { title: t.title } }, 'txt');
  const rename = (n: string) => n.replace(/\.txt$/, '.redacted.ogg');
  return {
    body,
    contentType: audio.content_type,
    contentDisposition: contentDisposition(rename(names.ascii), names.unicode && rename(names.unicode)),
  };
}

/**
 * DELETE: hidden at once (and so no longer reusable), then purged by a durable
 * Temporal workflow that removes the stored text and timing.
 */
export async function deleteTranscript(db: Db, temporal: Client, taskQueue: string, workspaceId: string, id: string) {
  // Hidden and out of search in one transaction (search also skips deleted transcripts; this frees their rows now).
  const [res] = await db.$transaction([
    db.transcript.updateMany({ where: visible(workspaceId, id), data: { deletedAt: new Date() } }),
    removeTranscriptMoments(db, id, workspaceId),
  ]);
  if (res.count === 0) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  await startWorkflowOnce(temporal, taskQueue, TRANSCRIPT_PURGE_WORKFLOW, {
    workflowId: workflowIds.transcriptPurge(id),
    args: [id],
    restartAfterClose: true,
  });
  return { id, status: 'deletion_scheduled' as const, purge_after: new Date().toISOString() };
}
