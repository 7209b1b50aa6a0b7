import type { PLATFORMS } from '../schemas/jobs';
import { signPayload, verifyPayload } from '../accounts/secrets';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';
import type { JobWakeups } from './wakeups';
import { isFinal, toJobView, type JobView } from './view';

export async function getJob(db: Db, workspaceId: string, jobId: string): Promise<JobView> {
  const job = await db.job.findFirst({ where: { id: jobId, workspaceId } });
  if (!job) throw new ServiceError('NOT_FOUND', 'id', { message: 'No job with this id in this workspace.' });
  return toJobView(job);
}

/**
 * GET /v1/jobs/{id}?wait=N. The waiter is registered before the state is read,
 * so a completion between the read and the wait still wakes it. It is woken by
 * the NOTIFY the finalize step sends, on whichever API instance it waits.
 */
export async function waitForJob(
  db: Db,
  wakeups: JobWakeups,
  workspaceId: string,
  jobId: string,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<JobView> {
  if (waitSeconds <= 0) return getJob(db, workspaceId, jobId);
  const sub = wakeups.subscribe(jobId);
  try {
    const first = await getJob(db, workspaceId, jobId);
    if (isFinal(first.status)) return first;
    // Woken or timed out, the answer is the job as it is now.
    await sub.wait(waitSeconds * 1000, signal);
    return getJob(db, workspaceId, jobId);
  } finally {
    sub.cancel();
  }
}

interface Cursor {
  c: string; // created_at ISO
  i: string; // id
}

export async function listJobs(
  db: Db,
  secretsKey: string,
  workspaceId: string,
  q: { cursor?: string; limit: number; platform?: (typeof PLATFORMS)[number]; source_id?: string; status?: JobView['status'] },
): Promise<{ jobs: JobView[]; next_cursor: string | null }> {
  let after: Cursor | null = null;
  if (q.cursor) {
    after = verifyPayload<Cursor>(q.cursor, secretsKey);
    if (!after || typeof after.c !== 'string' || typeof after.i !== 'string' || Number.isNaN(Date.parse(after.c))) {
      throw new ServiceError('INVALID_REQUEST', 'cursor', {
        message: 'The cursor is malformed or was altered; start from the first page.',
      });
    }
  }
  const createdAt = after ? new Date(after.c) : null;
  const rows = await db.job.findMany({
    where: {
      workspaceId,
      // The REST list gives platform with source_id; the dashboard filters by platform alone, and by status.
      ...(q.platform ? { platform: q.platform, ...(q.source_id !== undefined ? { mediaId: q.source_id } : {}) } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(after ? { OR: [{ createdAt: { lt: createdAt! } }, { createdAt: createdAt!, id: { lt: after.i } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    jobs: page.map(toJobView),
    next_cursor: rows.length > q.limit && last ? signPayload({ c: last.createdAt.toISOString(), i: last.id }, secretsKey) : null,
  };
}
