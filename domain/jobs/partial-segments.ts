import type { Job } from '../../prisma/generated/client';
import { ServiceError } from '../../core/errors';
import type { Segment } from '../../core/timing';
import type { Db } from '../db';
import type { JobSpec } from '../schemas/jobs';
import type { EntityTagger } from '../transcripts/redaction';
import { cleanedAsAsked } from './state';
import { isFinal, progressOf, toJobView, type JobProgressView, type JobView } from './view';
import { JOB_PROGRESS_CHANNEL, type JobWakeups } from './wakeups';

// Growing transcripts. A long AI job is recognised as pieces cut at pauses (integrations/media/split.ts); as soon
// as a piece and every piece before it are recognised, the job's workflow publishes that piece's segments here,
// numbered in time order (seq 1, 2, …), cleaned and redacted as the job asked, so nothing unredacted is ever
// stored. Partial segments carry no speaker (voices are clustered over the whole recording at the end) and the
// language their piece was heard in; the job's transcript, written when it ends, is the settled answer and is
// the same as it would have been without this. The rows are removed in the statement that finishes the job.

/** Segments answered by one read: a client that is further behind asks again from `next_after`. */
export const SEGMENTS_PAGE_LIMIT = 500;

export interface PartialSegmentView {
  seq: number;
  start: number;
  end: number;
  text: string;
  speaker: null;
  language: string | null;
}

/**
 * The segments of one recognised piece as a running job may show them: cleaned and redacted as `spec` asks. Null
 * when they may not be shown at all (names, addresses or IDs asked to be redacted in a language the redaction does not cover: the
 * job will fail with that error at the end, and until then nothing of it is published).
 */
export async function partialSegmentsOf(
  spec: JobSpec,
  piece: { language: string | null; text: string; segments: Segment[] },
  tagger: EntityTagger | null,
): Promise<Array<Pick<PartialSegmentView, 'start' | 'end' | 'text' | 'language'>> | null> {
  let shown;
  try {
    shown = await cleanedAsAsked(spec, { ...piece, words: null }, tagger);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'CAPABILITY_UNAVAILABLE') return null;
    throw err;
  }
  return shown.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, language: s.language ?? piece.language ?? null }));
}

/**
 * Publishes piece `piece` (ending at `pieceEndMs` in the media) with its segments, once: pieces come in time order,
 * so a piece whose end is already counted in `transcribed_ms` was published by an earlier attempt. Nothing is
 * published for a finished job. Wakes the readers of the job's segments on commit.
 */
