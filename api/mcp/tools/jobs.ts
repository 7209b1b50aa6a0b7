import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Principal } from '../../../domain/accounts/principal';
import { listJobs, waitForJob } from '../../../domain/jobs/read';
import { readJobSegments } from '../../../domain/jobs/partial-segments';
import { submitJob } from '../../../domain/jobs/submit';
import { isFinal, type JobView } from '../../../domain/jobs/view';
import { JobListQuery, JobRequestSchema, JOB_OPTION_FIELDS, jobOptionShape, type JobRequest } from '../../../domain/schemas/jobs';
import type { AppDeps } from '../../http/context';
import { parseInput } from '../../http/parse-input';
import { parseIdempotencyKey } from '../../http/route';
import { jobServiceDeps } from '../../wiring';
import { quoteOf } from './cost-confirmation';
import {
  count,
  countedRead,
  deadlineFor,
  guarded,
  JobOut,
  MaxCredits,
  Mode,
  Next,
  ok,
  progress,
  QuoteOut,
  requireScopes,
  Timeout,
  textOf,
  UNCONFIRMED_MAX_CREDITS,
  Url,
  WAIT_STEP_SECONDS,
  z,
  type Ctx,
  toolWaitSignal,
  type ToolRegistrar,
} from './kit';

// The job tools: transcribe (POST /v1/jobs), wait_for_job and get_job
// (GET /v1/jobs/{id}, with and without the long poll), list_jobs (GET /v1/jobs).

export const JOB_OPERATION = 'POST /v1/jobs';

/** What to do with a job in this state. */
export function nextForJob(job: JobView): string | null {
  if (!isFinal(job.status)) return `The job is ${job.status}: call wait_for_job with job_id ${job.id}.`;
  if (job.status === 'succeeded') return `Call get_transcript with transcript_id ${job.result_id}.`;
  if (job.error?.code === 'BUDGET_EXCEEDED') return 'See quote: confirm with max_credits = quote.credits.';
  if (job.error?.retryable) return 'The failure was retryable: submit the same request again later.';
  return null;
}

/** Long-polls a job (the REST long poll, in steps) until it is final or the deadline passes. */
export async function waitJob(deps: AppDeps, p: Principal, jobId: string, deadline: number, ctx: Ctx, startedAt: number): Promise<JobView> {
  const report = progress(ctx, startedAt, Math.round((deadline - startedAt) / 1000));
  let job = await waitForJob(deps.db, deps.wakeups, p.workspaceId, jobId, 0);
  const signal = toolWaitSignal(deps, ctx);
  while (!isFinal(job.status) && !signal.aborted) {
    const left = (deadline - Date.now()) / 1000;
    if (left < 0.2) break;
    await report(`job ${job.status}${job.stage ? ` (${job.stage})` : ''}`);
    job = await waitForJob(deps.db, deps.wakeups, p.workspaceId, jobId, Math.min(WAIT_STEP_SECONDS, left), signal);
  }
  return job;
}

/** The job request a tool submits: the cost-safety cap unless the caller set max_credits (captions_only spends no AI credits). */
export function jobRequest(
  args: { url: string; mode?: JobRequest['mode']; language?: string; max_credits?: number } & Pick<
    JobRequest,
    (typeof JOB_OPTION_FIELDS)[number]
  >,
): JobRequest {
  const mode = args.mode ?? 'captions_only';
  const body = {
    source: { url: args.url },
    mode,
    ...(args.language !== undefined ? { language: args.language } : {}),
    ...Object.fromEntries(JOB_OPTION_FIELDS.filter((f) => args[f] !== undefined).map((f) => [f, args[f]])),
    // Word timing spends AI credits on the audio too: the same cap.
    ...(mode !== 'captions_only' || args.word_timing ? { max_credits: args.max_credits ?? UNCONFIRMED_MAX_CREDITS } : {}),
  };
  return parseInput(JobRequestSchema, body, 'body');
}

/** Segments of a running job one wait_for_job answers: an agent's context, not a transcript. */
const SO_FAR_LIMIT = 100;
const SoFarOut = z.object({
  count: z.number().int(),
  segments: z.array(
    z.object({
      seq: z.number().int(),
      start: z.number(),
      end: z.number(),
      text: z.string(),
      speaker: z.string().nullable(),
      language: z.string().nullable(),
    }),
  ),
  next_after: z.number().int(),
  progress: z.object({ transcribed_seconds: z.number(), total_seconds: z.number() }).nullable(),
});

/** A job answer with the running job's words so far (null once final: the transcript has them). */
function withSoFar(result: CallToolResult, soFar: z.infer<typeof SoFarOut> | null): CallToolResult {
  const text = soFar
    ? ` ${soFar.count} segment(s) so far${soFar.progress ? ` (${soFar.progress.transcribed_seconds} of ${soFar.progress.total_seconds} s)` : ''}${soFar.segments.length ? `: ${soFar.segments.map((s) => s.text).join(' ')}` : ''}`
    : '';
  return {
    ...result,
    structuredContent: { ...(result.structuredContent ?? {}), so_far: soFar },
    content: result.content.map((c, i) => (i === 0 && c.type === 'text' ? { ...c, text: c.text + text } : c)),
  };
}

