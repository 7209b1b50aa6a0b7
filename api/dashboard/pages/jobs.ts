import { randomUUID } from 'node:crypto';
import { ServiceError } from '../../../core/errors';
import { getJob, listJobs } from '../../../domain/jobs/read';
import { IdParams } from '../../../domain/schemas/common';
import { JOB_STATUSES, PLATFORMS } from '../../../domain/schemas/jobs';
import { transcriptMedia, transcriptMediaById } from '../../../domain/transcripts/media';
import { getTranscript } from '../../../domain/transcripts/read';
import type { StoredRedactedAudio } from '../../../domain/transcripts/redacted-audio';
import { sendStoredMedia } from '../../http/media-range';
import { parseInput } from '../../http/parse-input';
import { cancelRoute, retryRoute } from '../../routes/jobs';
import { deleteTranscriptRoute } from '../../routes/transcripts';
import { nonEmpty, noticeOf, redirect, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession, writeSession } from '../session';
import { jobBody, jobsBody } from '../views-jobs';
import { transcriptBody } from '../views-transcript';

/** Jobs (list, one job, cancel, retry) and their transcripts (page, media for the player, delete). */
export function mountJobPages(pages: Pages): void {
  const { deps } = pages;
  pages.get('/dashboard/jobs', async (req, res) => {
    const s = await pageSession(req, deps);
    const status = (JOB_STATUSES as readonly string[]).includes(str(req.query.status) ?? '')
      ? (req.query.status as (typeof JOB_STATUSES)[number])
      : undefined;
    const platform = PLATFORMS.find((p) => p === str(req.query.platform));
    const cursor = nonEmpty(req.query.cursor);
    const limit = /^\d{1,3}$/.test(str(req.query.limit) ?? '') ? Math.min(100, Math.max(1, Number(req.query.limit))) : 20;
    const [list, email] = await Promise.all([
      listJobs(deps.db, deps.secretsKey, s.principal.workspaceId, { limit, status, platform, cursor }),
      pages.emailOf(s),
    ]);
    send(
      res,
      200,
      page({
        title: 'Jobs',
        session: pages.shell(s, 'jobs', email),
        notice: noticeOf(req),
        body: jobsBody(list.jobs, { status, platform, ...(limit !== 20 ? { limit: String(limit) } : {}) }, list.next_cursor, !cursor),
      }),
    );
  });
  pages.get('/dashboard/jobs/:id', async (req, res) => {
    const s = await pageSession(req, deps);
    const { id } = parseInput(IdParams, req.params, 'params');
    const [job, email] = await Promise.all([getJob(deps.db, s.principal.workspaceId, id), pages.emailOf(s)]);
    send(
      res,
      200,
      page({
        title: 'Job',
        session: pages.shell(s, 'jobs', email),
        notice: noticeOf(req),
        body: jobBody(job, s.csrf, `dashboard-retry-${randomUUID()}`),
      }),
    );
  });
  pages.idAction(
    '/dashboard/jobs/:id/cancel',
    cancelRoute,
    (id, reply) => `/dashboard/jobs/${id}?done=${reply.status === 200 ? 'cancelled' : 'cancel_pending'}`,
  );
  pages.post('/dashboard/jobs/:id/retry', async (req, res) => {
    const s = await writeSession(req, deps);
    // The form's key makes a double submit one retry, as an Idempotency-Key does on POST /v1/jobs/{id}/retry,
    // and a replay of it is answered at the rate limit as there.
    const reply = await pages.callRoute(retryRoute, s, req, res, {
      params: req.params,
      body: {},
      idempotencyKey: { value: str(req.body?.idempotency_key), field: 'idempotency_key' },
    });
    redirect(res, `/dashboard/jobs/${(reply.body as { id: string }).id}?done=retried`);
  });

  pages.get('/dashboard/transcripts/:id', async (req, res) => {
    const s = await pageSession(req, deps);
    const { id } = parseInput(IdParams, req.params, 'params');
    const [t, email] = await Promise.all([getTranscript(deps.db, s.principal.workspaceId, id), pages.emailOf(s)]);
    send(
      res,
      200,
      page({
        title: t.source.title ? `Transcript: ${t.source.title}` : 'Transcript',
        session: pages.shell(s, 'jobs', email),
        body: transcriptBody(t, s.csrf, await transcriptMedia(deps.db, deps.objectStore, s.principal.workspaceId, t.source)),
      }),
    );
  });
  // The upload a transcript was made from, for the page's player (Range requests: api/http/media-range.ts).
  pages.get('/dashboard/transcripts/:id/media', async (req, res) => {
    const s = await pageSession(req, deps);
    const { id } = parseInput(IdParams, req.params, 'params');
    const media = await transcriptMediaById(deps.db, deps.objectStore, s.principal.workspaceId, id);
    if (!media) throw new ServiceError('NOT_FOUND', 'id', { message: 'No stored media for this transcript.' });
    await sendStoredMedia(req, res, deps.objectStore, media);
  });
  // The redacted copy of the audio (`redacted_audio`), played in byte ranges like the media.
  pages.get('/dashboard/transcripts/:id/redacted-audio', async (req, res) => {
    const s = await pageSession(req, deps);
    const { id } = parseInput(IdParams, req.params, 'params');
    const t = await getTranscript(deps.db, s.principal.workspaceId, id);
    const stored = await deps.db.transcript.findUnique({ where: { id: t.id }, select: { redactedAudio: true } });
    const audio = stored?.redactedAudio as StoredRedactedAudio | null | undefined;
    if (!audio) throw new ServiceError('NOT_FOUND', 'redacted_audio', { message: 'This transcript has no redacted audio.' });
    await sendStoredMedia(req, res, deps.objectStore, { key: audio.key, size: audio.bytes, contentType: audio.content_type });
  });
  pages.idAction('/dashboard/transcripts/:id/delete', deleteTranscriptRoute, () => '/dashboard/jobs?done=deleted');
}
