import { randomUUID } from 'node:crypto';
import type { Prisma } from '../prisma/generated/client';
import type { Db } from '../domain/db';
import { ACTIVE_STATUSES } from '../domain/jobs/view';

/** The content a pipeline produced; the source fields come from the job. */
export interface TranscriptContent {
  title: string | null;
  sourceOrigin: 'creator_captions' | 'platform_captions' | 'speech_recognition';
  language: string | null;
  text: string;
  segments: { start: number; end: number; text: string }[];
  words: { start: number; end: number; text: string; confidence: number }[] | null;
  timingGranularity: 'word' | 'segment' | 'none';
  durationSeconds: number | null;
  recognition: { model: string; profile: 'standard'; quality_status: string; language_probability?: number | null } | null;
  extractionVersion: string;
}

/**
 * Stores the job's transcript, unpublished (invisible) until completeJob
 * publishes it in the transaction that charges the hold, and moves the job to
 * stage finalize. Upserts on the job id, so a retried step overwrites instead
 * of duplicating.
 */
export async function saveDraftTranscript(db: Db, jobId: string, content: TranscriptContent): Promise<string> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  const data = {
    workspaceId: job.workspaceId,
    reuseKey: job.reuseKey,
    platform: job.platform,
    mediaId: job.mediaId,
    canonicalUrl: job.canonicalUrl,
    title: content.title ?? job.title,
    sourceOrigin: content.sourceOrigin,
    language: content.language,
    text: content.text,
    segments: content.segments as unknown as Prisma.InputJsonValue,
    words: (content.words ?? undefined) as unknown as Prisma.InputJsonValue | undefined,
    timingGranularity: content.timingGranularity,
    durationSeconds: content.durationSeconds,
    recognition: (content.recognition ?? undefined) as Prisma.InputJsonValue | undefined,
    extractionVersion: content.extractionVersion,
    // Replaced by the retention window when published.
    expiresAt: new Date(Date.now() + 86400_000),
  };
  const t = await db.transcript.upsert({
    where: { jobId },
    create: { id: randomUUID(), jobId, ...data },
    update: data,
    select: { id: true },
  });
  // The result is stored: what remains is committing it, so the job shows stage finalize from here
  // (written with the title, no step of its own).
  await db.job.updateMany({
    where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } },
    data: { stage: 'finalize', ...(content.title && content.title !== job.title ? { title: content.title } : {}) },
  });
  return t.id;
}
