import { cancelJob, retryJob } from '../../domain/jobs/control';
import { getJob, listJobs, waitForJob } from '../../domain/jobs/read';
import { jobEvents, waitForJobSegments, type JobStreamEvent } from '../../domain/jobs/partial-segments';
import { prepareJob, submissionOf, submitJob } from '../../domain/jobs/submit';
import type { JobRequest } from '../../domain/schemas/jobs';
import { jobServiceDeps } from '../wiring';
import { requestWaitSignal } from '../http/drain';
import type { RequiredRule } from '../http/auth';
import { defineRoute, type HandlerCtx, type Reply, type AnyRoute } from '../http/route';
import {
  JobEventsQuery,
  JobIdParams,
  JobListQuery,
  JobSegmentsQuery,
  JobSegmentsSchema,
  JobListSchema,
  JobRequestSchema,
  JobSchema,
  RetryRequestSchema,
  WaitQuery,
} from '../../domain/schemas/jobs';

const tags = ['Jobs'];
const POLL_AFTER_SECONDS = 2;

function accepted(result: { status: 200 | 202; job: { id: string }; replay?: boolean }): Reply {
  return {
    status: result.status,
    body: result.job,
    headers: result.status === 202 ? { Location: `/v1/jobs/${result.job.id}`, 'Retry-After': String(POLL_AFTER_SECONDS) } : {},
    replay: result.replay,
  };
}

/** The source and webhook endpoint reads of a submit, run beside its rate-limit statement. */
function prepareSubmit({
  deps,
  principal,
  body,
}: Pick<HandlerCtx<unknown, unknown, JobRequest, undefined, RequiredRule>, 'deps' | 'principal' | 'body'>) {
  return prepareJob(jobServiceDeps(deps), principal, submissionOf(body));
}

const createJob = defineRoute({
  method: 'post',
  path: '/v1/jobs',
  operationId: 'createJob',
  summary: 'Submit one source',
  tags,
  description:
    'Reuse: a workspace that already holds a retained, undeleted transcript for the same video (same platform and normalised media_id, whatever link form) with the same mode and options — caption_languages (in order) and caption_preference for captions_only/auto, the language hint for auto/transcribe — gets 200 with a succeeded job, billing.kind `cached`, nothing charged. metadata, max_credits and webhook_endpoint_id never affect reuse. Credits held at acceptance: captions_only 1, auto 2, transcribe 2 (raised to the measured cost before any charge).',
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  idempotencyKey: 'required',
  body: JobRequestSchema,
  responses: {
    202: {
      description: 'Accepted.',
      schema: JobSchema,
      headers: { Location: 'Path of the job to poll.', 'Retry-After': 'Seconds before the first poll.' },
    },
    200: { description: 'Reused same-workspace result (free), or an idempotent replay.', schema: JobSchema },
  },
  errors: [
    'INVALID_URL',
    'UNSUPPORTED_SOURCE',
    'CAPABILITY_UNAVAILABLE',
    'INSUFFICIENT_BALANCE',
    'PLAN_REQUIRED',
    'IDEMPOTENCY_CONFLICT',
    'NOT_FOUND',
  ],
  prepare: prepareSubmit,
  answersReplays: true,
  handler: async ({ deps, principal, body, idempotency, prepared }) =>
    accepted(await submitJob(jobServiceDeps(deps), principal, body, idempotency!, { prepared })),
});

const listJobsRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs',
  operationId: 'listJobs',
  summary: 'Job history, newest first',
  tags,
  description:
    '`platform` and `source_id` together list the jobs of one video in any mode. A malformed or altered cursor answers 422 INVALID_REQUEST naming `cursor`.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  query: JobListQuery,
  queryDependentRequired: { platform: ['source_id'], source_id: ['platform'] },
  responses: { 200: { description: 'A page of jobs.', schema: JobListSchema } },
  errors: [],
  handler: async ({ deps, principal, query }) => ({
    status: 200,
    body: await listJobs(deps.db, deps.secretsKey, principal.workspaceId, query),
  }),
});

const getJobRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs/:id',
  operationId: 'getJob',
  summary: 'Job, optional long poll',
  tags,
  description:
    'With `wait`, the request returns as soon as the job is succeeded, failed or cancelled (woken by the completion itself, on any API instance), or after `wait` seconds. While a retryable error is being retried automatically the job stays `processing` and `retry` shows the attempt and the error.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: JobIdParams,
  query: WaitQuery,
  responses: { 200: { description: 'The job (a failed job is still 200).', schema: JobSchema } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params, query, req }) => {
    const signal = requestWaitSignal(req, deps);
    return { status: 200, body: await waitForJob(deps.db, deps.wakeups, principal.workspaceId, params.id, query.wait, signal) };
  },
});

const jobSegmentsRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs/:id/segments',
  operationId: 'getJobSegments',
  summary: 'A running job’s segments so far, optional long poll',
  tags,
  description:
    'An AI job is recognised in pieces cut at pauses, earliest first; each piece’s segments are published as soon as it and every piece before it are recognised, numbered by `seq` in time order. Read with `after` = the last seq you have (0 at first); with `wait`, the request returns as soon as there is a segment after it or the job is final. Partial segments are cleaned and redacted as the job asked, carry `speaker: null` and the language their piece was heard in; when the job ends they give way to the transcript (`result_id`), which settles speakers and per-region languages and is exactly what it would have been without this view. Captions jobs, cloud recognition and `align_text` publish no partial segments: their progress jumps to the end when they succeed.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: JobIdParams,
  query: JobSegmentsQuery,
  responses: { 200: { description: 'The segments after `after` (empty when none yet or the job is final).', schema: JobSegmentsSchema } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params, query, req }) => {
    const signal = requestWaitSignal(req, deps);
    return {
      status: 200,
      body: await waitForJobSegments(deps.db, deps.wakeups, principal.workspaceId, params.id, query.after, query.wait, signal),
    };
  },
});