export async function publishPieceSegments(
  db: Db,
  jobId: string,
  piece: number,
  pieceEndMs: number,
  segments: ReadonlyArray<Pick<PartialSegmentView, 'start' | 'end' | 'text' | 'language'>>,
): Promise<{ published: number }> {
  return db.$transaction(async (tx) => {
    // The row lock orders this against the job's end (which deletes the segments) and against a retried publish.
    const rows = await tx.$queryRaw<Array<{ status: string; transcribed_ms: number }>>`
      SELECT status::text AS status, transcribed_ms FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
    const job = rows[0];
    if (!job || isFinal(job.status) || job.transcribed_ms >= pieceEndMs) return { published: 0 };
    const last = await tx.jobSegment.aggregate({ where: { jobId }, _max: { seq: true } });
    const base = last._max.seq ?? 0;
    await tx.jobSegment.createMany({
      data: segments.map((s, i) => ({ jobId, seq: base + i + 1, piece, start: s.start, end: s.end, text: s.text, language: s.language })),
    });
    await tx.$executeRaw`
      WITH notified AS (SELECT pg_notify(${JOB_PROGRESS_CHANNEL}, ${jobId}))
      UPDATE jobs SET transcribed_ms = ${pieceEndMs} FROM notified WHERE id = ${jobId}::uuid`;
    return { published: segments.length };
  });
}

export interface JobSegmentsPage {
  job_id: string;
  status: JobView['status'];
  result_id: string | null;
  progress: JobProgressView | null;
  segments: PartialSegmentView[];
  next_after: number;
}

/** The job's published segments after `after`, at most SEGMENTS_PAGE_LIMIT; NOT_FOUND outside its workspace. */
export async function readJobSegments(db: Db, workspaceId: string, jobId: string, after: number): Promise<JobSegmentsPage & { job: Job }> {
  const job = await db.job.findFirst({ where: { id: jobId, workspaceId } });
  if (!job) throw new ServiceError('NOT_FOUND', 'id', { message: 'No job with this id in this workspace.' });
  const rows = isFinal(job.status)
    ? []
    : await db.jobSegment.findMany({ where: { jobId, seq: { gt: after } }, orderBy: { seq: 'asc' }, take: SEGMENTS_PAGE_LIMIT });
  const segments = rows.map((r) => ({ seq: r.seq, start: r.start, end: r.end, text: r.text, speaker: null, language: r.language }));
  return {
    job,
    job_id: job.id,
    status: job.status,
    result_id: job.resultId,
    progress: progressOf(job),
    segments,
    next_after: segments.at(-1)?.seq ?? after,
  };
}

/**
 * GET /v1/jobs/{id}/segments?after=N&wait=S: answers at once when there are segments after N or the job is final;
 * otherwise waits up to S seconds for the next piece's segments or the job's end (woken by their NOTIFY, on any API
 * instance; registered before the read, so nothing published in between is missed).
 */
export async function waitForJobSegments(
  db: Db,
  wakeups: JobWakeups,
  workspaceId: string,
  jobId: string,
  after: number,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<JobSegmentsPage> {
  const sub = waitSeconds > 0 ? wakeups.subscribe(jobId, { progress: true }) : null;
  try {
    const first = await readJobSegments(db, workspaceId, jobId, after);
    if (!sub || first.segments.length > 0 || isFinal(first.status)) return pageOnly(first);
    await sub.wait(waitSeconds * 1000, signal);
    return pageOnly(await readJobSegments(db, workspaceId, jobId, after));
  } finally {
    sub?.cancel();
  }
}

const pageOnly = ({ job: _job, ...page }: JobSegmentsPage & { job: Job }): JobSegmentsPage => page;

export type JobStreamEvent =
  | { event: 'segment'; id: string; data: PartialSegmentView }
  | { event: 'progress'; data: JobProgressView }
  | { event: 'job'; data: JobView }
  | { comment: string };

/** How long one event stream stays open before the server ends it (the client reconnects with Last-Event-ID). */
export const EVENT_STREAM_MAX_MS = 10 * 60_000;
/** A comment this often keeps proxies from closing a quiet stream. */
export const EVENT_STREAM_KEEPALIVE_MS = 15_000;

/**
 * GET /v1/jobs/{id}/events: the job's segments after `after` as they are published (`segment`, id = seq), its
 * progress when it changes, and the job itself once final (`job`, then the stream ends). Ends also when `signal`
 * aborts or after `maxMs`.
 */
export async function* jobEvents(
  db: Db,
  wakeups: JobWakeups,
  workspaceId: string,
  jobId: string,
  after: number,
  signal: AbortSignal,
  opts: { maxMs?: number; keepaliveMs?: number } = {},
): AsyncGenerator<JobStreamEvent> {
  const endsAt = Date.now() + (opts.maxMs ?? EVENT_STREAM_MAX_MS);
  let lastProgress = '';
  while (!signal.aborted) {
    const sub = wakeups.subscribe(jobId, { progress: true });
    try {
      const page = await readJobSegments(db, workspaceId, jobId, after);
      for (const s of page.segments) yield { event: 'segment', id: String(s.seq), data: s };
      after = page.next_after;
      const progress = JSON.stringify(page.progress);
      if (page.progress && progress !== lastProgress) yield { event: 'progress', data: page.progress };
      lastProgress = progress;
      if (isFinal(page.status)) {
        yield { event: 'job', data: toJobView(page.job) };
        return;
      }
      // A full page: read on at once.
      if (page.segments.length === SEGMENTS_PAGE_LIMIT) continue;
      const left = endsAt - Date.now();
      if (left <= 0) return;
      const woken = await sub.wait(Math.min(left, opts.keepaliveMs ?? EVENT_STREAM_KEEPALIVE_MS), signal);
      if (!woken && !signal.aborted) yield { comment: 'keep-alive' };
    } finally {
      sub.cancel();
    }
  }
}
