import { inputRequired } from '@modelcontextprotocol/server';
import type { Principal } from '../../../domain/accounts/principal';
import { requestHash } from '../../../domain/idempotency';
import { submitJob } from '../../../domain/jobs/submit';
import { isFinal } from '../../../domain/jobs/view';
import type { JobRequest } from '../../../domain/schemas/jobs';
import { getTranscript } from '../../../domain/transcripts/read';
import type { AppDeps } from '../../http/context';
import { appMedia, appToolMeta, withAppMedia } from '../app/transcript-app';
import { jobServiceDeps } from '../../wiring';
import { DEFAULT_PAGE_CHARS, TRANSCRIPT_FORMATS, transcriptPage, transcriptSummary } from '../transcript-page';
import { canElicit, CONFIRM_KEY, ConfirmCost, quoteAnswer, quoteOf, quoteState } from './cost-confirmation';
import { jobRequest, waitJob } from './jobs';
import {
  count,
  deadlineFor,
  failure,
  guarded,
  JobOut,
  MaxChars,
  MaxCredits,
  Mode,
  Next,
  ok,
  PageOut,
  QuoteOut,
  requireScopes,
  textOf,
  Timeout,
  TranscriptOut,
  UNCONFIRMED_MAX_CREDITS,
  Url,
  z,
  type ToolRegistrar,
} from './kit';

// get_video_transcript: a job submitted (or joined) and its transcript's first
// page in one call, with the cost-safety cap and its confirmation.

const VIDEO_TRANSCRIPT_OPERATION = 'MCP get_video_transcript';

/**
 * get_video_transcript's submit without a caller's key: a key derived from
 * the request, so a repeat (or a retry after a lost answer) joins the same job
 * instead of holding credits twice. A repeat that finds that job failed or
 * cancelled submits anew under a key derived from the failed job (so repeats
 * converge again); a succeeded one is the REST replay (and reuse is free anyway).
 */
async function submitDerived(deps: AppDeps, p: Principal, req: JobRequest) {
  const base = `mcp-${requestHash(req).slice(0, 48)}`;
  let key = base;
  for (let hop = 0; ; hop++) {
    const scope = { key, operation: VIDEO_TRANSCRIPT_OPERATION };
    const replay = await count(deps, p, 'submit', scope);
    const result = await submitJob(jobServiceDeps(deps), p, req, scope);
    if (replay && (result.job.status === 'failed' || result.job.status === 'cancelled') && hop < 5) {
      key = `${base}-${result.job.id}`;
      continue;
    }
    return { ...result, replay };
  }
}

export function registerVideoTranscriptTool(server: ToolRegistrar, deps: AppDeps): void {
  server.registerTool(
    'get_video_transcript',
    {
      title: 'Get a video transcript',
      description:
        'Transcript of one video or media link in one call: submits a job (or reuses this workspace’s earlier one) and waits up to timeout_seconds (never past ~40 s). ' +
        'Cost: captions_only 1 credit; AI transcription 2 credits per started minute (paid plans); a repeat of the same video and options is free. ' +
        `Cost safety: AI transcription above ${UNCONFIRMED_MAX_CREDITS} credits is never spent without max_credits covering it — the tool measures the media and answers status "confirmation_required" with the exact quote; call again with max_credits = quote.credits to go ahead. ` +
        'Long transcripts come in pages: follow next with get_transcript(transcript_id, format, offset = page.next_offset). ' +
        'A job still running after the wait comes back with status "running" and its id: call wait_for_job. Needs jobs:write and transcripts:read.',
      inputSchema: z.object({
        url: Url,
        mode: Mode.optional(),
        format: z
          .enum(TRANSCRIPT_FORMATS)
          .optional()
          .describe('text (default: one segment per line), srt, vtt or segments (JSON with times).'),
        timeout_seconds: Timeout(30),
        max_credits: MaxCredits.optional(),
        max_chars: MaxChars,
      }),
      outputSchema: z.object({
        status: z.enum(['succeeded', 'running', 'confirmation_required', 'cancelled']),
        job: JobOut,
        transcript: TranscriptOut.optional(),
        page: PageOut.optional(),
        quote: QuoteOut.optional(),
        next: Next,
      }),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
      _meta: appToolMeta,
    },
    guarded(deps, async (call, ctx, caller) => {
      const startedAt = Date.now();
      const p = requireScopes(caller, 'jobs:write', 'transcripts:read');
      // A retry carrying the user's answer to the cost question (see "Cost confirmation by elicitation").
      const answer = call.max_credits === undefined ? quoteAnswer(deps.secretsKey, p, call, ctx) : null;
      const args = answer !== null && answer !== 'declined' ? { ...call, max_credits: answer.confirmed } : call;
      const req = jobRequest(args);
      const { job: accepted } = await submitDerived(deps, p, req);
      const job = await waitJob(deps, p, accepted.id, deadlineFor(startedAt, args.timeout_seconds ?? 30), ctx, startedAt);
      if (!isFinal(job.status)) {
        const next = `Still ${job.status}: call wait_for_job with job_id ${job.id}, then get_transcript.`;
        return ok({ status: 'running', job, next }, next);
      }
      if (job.status === 'cancelled') {
        return ok(
          { status: 'cancelled', job, next: 'The job was cancelled; call again to submit it anew.' },
          `Job ${job.id} was cancelled.`,
        );
      }
      if (job.status === 'failed') {
        const quote = quoteOf(job, { tool: 'get_video_transcript', arguments: { ...args } });
        if (quote && args.max_credits === undefined) {
          if (answer === 'declined') {
            const next = `The user declined spending ${quote.credits} credits; nothing was charged. ${quote.message}`;
            return ok({ status: 'confirmation_required', job, quote, next }, next);
          }
          if (canElicit(ctx)) {
            return inputRequired({
              inputRequests: {
                [CONFIRM_KEY]: inputRequired.elicit({
                  message: `AI transcription of ${args.url} costs exactly ${quote.credits} credits (2 per started minute). Spend them?`,
                  requestedSchema: ConfirmCost,
                }),
              },
              requestState: quoteState(deps.secretsKey, p, call, quote.credits),
            });
          }
          return ok({ status: 'confirmation_required', job, quote, next: quote.message }, quote.message);
        }
        return failure(job.error!, { job, ...(quote ? { quote } : {}) });
      }
      await count(deps, p, 'read');
      const transcript = await getTranscript(deps.db, p.workspaceId, job.result_id!);
      const format = args.format ?? 'text';
      const page = transcriptPage(transcript, format, 0, args.max_chars ?? DEFAULT_PAGE_CHARS);
      const next =
        page.next_offset === null
          ? null
          : `More: call get_transcript with transcript_id ${transcript.id}, format ${format}, offset ${page.next_offset}.`;
      const summary = transcriptSummary(transcript);
      return withAppMedia(
        await appMedia(deps, p.workspaceId, transcript),
        ok(
          { status: 'succeeded', job, transcript: summary, page, next },
          `${page.content ?? textOf(page.segments)}\n\n[transcript ${transcript.id}, ${page.format}, characters ${page.offset}–${page.offset + page.returned_chars} of ${page.total_chars}${next ? `; ${next}` : ''}]`,
        ),
      );
    }),
  );
}