/** One Server-Sent Event (the WHATWG HTML "event stream" format); data is one line of JSON. */
function sseFrame(e: JobStreamEvent): string {
  if ('comment' in e) return `: ${e.comment}\n\n`;
  return `${'id' in e ? `id: ${e.id}\n` : ''}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** `Last-Event-ID` of a reconnecting EventSource: the last seq it received; anything else is ignored. */
function lastEventId(header: string | undefined): number | undefined {
  return header !== undefined && /^(0|[1-9]\d{0,9})$/.test(header.trim()) ? Math.min(Number(header.trim()), 2_147_483_647) : undefined;
}

const jobEventsRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs/:id/events',
  operationId: 'streamJobEvents',
  summary: 'A running job’s segments as Server-Sent Events',
  tags,
  description:
    'The same segments as `GET /v1/jobs/{id}/segments`, pushed as they are published: `event: segment` (`id` = seq, `data` = a PartialSegment), `event: progress` (`data` = the job’s progress, when it changes) and, once the job is final, `event: job` (`data` = the Job) after which the stream ends. A comment line every 15 s keeps a quiet stream open; the server ends a stream after 10 minutes, and an EventSource reconnects by itself with `Last-Event-ID`, so nothing is missed or sent twice. Counted once against the read rate limit per connection. A job in another workspace answers 404 before the stream starts.',
  auth: { kind: 'required', scope: 'jobs:read' },
  rateLimit: 'read',
  params: JobIdParams,
  query: JobEventsQuery,
  responses: { 200: { description: 'An event stream (text/event-stream).', contentTypes: ['text/event-stream'] } },
  errors: ['NOT_FOUND'],
  handler: async ({ deps, principal, params, query, req }) => {
    const after = lastEventId(req.get('last-event-id')) ?? query.after ?? 0;
    const signal = requestWaitSignal(req, deps);
    // The job is looked up before the stream starts, so a wrong id is a 404 envelope, not an empty stream.
    await getJob(deps.db, principal.workspaceId, params.id);
    return {
      status: 200,
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
      stream: {
        contentType: 'text/event-stream; charset=utf-8',
        write: async (res) => {
          res.write('retry: 2000\n\n');
          try {
            for await (const e of jobEvents(deps.db, deps.wakeups, principal.workspaceId, params.id, after, signal)) {
              if (!res.write(sseFrame(e))) await new Promise<void>((resolve) => res.once('drain', resolve));
            }
          } catch {
            // A database error midway ends the stream; the client reconnects from its Last-Event-ID.
          }
        },
      },
    };
  },
});

export const cancelRoute = defineRoute({
  method: 'post',
  path: '/v1/jobs/:id/cancel',
  operationId: 'cancelJob',
  summary: 'Cancel',
  tags,
  description:
    "Allowed while no AI transcription has started (and before the result is being committed); the hold is released. Otherwise 409 CANCELLATION_NOT_ALLOWED and the job finishes. The job's workflow decides. " +
    "When it cannot answer within 10 s (no worker is running the job right now), the answer is **202** with the job as it is: the cancel is recorded in the job's workflow and is decided by the same rule as soon as a worker runs it again, so the job turns `cancelled` unless by then AI transcription started (then it finishes as usual). Follow `Location` (`GET /v1/jobs/{id}?wait=25`) to see the outcome; sending the cancel again is harmless.",
  auth: { kind: 'required', scope: 'jobs:write' },
  params: JobIdParams,
  responses: {
    200: { description: 'The cancelled job.', schema: JobSchema },
    202: {
      description: 'The cancel is recorded and will be decided when a worker runs the job (the job as it is now).',
      schema: JobSchema,
      headers: { Location: 'The job to read for the outcome.' },
    },
  },
  errors: ['NOT_FOUND', 'CANCELLATION_NOT_ALLOWED', 'SERVICE_UNAVAILABLE'],
  handler: async ({ deps, principal, params }) => {
    const { job, decision } = await cancelJob(jobServiceDeps(deps), principal, params.id);
    return decision === 'decided' ? { status: 200, body: job } : { status: 202, body: job, headers: { Location: `/v1/jobs/${job.id}` } };
  },
});

export const retryRoute = defineRoute({
  method: 'post',
  path: '/v1/jobs/:id/retry',
  operationId: 'retryJob',
  summary: 'New job from a retryable failure',
  tags,
  auth: { kind: 'required', scope: 'jobs:write' },
  rateLimit: 'submit',
  idempotencyKey: 'required',
  params: JobIdParams,
  body: RetryRequestSchema,
  responses: {
    202: { description: 'The new job.', schema: JobSchema },
    200: { description: 'Replay of the same retry key, or a reused result.', schema: JobSchema },
  },
  errors: ['NOT_FOUND', 'JOB_NOT_RETRYABLE', 'IDEMPOTENCY_CONFLICT', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED'],
  handler: async ({ deps, principal, params, body, idempotency }) =>
    accepted(await retryJob(jobServiceDeps(deps), principal, params.id, body, idempotency!)),
});

export const jobRoutes: AnyRoute[] = [createJob, listJobsRoute, getJobRoute, jobSegmentsRoute, jobEventsRoute, cancelRoute, retryRoute];