export function registerJobTools(server: ToolRegistrar, deps: AppDeps): void {
  server.registerTool(
    'transcribe',
    {
      title: 'Submit a transcription job',
      description:
        'Submits one job, exactly as POST /v1/jobs, and returns it at once (status queued, or succeeded when this workspace already holds the transcript: free). ' +
        'idempotency_key (8–128 printable ASCII) makes the call safe to repeat: the same key with the same arguments returns the same job; with other arguments IDEMPOTENCY_CONFLICT. ' +
        `Cost: as a job (captions 1 credit; AI transcription 2 per started minute, held while it runs, charged on success). Cost safety: without max_credits the job is capped at ${UNCONFIRMED_MAX_CREDITS} credits — longer media fails BUDGET_EXCEEDED before any charge and wait_for_job/get_job return the exact quote; confirm with max_credits = quote and a new idempotency_key. ` +
        'Next: wait_for_job, then get_transcript. Needs jobs:write.',
      inputSchema: z.object({
        url: Url,
        mode: Mode.optional().describe('Default captions_only.'),
        language: z.string().optional().describe('BCP 47 hint for the spoken language (default: detected).'),
        max_credits: MaxCredits.optional(),
        // The request's own fields: its rules and descriptions, one definition (domain/schemas/jobs.ts).
        ...jobOptionShape,
        idempotency_key: z.string().describe('8–128 printable ASCII characters; reuse it to repeat the call safely.'),
      }),
      outputSchema: z.object({ job: JobOut, replay: z.boolean(), next: Next }),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    },
    guarded(deps, async (args, _ctx, caller) => {
      const p = requireScopes(caller, 'jobs:write');
      const key = parseIdempotencyKey(args.idempotency_key, 'idempotency_key');
      const req = jobRequest({ ...args, mode: args.mode ?? 'transcribe' });
      const scope = { key, operation: JOB_OPERATION };
      const replay = await count(deps, p, 'submit', scope);
      const { job } = await submitJob(jobServiceDeps(deps), p, req, scope);
      const next = nextForJob(job);
      return ok({ job, replay, next }, `Job ${job.id} ${job.status}. ${next ?? ''}`);
    }),
  );

  const jobResult = (job: JobView): CallToolResult => {
    const quote = quoteOf(job);
    const next = nextForJob(job);
    return ok(
      { job, done: isFinal(job.status), quote, next },
      `Job ${job.id} ${job.status}${job.error ? ` (${job.error.code}: ${job.error.message})` : ''}. ${quote?.message ?? next ?? ''}`,
    );
  };
  const jobOutput = z.object({ job: JobOut, done: z.boolean(), quote: QuoteOut.nullable(), next: Next });
  const jobReadNote =
    'Free. A succeeded job has result_id: call get_transcript. A failed job carries error (code, message, retryable); when the cost-safety cap stopped it (BUDGET_EXCEEDED), quote holds the exact price and the call that confirms it. Needs jobs:read.';

  server.registerTool(
    'wait_for_job',
    {
      title: 'Wait for a job',
      description: `Waits until the job is succeeded, failed or cancelled, or timeout_seconds pass (default 30, never past ~40 s), then returns it; call again while done is false. A running AI job also answers its words so far: so_far.segments (at most ${SO_FAR_LIMIT}, earliest first, after so_far_after) and so_far.count (all published so far); pass so_far.next_after as so_far_after on the next call to get only the new ones. Speakers and per-region languages settle in the transcript. ${jobReadNote}`,
      inputSchema: z.object({
        job_id: z.uuid(),
        timeout_seconds: Timeout(30),
        so_far_after: z
          .number()
          .int()
          .min(0)
          .max(2_147_483_647)
          .optional()
          .describe('The seq of the last segment you already have (so_far.next_after of the previous call); default 0.'),
      }),
      outputSchema: jobOutput.extend({ so_far: SoFarOut.nullable() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(deps, async (args, ctx, caller) => {
      const startedAt = Date.now();
      const p = requireScopes(caller, 'jobs:read');
      await count(deps, p, 'read');
      const job = await waitJob(deps, p, args.job_id, deadlineFor(startedAt, args.timeout_seconds ?? 30), ctx, startedAt);
      const result = jobResult(job);
      if (isFinal(job.status)) return withSoFar(result, null);
      const page = await readJobSegments(deps.db, p.workspaceId, job.id, args.so_far_after ?? 0);
      const segments = page.segments.slice(0, SO_FAR_LIMIT);
      const soFar = {
        count: await deps.db.jobSegment.count({ where: { jobId: job.id } }),
        segments,
        next_after: segments.at(-1)?.seq ?? args.so_far_after ?? 0,
        progress: page.progress,
      };
      return withSoFar(result, soFar);
    }),
  );

  server.registerTool(
    'get_job',
    {
      title: 'Read a job',
      description: `The job as it is now (GET /v1/jobs/{id}). ${jobReadNote}`,
      inputSchema: z.object({ job_id: z.uuid() }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(deps, async (args, _ctx, caller) => {
      const p = requireScopes(caller, 'jobs:read');
      return jobResult(await countedRead(deps, p, () => waitForJob(deps.db, deps.wakeups, p.workspaceId, args.job_id, 0)));
    }),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description:
        'This workspace’s jobs, newest first (free), as GET /v1/jobs: pass next_cursor as cursor for the next page. Needs jobs:read.',
      inputSchema: z.object({
        limit: z.number().int().min(1).max(100).optional().describe('Jobs per page, 1 to 100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page.'),
      }),
      outputSchema: z.object({ jobs: z.array(JobOut), next_cursor: z.string().nullable() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(deps, async (args, _ctx, caller) => {
      const p = requireScopes(caller, 'jobs:read');
      const query = parseInput(
        JobListQuery,
        {
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          ...(args.cursor ? { cursor: args.cursor } : {}),
        },
        'body',
      );
      const page = await countedRead(deps, p, () => listJobs(deps.db, deps.secretsKey, p.workspaceId, query));
      return ok(
        page,
        `${page.jobs.length} jobs${page.next_cursor ? '; more with cursor = next_cursor' : ''}. ${textOf(page.jobs.map((j) => ({ id: j.id, status: j.status, title: j.source.title })))}`,
      );
    }),
  );
}
