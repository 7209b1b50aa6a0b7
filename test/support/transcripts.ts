import { randomUUID } from 'node:crypto';
import type { Db } from '../../domain/db';
import { indexTranscript } from '../../domain/search/index';

export interface TestSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string | null;
  language?: string | null;
}

/**
 * A published transcript as a finished job leaves it (its text the segments', retained a day), indexed for search
 * as the job workflow's step indexes it unless `index: false` (a transcript written before the index). Its id.
 */
export async function publishedTranscript(
  db: Db,
  workspaceId: string,
  segments: TestSegment[],
  opts: { language?: string; platform?: 'videosite' | 'upload'; mediaId?: string; title?: string; index?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  const platform = opts.platform ?? 'videosite';
  const mediaId = opts.mediaId ?? (platform === 'upload' ? randomUUID() : 'rCAS2eD-mcw');
  await db.transcript.create({
    data: {
      id,
      workspaceId,
      jobId: randomUUID(),
      reuseKey: randomUUID(),
      platform,
      mediaId,
      canonicalUrl: platform === 'videosite' ? `https://www.youtube.com/watch?v=${mediaId}` : null,
      title: opts.title ?? 'A talk',
      sourceOrigin: 'speech_recognition',
      language: opts.language ?? 'en',
      text: segments.map((s) => s.text).join(' '),
      segments: segments.map((s) => ({ speaker: null, language: null, match: null, ...s })),
      timingGranularity: 'segment',
      extractionVersion: 'test',
      publishedAt: new Date(),
      expiresAt: new Date(Date.now() + 86400_000),
    },
  });
  if (opts.index !== false) await indexTranscript(db, id);
  return id;
}
