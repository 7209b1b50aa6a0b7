import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import type { Transcript } from '../../prisma/generated/client';
import { TRANSCRIPT_PURGE_WORKFLOW, workflowIds } from '../../workflows/definitions';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';
import { exportTranscript, type CaptionLayout, type ExportFormat } from './export';
import { spokenSeconds } from '../../integrations/recognizers/result';

/** Visible: published by its job, not deleted, inside its retention window. Anything else is gone. */
export const visible = (workspaceId: string, id: string) => ({
  id,
  workspaceId,
  publishedAt: { not: null },
  deletedAt: null,
  expiresAt: { gt: new Date() },
});

type StoredSegment = { start: number; end: number; text: string; speaker?: string | null; language?: string | null; match?: number | null };
type StoredWord = { start: number; end: number; text: string; confidence: number; speaker?: string | null };

/** How an aligned transcript got its word times (transcripts.alignment). */
export interface TranscriptAlignment {
  method: 'word_timing' | 'align_text';
  model: string;
  match_threshold: number;
  segments_below_threshold: number;
}

export function toTranscriptView(t: Transcript) {
  const stored = t.segments as StoredSegment[];
  const segments = stored.map((s) => ({
    start: s.start,
    end: s.end,
    text: s.text,
    speaker: s.speaker ?? null,
    language: s.language ?? t.language,
    match: s.match ?? null,
  }));
  const words = t.words as StoredWord[] | null;
  return {
    id: t.id,
    source: { platform: t.platform, media_id: t.mediaId, canonical_url: t.canonicalUrl, title: t.title },
    source_origin: t.sourceOrigin,
    language: t.language,
    text: t.text,
    segments,
    words: words?.map((w) => ({ start: w.start, end: w.end, text: w.text, confidence: w.confidence, speaker: w.speaker ?? null })) ?? null,
    timing_granularity: t.timingGranularity as 'word' | 'segment' | 'none',
    duration_seconds: t.durationSeconds,
    speakers: (t.speakers as { id: string; words: number; seconds: number }[] | null) ?? null,
    caption_language_check:
      (t.captionLanguageCheck as { label: string | null; detected: string | null; matches: boolean | null } | null) ?? null,
    // Transcripts stored before languages were measured, and caption tracks: their one language over their segments.
    languages:
      (t.languages as { language: string; seconds: number }[] | null) ??
      (t.language ? [{ language: t.language, seconds: spokenSeconds(segments) }] : []),
    recognition:
      (t.recognition as {
        model: string;
        profile: 'standard' | 'fast';
        quality_status: 'validated_language' | 'provider_supported' | 'experimental_language';
        language_probability?: number | null;
      } | null) ?? null,
    alignment: (t.alignment as TranscriptAlignment | null) ?? null,
    extraction_version: t.extractionVersion,
    created_at: (t.publishedAt ?? t.createdAt).toISOString(),
    expires_at: t.expiresAt.toISOString(),
  };
}
export type TranscriptView = ReturnType<typeof toTranscriptView>;

export async function getTranscript(db: Db, workspaceId: string, id: string): Promise<TranscriptView> {
  const t = await db.transcript.findFirst({ where: visible(workspaceId, id) });
  if (!t) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  return toTranscriptView(t);
}

export async function exportTranscriptFile(db: Db, workspaceId: string, id: string, format: ExportFormat, layout: CaptionLayout = {}) {
  return exportTranscript(await getTranscript(db, workspaceId, id), format, layout);
}

/**
 * DELETE: hidden at once (and so no longer reusable), then purged by a durable
 * Temporal workflow that removes the stored text and timing.
 */
export async function deleteTranscript(db: Db, temporal: Client, taskQueue: string, workspaceId: string, id: string) {
  const res = await db.transcript.updateMany({ where: visible(workspaceId, id), data: { deletedAt: new Date() } });
  if (res.count === 0) throw new ServiceError('NOT_FOUND', 'id', { message: 'No transcript with this id in this workspace.' });
  await temporal.workflow.start(TRANSCRIPT_PURGE_WORKFLOW, {
    taskQueue,
    workflowId: workflowIds.transcriptPurge(id),
    args: [id],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  return { id, status: 'deletion_scheduled' as const, purge_after: new Date().toISOString() };
}
