import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac, randomUUID } from 'node:crypto';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ClientCapabilities,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { safeEqual } from '../../domain/accounts/secrets';
import { z, ZodError } from 'zod';
import type { Principal, Scope } from '../../domain/accounts/principal';
import { getVideoDiscovery, submitVideoDiscovery, waitForDiscovery } from '../../domain/discoveries/submit';
import { ServiceError, toErrorObject, type ErrorObject } from '../../domain/errors';
import { idempotencyKeyUsed, requestHash, type IdempotencyScope } from '../../domain/idempotency';
import { listJobs, waitForJob } from '../../domain/jobs/read';
import { submitJob } from '../../domain/jobs/submit';
import { isFinal, type JobView } from '../../domain/jobs/view';
import { JobListQuery, JobRequestSchema, type JobRequest } from '../../domain/schemas/jobs';
import { VideoDiscoveryRequestSchema, type VideoDiscoveryRequest } from '../../domain/schemas/discoveries';
import { getTranscript } from '../../domain/transcripts/read';
import type { AppDeps } from '../http/context';
import { zodToServiceError } from '../http/envelope';
import { toServiceError } from '../http/middleware';
import type { RateLimitKind } from '../http/rate-limit';
import { authorisePrincipal, IdempotencyKeySchema } from '../http/route';
import { assertStorableText } from '../http/storable-text';
import { discoveryDeps } from '../routes/discoveries';
import { jobServiceDeps } from '../routes/jobs';
import {
  DEFAULT_PAGE_CHARS,
  MAX_PAGE_CHARS,
  MIN_PAGE_CHARS,
  TRANSCRIPT_FORMATS,
  transcriptPage,
  transcriptSummary,
  type TranscriptFormat,
} from './transcript-page';

// The thirteen tools of the spec's "Agent tool server". Every tool calls the
// domain functions its REST twin calls (submitJob, waitForJob, listJobs,
// getTranscript + the export renderings, submitVideoDiscovery,
// waitForDiscovery, getVideoDiscovery), checks the scope the twin needs and
// counts against the same rate limits. Failures are tool results with
// isError and the spec's error object; nothing here re-implements a rule.

/** A tool call never waits past this (remote tool calls are capped at about 40 s). */
export const MAX_TOOL_WAIT_SECONDS = 38;
/** Progress notifications and re-reads while a tool waits. */
const WAIT_STEP_SECONDS = 5;
/** Without max_credits, a tool submitting AI transcription caps the job at this: the 2 credits held at acceptance. */
export const UNCONFIRMED_MAX_CREDITS = 2;
const JOB_OPERATION = 'POST /v1/jobs';
const VIDEO_TRANSCRIPT_OPERATION = 'MCP get_video_transcript';
const DISCOVERY_OPERATION = 'POST /v1/video-discoveries';

// ---------------------------------------------------------------------------
// Output schemas (structuredContent)

const ErrorOut = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  retry_after_seconds: z.number().int().optional(),
  details: z.object({ detail: z.string() }).optional(),
});
const JobOut = z.looseObject({
  id: z.string(),
  status: z.string(),
  stage: z.string().nullable(),
  result_id: z.string().nullable(),
  error: ErrorOut.nullable(),
  billing: z.looseObject({ credits_reserved: z.number(), credits_charged: z.number(), kind: z.string() }),
});
const QuoteOut = z.object({
  credits: z.number().int().describe('The exact price of this media: 2 credits per started minute (60 s minimum).'),
  max_credits: z.number().int().describe('The cap the job ran with; nothing was charged.'),
  message: z.string(),
  confirm: z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }).describe('The call that spends the quote.'),
});
const TranscriptOut = z.looseObject({
  id: z.string(),
  language: z.string().nullable(),
  source_origin: z.string(),
  timing_granularity: z.string(),
  duration_seconds: z.number().nullable(),
});
const PageOut = z.object({
  format: z.enum(TRANSCRIPT_FORMATS),
  offset: z.number().int(),
  next_offset: z.number().int().nullable(),
  content: z.string().optional(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })).optional(),
  returned_chars: z.number().int(),
  total_chars: z.number().int(),
  total_segments: z.number().int(),
});
const DiscoveryOut = z.looseObject({
  id: z.string(),
  status: z.string(),
  videos: z.array(z.looseObject({ video_id: z.string(), url: z.string(), title: z.string().nullable() })),
  next_cursor: z.string().nullable(),
  error: ErrorOut.nullable(),
});
const Next = z.string().nullable().describe('What to call next, if anything.');

// ---------------------------------------------------------------------------
// Inputs shared by several tools

const Url = z.string().describe('A videosite or shortvideo video link, or any https link to an audio or video file.');
const Mode = z
  .enum(['captions_only', 'auto', 'transcribe'])
  .describe(
    'captions_only: the video’s own captions, 1 credit, fails NO_CAPTIONS when none. auto: captions when present, else AI transcription. transcribe: always AI transcription (paid plans), 2 credits per started minute.',
  );
const MaxCredits = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .describe(
    `Spending cap for AI transcription. Without it the tool spends at most ${UNCONFIRMED_MAX_CREDITS} credits: longer media comes back as a quote (the exact price); call again with max_credits = the quote to confirm.`,
  );
const Timeout = (dflt: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(600)
    .optional()
    .describe(`Seconds to wait for the result (default ${dflt}; never more than ${MAX_TOOL_WAIT_SECONDS} in one call).`);
const Offset = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Where the page starts: next_offset of the previous page (a character offset; a segment index for segments).');
const MaxChars = z
  .number()
  .int()
  .min(MIN_PAGE_CHARS)
  .max(MAX_PAGE_CHARS)
  .optional()
  .describe(`Page size in characters (default ${DEFAULT_PAGE_CHARS}, about ${DEFAULT_PAGE_CHARS / 4} tokens).`);
const Limit = (max: number, dflt: number) =>
  z.number().int().min(1).max(max).optional().describe(`Videos per page, 1 to ${max} (default ${dflt}).`);
const Cursor = z.string().optional().describe('next_cursor of the previous page (valid 24 hours, bound to the same listing).');

// ---------------------------------------------------------------------------
// Results

function textOf(value: unknown): string {
  return JSON.stringify(value);
}

function ok(structured: Record<string, unknown>, summary: string): CallToolResult {
  return { content: [{ type: 'text', text: summary }], structuredContent: structured };
}

function failure(error: ErrorObject, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message} (retryable: ${error.retryable}) ${textOf(structured)}` }],
    structuredContent: structured,
  };
}

/** The quote of a job the cost-safety cap stopped: the measured price in BUDGET_EXCEEDED's detail (`cost=N > max_credits=M`). */
export function quoteOf(job: JobView, confirm: { tool: string; arguments: Record<string, unknown> } | null = null) {
  if (job.status !== 'failed' || job.error?.code !== 'BUDGET_EXCEEDED') return null;
  const m = /cost=(\d+) > max_credits=(\d+)/.exec(job.error.details?.detail ?? '');
  if (!m) return null;
  const credits = Number(m[1]);
  const call = confirm ?? {
    tool: 'transcribe',
    arguments: {
      ...(job.source.canonical_url ? { url: job.source.canonical_url } : {}),
      mode: job.options.mode,
      ...(job.options.language ? { language: job.options.language } : {}),
      max_credits: credits,
      idempotency_key: '<a new key>',
    },
  };
  const withKey = call.tool === 'transcribe' ? ' and a new idempotency_key' : '';
  return {
    credits,
    max_credits: Number(m[2]),
    message: `AI transcription of this media costs exactly ${credits} credits (2 per started minute). Nothing was charged. To go ahead, call ${call.tool} again with max_credits: ${credits}${withKey}.`,
    confirm: { tool: call.tool, arguments: { ...call.arguments, max_credits: credits } },
  };
}

/** What to do with a job in this state. */
function nextForJob(job: JobView): string | null {
  if (!isFinal(job.status)) return `The job is ${job.status}: call wait_for_job with job_id ${job.id}.`;
  if (job.status === 'succeeded') return `Call get_transcript with transcript_id ${job.result_id}.`;
  if (job.error?.code === 'BUDGET_EXCEEDED') return 'See quote: confirm with max_credits = quote.credits.';
  if (job.error?.retryable) return 'The failure was retryable: submit the same request again later.';
  return null;
}

// ---------------------------------------------------------------------------
// Tool plumbing

type Ctx = ServerContext;

interface ToolEnv {
  deps: AppDeps;
  /** The caller of the tool call being handled (read from the call's own context, see guarded()). */
  readonly principal: Principal | null;
}

/**
 * The tools are defined once per process (toolDefinitions) and only registered
 * on each request's fresh McpServer, so the caller cannot be captured when a
 * tool is defined: guarded() runs every call inside this storage with the
 * principal the transport handed over as the request's AuthInfo.
 */
const callPrincipal = new AsyncLocalStorage<Principal | null>();

/** The principal api/mcp/server.ts put on the request (`AuthInfo.extra.principal`). */
function principalOf(ctx: Ctx): Principal | null {
  return (ctx.http?.authInfo?.extra as { principal?: Principal } | undefined)?.principal ?? null;
}

/** The scope rule of the REST twin (api/http/route.ts authorisePrincipal); throws FORBIDDEN / UNAUTHENTICATED / EMAIL_UNVERIFIED. */
function requireScopes(env: ToolEnv, ...scopes: Scope[]): Principal {
  for (const scope of scopes) authorisePrincipal({ kind: 'required', scope }, env.principal);
  authorisePrincipal({ kind: 'required', scope: null }, env.principal);
  return env.principal;
}

/** Counts the call as its REST twin: a submit (not an idempotent replay, which creates nothing) or a read. Returns whether it is a replay. */
async function count(env: ToolEnv, p: Principal, kind: RateLimitKind, idempotency?: IdempotencyScope): Promise<boolean> {
  if (idempotency && (await idempotencyKeyUsed(env.deps.db, p.workspaceId, idempotency))) return true;
  await env.deps.rateLimits.consume(kind, p.plan, p.workspaceId);
  return false;
}

/**
 * A read tool's read, beside its rate-limit statement as on the REST routes
 * (api/http/route.ts mount): one round trip of latency instead of two; the
 * answer is dropped when the limit refuses the call.
 */
async function countedRead<T>(env: ToolEnv, p: Principal, read: () => Promise<T>): Promise<T> {
  const reading = read();
  reading.catch(() => undefined);
  await count(env, p, 'read');
  return reading;
}

/** Validates like the REST edge: storable text first, then the request schema; failures are INVALID_REQUEST naming the field. */
function parseRequest<T>(schema: z.ZodType<T>, value: unknown): T {
  assertStorableText(value, 'body');
  const result = schema.safeParse(value);
  if (!result.success) throw zodToServiceError(result.error, 'body');
  return result.data;
}

function guarded<A>(env: ToolEnv, fn: (args: A, ctx: Ctx) => Promise<CallToolResult>) {
  return (args: A, ctx: Ctx): Promise<CallToolResult> =>
    callPrincipal.run(principalOf(ctx), async () => {
      try {
        return await fn(args, ctx);
      } catch (err) {
        const e =
          err instanceof ZodError ? zodToServiceError(err, 'body') : toServiceError(err, env.deps.logger, `mcp:${String(ctx.mcpReq.id)}`);
        return failure(e.toObject());
      }
    });
}

/** Progress notifications while a tool waits, when the client sent a progressToken. */
function progress(ctx: Ctx, startedAt: number, totalSeconds: number) {
  const token = ctx.mcpReq._meta?.progressToken;
  let last = -1;
  return async (message: string) => {
    if (token === undefined) return;
    const elapsed = Math.max(last + 0.001, Math.round((Date.now() - startedAt) / 100) / 10);
    last = elapsed;
    try {
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: elapsed, total: totalSeconds, message },
      });
    } catch {
      // A client gone away does not fail the call.
    }
  };
}

/** Long-polls a job (the REST long poll, in steps) until it is final or the deadline passes. */
async function waitJob(env: ToolEnv, p: Principal, jobId: string, deadline: number, ctx: Ctx, startedAt: number): Promise<JobView> {
  const report = progress(ctx, startedAt, Math.round((deadline - startedAt) / 1000));
  let job = await waitForJob(env.deps.db, env.deps.wakeups, p.workspaceId, jobId, 0);
  while (!isFinal(job.status) && !ctx.mcpReq.signal.aborted) {
    const left = (deadline - Date.now()) / 1000;
    if (left < 0.2) break;
    await report(`job ${job.status}${job.stage ? ` (${job.stage})` : ''}`);
    job = await waitForJob(env.deps.db, env.deps.wakeups, p.workspaceId, jobId, Math.min(WAIT_STEP_SECONDS, left), ctx.mcpReq.signal);
  }
  return job;
}

const deadlineFor = (startedAt: number, timeoutSeconds: number) =>
  startedAt + Math.min(Math.max(0, timeoutSeconds), MAX_TOOL_WAIT_SECONDS) * 1000;

/** The job request a tool submits: the cost-safety cap unless the caller set max_credits (captions_only spends no AI credits). */
function jobRequest(args: { url: string; mode?: JobRequest['mode']; language?: string; max_credits?: number }): JobRequest {
  const mode = args.mode ?? 'captions_only';
  const body = {
    source: { url: args.url },
    mode,
    ...(args.language !== undefined ? { language: args.language } : {}),
    ...(mode !== 'captions_only' ? { max_credits: args.max_credits ?? UNCONFIRMED_MAX_CREDITS } : {}),
  };
  return parseRequest(JobRequestSchema, body);
}

/**
 * get_video_transcript's submit without a caller's key: a key derived from
 * the request, so a repeat (or a retry after a lost answer) joins the same job
 * instead of holding credits twice. A repeat that finds that job failed or
 * cancelled submits anew under a key derived from the failed job (so repeats
 * converge again); a succeeded one is the REST replay (and reuse is free anyway).
 */
async function submitDerived(env: ToolEnv, p: Principal, req: JobRequest) {
  const base = `mcp-${requestHash(req).slice(0, 48)}`;
  let key = base;
  for (let hop = 0; ; hop++) {
    const scope = { key, operation: VIDEO_TRANSCRIPT_OPERATION };
    const replay = await count(env, p, 'submit', scope);
    const result = await submitJob(jobServiceDeps(env.deps), p, req, scope);
    if (replay && (result.job.status === 'failed' || result.job.status === 'cancelled') && hop < 5) {
      key = `${base}-${result.job.id}`;
      continue;
    }
    return { ...result, replay };
  }
}

// ---------------------------------------------------------------------------
// Cost confirmation by elicitation (issue 14 item 4)
//
// A client that declares the elicitation capability on a 2026-07-28 request
// is asked directly: the tool answers `input_required` with a form (confirm:
// boolean) and a signed requestState naming the quote; the client shows the
// form to its user and retries the same call with the answer. Accepted: the
// retry runs with max_credits = the quote. Declined or cancelled: the quote
// result. A 2025-era client cannot be asked: on the stateless fallback the
// answer to a server-to-client request would reach another per-request
// server, so it gets the quote result (confirm by calling again with
// max_credits), as does any client without the capability.

const CONFIRM_KEY = 'confirm_cost';
const ConfirmCost = z.object({
  confirm: z.boolean().describe('Spend the quoted credits on AI transcription of this media.'),
});

/** Whether this request's client accepts form elicitation (declared in the 2026-07-28 per-request envelope). */
function canElicit(ctx: Ctx): boolean {
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    ClientCapabilities | undefined;
  const e = caps?.elicitation as { form?: object; url?: object } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** The quote the user is asked about, bound to the workspace and the call; HMAC-signed because it comes back through the client. */
function quoteState(env: ToolEnv, p: Principal, call: unknown, credits: number): string {
  const body = Buffer.from(JSON.stringify({ w: p.workspaceId, c: credits, h: requestHash(call).slice(0, 32) })).toString('base64url');
  return `${body}.${createHmac('sha256', env.deps.secretsKey).update(`mcp-quote:${body}`).digest('base64url')}`;
}

/** The user's answer carried by a retried call: the confirmed credits, a refusal, or nothing (no answer, or state not ours). */
function quoteAnswer(env: ToolEnv, p: Principal, call: unknown, ctx: Ctx): { confirmed: number } | 'declined' | null {
  if (!ctx.mcpReq.inputResponses) return null;
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state !== 'string') return null;
  const [body, mac] = state.split('.');
  if (!body || !mac || !safeEqual(mac, createHmac('sha256', env.deps.secretsKey).update(`mcp-quote:${body}`).digest('base64url')))
    return null;
  const q = JSON.parse(Buffer.from(body, 'base64url').toString()) as { w: string; c: number; h: string };
  if (q.w !== p.workspaceId || q.h !== requestHash(call).slice(0, 32)) return null;
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind !== 'elicit') return null;
  return acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY, ConfirmCost)?.confirm === true ? { confirmed: q.c } : 'declined';
}

// ---------------------------------------------------------------------------
// The tools

/** One tool as registerTool takes it. */
export type ToolDefinition = Parameters<McpServer['registerTool']>;

/**
 * The thirteen tools with their schemas, built once per process; each
 * request's McpServer only registers them (registerToolDefinitions), so no
 * request pays for building schemas again.
 */
export function toolDefinitions(deps: AppDeps): ToolDefinition[] {
  const env: ToolEnv = {
    deps,
    get principal() {
      return callPrincipal.getStore() ?? null;
    },
  };
  const defs: ToolDefinition[] = [];
  const recorder = {
    registerTool: (...[name, config, cb]: ToolDefinition) => {
      if (config.inputSchema) memoizeJsonSchema(config.inputSchema);
      if (config.outputSchema) memoizeJsonSchema(config.outputSchema);
      defs.push([name, config, cb] as ToolDefinition);
    },
  };
  registerTools(recorder as unknown as Pick<McpServer, 'registerTool'>, env);
  return defs;
}

/**
 * The SDK converts a tool's schemas to JSON Schema per McpServer instance (for
 * tools/list, and on every 2026-07-28 tools/call for its Mcp-Param header
 * check), and our instances live one request: the conversion (about 0.7 ms a
 * call) is kept on the schema itself, once per process.
 */
function memoizeJsonSchema(schema: object): void {
  const std = (schema as { '~standard'?: { jsonSchema?: Record<'input' | 'output', (o?: { target?: string }) => unknown> } })['~standard'];
  if (!std?.jsonSchema) return;
  const convert = std.jsonSchema;
  const memo = new Map<string, unknown>();
  const cached = (io: 'input' | 'output') => (opts?: { target?: string }) => {
    const key = `${io}:${opts?.target ?? ''}`;
    if (!memo.has(key)) memo.set(key, convert[io](opts));
    return memo.get(key);
  };
  Object.defineProperty(schema, '~standard', {
    value: { ...std, jsonSchema: { input: cached('input'), output: cached('output') } },
    configurable: true,
  });
}

export function registerToolDefinitions(server: McpServer, defs: readonly ToolDefinition[]): void {
  for (const def of defs) server.registerTool(...def);
}

function registerTools(server: Pick<McpServer, 'registerTool'>, env: ToolEnv): void {
  const { deps } = env;

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
    },
    guarded(env, async (call, ctx) => {
      const startedAt = Date.now();
      const p = requireScopes(env, 'jobs:write', 'transcripts:read');
      // A retry carrying the user's answer to the cost question (see "Cost confirmation by elicitation").
      const answer = call.max_credits === undefined ? quoteAnswer(env, p, call, ctx) : null;
      const args = answer !== null && answer !== 'declined' ? { ...call, max_credits: answer.confirmed } : call;
      const req = jobRequest(args);
      const { job: accepted } = await submitDerived(env, p, req);
      const job = await waitJob(env, p, accepted.id, deadlineFor(startedAt, args.timeout_seconds ?? 30), ctx, startedAt);
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
              requestState: quoteState(env, p, call, quote.credits),
            }) as unknown as CallToolResult;
          }
          return ok({ status: 'confirmation_required', job, quote, next: quote.message }, quote.message);
        }
        return failure(job.error!, { job, ...(quote ? { quote } : {}) });
      }
      await count(env, p, 'read');
      const transcript = await getTranscript(deps.db, p.workspaceId, job.result_id!);
      const format = args.format ?? 'text';
      const page = transcriptPage(transcript, format, 0, args.max_chars ?? DEFAULT_PAGE_CHARS);
      const next =
        page.next_offset === null
          ? null
          : `More: call get_transcript with transcript_id ${transcript.id}, format ${format}, offset ${page.next_offset}.`;
      const summary = transcriptSummary(transcript);
      return ok(
        { status: 'succeeded', job, transcript: summary, page, next },
        `${page.content ?? textOf(page.segments)}\n\n[transcript ${transcript.id}, ${page.format}, characters ${page.offset}–${page.offset + page.returned_chars} of ${page.total_chars}${next ? `; ${next}` : ''}]`,
      );
    }),
  );

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
        mode: Mode.optional().describe('Default transcribe.'),
        language: z.string().optional().describe('BCP 47 hint for the spoken language (default: detected).'),
        max_credits: MaxCredits.optional(),
        idempotency_key: z.string().describe('8–128 printable ASCII characters; reuse it to repeat the call safely.'),
      }),
      outputSchema: z.object({ job: JobOut, replay: z.boolean(), next: Next }),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    },
    guarded(env, async (args) => {
      const p = requireScopes(env, 'jobs:write');
      const key = IdempotencyKeySchema.safeParse(args.idempotency_key);
      if (!key.success)
        throw new ServiceError('INVALID_REQUEST', 'idempotency_key', {
          message: 'idempotency_key must be 8 to 128 printable ASCII characters.',
        });
      const req = jobRequest({ ...args, mode: args.mode ?? 'transcribe' });
      const scope = { key: key.data, operation: JOB_OPERATION };
      const replay = await count(env, p, 'submit', scope);
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
      description: `Waits until the job is succeeded, failed or cancelled, or timeout_seconds pass (default 30, never past ~40 s), then returns it; call again while done is false. ${jobReadNote}`,
      inputSchema: z.object({ job_id: z.uuid(), timeout_seconds: Timeout(30) }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(env, async (args, ctx) => {
      const startedAt = Date.now();
      const p = requireScopes(env, 'jobs:read');
      await count(env, p, 'read');
      return jobResult(await waitJob(env, p, args.job_id, deadlineFor(startedAt, args.timeout_seconds ?? 30), ctx, startedAt));
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
    guarded(env, async (args) => {
      const p = requireScopes(env, 'jobs:read');
      return jobResult(await countedRead(env, p, () => waitForJob(deps.db, deps.wakeups, p.workspaceId, args.job_id, 0)));
    }),
  );

  server.registerTool(
    'get_transcript',
    {
      title: 'Read a transcript',
      description:
        `One page of a transcript (free): segments (default: JSON with start/end seconds), text (one segment per line), srt or vtt. Pages are at most max_chars characters (default ${DEFAULT_PAGE_CHARS}); page.total_chars is the whole size and page.next_offset continues (call again with offset = next_offset). ` +
        'srt and vtt need timing (TIMESTAMPS_UNAVAILABLE otherwise). Needs transcripts:read.',
      inputSchema: z.object({
        transcript_id: z.uuid(),
        format: z.enum(TRANSCRIPT_FORMATS).optional(),
        offset: Offset,
        max_chars: MaxChars,
      }),
      outputSchema: z.object({ transcript: TranscriptOut, page: PageOut, next: Next }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(env, async (args) => {
      const p = requireScopes(env, 'transcripts:read');
      const transcript = await countedRead(env, p, () => getTranscript(deps.db, p.workspaceId, args.transcript_id));
      const format: TranscriptFormat = args.format ?? 'segments';
      const page = transcriptPage(transcript, format, args.offset ?? 0, args.max_chars ?? DEFAULT_PAGE_CHARS);
      const next = page.next_offset === null ? null : `More: call get_transcript again with offset ${page.next_offset}.`;
      return ok(
        { transcript: transcriptSummary(transcript), page, next },
        `${page.content ?? textOf(page.segments)}\n\n[${page.format}, ${page.offset}–${page.offset + (page.segments?.length ?? page.returned_chars)} of ${page.format === 'segments' ? `${page.total_segments} segments` : `${page.total_chars} characters`}${next ? `; ${next}` : ''}]`,
      );
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
    guarded(env, async (args) => {
      const p = requireScopes(env, 'jobs:read');
      const query = parseRequest(JobListQuery, {
        ...(args.limit !== undefined ? { limit: args.limit } : {}),
        ...(args.cursor ? { cursor: args.cursor } : {}),
      });
      const page = await countedRead(env, p, () => listJobs(deps.db, deps.secretsKey, p.workspaceId, query));
      return ok(
        page,
        `${page.jobs.length} jobs${page.next_cursor ? '; more with cursor = next_cursor' : ''}. ${textOf(page.jobs.map((j) => ({ id: j.id, status: j.status, title: j.source.title })))}`,
      );
    }),
  );

  // Discoveries: one page per call, as POST /v1/video-discoveries + GET …?wait.
  // No key is needed from the caller: each call sends a fresh one, and the
  // discovery short cache (10 minutes, same workspace, same request) makes a
  // repeat free and joins a listing still running.
  const discoveryTool = <S extends z.ZodObject>(
    name: string,
    title: string,
    what: string,
    inputSchema: S,
    toRequest: (args: z.infer<S>) => Record<string, unknown>,
    paged: boolean,
  ) =>
    server.registerTool(
      name,
      {
        title,
        description:
          `${what} Cost: 1 credit per page (held, charged when it succeeds); the same request within 10 minutes is free. ` +
          `Waits up to ${'timeout_seconds' in inputSchema.shape ? 'timeout_seconds (default 20)' : '20 s'} for the page; a listing still running comes back with done false: call get_video_discovery with its id. ` +
          (paged ? 'Next page: call again with cursor = discovery.next_cursor (null on the last page). ' : '') +
          'Needs jobs:write.',
        inputSchema: inputSchema as z.ZodObject,
        outputSchema: z.object({ discovery: DiscoveryOut, done: z.boolean(), next: Next }),
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      guarded(env, async (raw: Record<string, unknown>, ctx) => {
        const args = raw as z.infer<S>;
        const startedAt = Date.now();
        const p = requireScopes(env, 'jobs:write');
        const body = parseRequest(VideoDiscoveryRequestSchema, toRequest(args)) as VideoDiscoveryRequest;
        const scope = { key: `mcp-${randomUUID()}`, operation: DISCOVERY_OPERATION };
        await count(env, p, 'submit', scope);
        const { discovery: accepted } = await submitVideoDiscovery(discoveryDeps(deps), p, body, scope);
        const timeout = (args as { timeout_seconds?: number }).timeout_seconds ?? 20;
        return discoveryResult(await waitDiscovery(env, p, accepted.id, deadlineFor(startedAt, timeout), ctx, startedAt), paged);
      }),
    );

  discoveryTool(
    'search_videosite',
    'Search videosite',
    'One page of videosite search results for query.',
    z.object({ query: z.string().describe('Search text.'), limit: Limit(50, 20), cursor: Cursor, timeout_seconds: Timeout(20) }),
    (a) => ({ kind: 'videosite_search', query: a.query, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_channel_videos',
    'List a channel’s videos',
    'One page of a videosite channel’s videos, newest first.',
    z.object({ channel: z.string().describe('@handle, channel id (UC…) or channel URL.'), limit: Limit(50, 20), cursor: Cursor }),
    (a) => ({ kind: 'videosite_channel_videos', channel: a.channel, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'get_channel_latest_videos',
    'A channel’s latest videos',
    'The newest videos of a videosite channel (the first page of list_channel_videos).',
    z.object({ channel: z.string().describe('@handle, channel id (UC…) or channel URL.'), limit: Limit(50, 20) }),
    (a) => ({ kind: 'videosite_channel_videos', channel: a.channel, limit: a.limit }),
    false,
  );
  discoveryTool(
    'search_channel_videos',
    'Search a channel',
    'One page of a videosite channel’s videos matching query.',
    z.object({
      channel: z.string().describe('@handle, channel id (UC…) or channel URL.'),
      query: z.string(),
      limit: Limit(50, 20),
      cursor: Cursor,
    }),
    (a) => ({ kind: 'videosite_channel_search', channel: a.channel, query: a.query, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_playlist_videos',
    'List a playlist',
    'One page of a videosite playlist’s videos in playlist order.',
    z.object({ playlist: z.string().describe('Playlist id or URL.'), limit: Limit(50, 20), cursor: Cursor }),
    (a) => ({ kind: 'videosite_playlist_videos', playlist: a.playlist, limit: a.limit, cursor: a.cursor }),
    true,
  );
  discoveryTool(
    'list_shortvideo_user_videos',
    'List a shortvideo profile',
    'A shortvideo profile’s latest videos (one page, no cursor); include_details adds likes, comments, shares, hashtags and caption languages per video.',
    z.object({ user: z.string().describe('@user or profile URL.'), limit: Limit(10, 10), include_details: z.boolean().optional() }),
    (a) => ({ kind: 'shortvideo_user_videos', user: a.user, limit: a.limit, include_details: a.include_details }),
    false,
  );

  server.registerTool(
    'get_video_discovery',
    {
      title: 'Read a video listing',
      description:
        'A video discovery by id (free), as GET /v1/video-discoveries/{id}; waits up to 20 s for one still running. Kept 24 hours. Needs jobs:read.',
      inputSchema: z.object({ id: z.uuid() }),
      outputSchema: z.object({ discovery: DiscoveryOut, done: z.boolean(), next: Next }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(env, async (args, ctx) => {
      const startedAt = Date.now();
      const p = requireScopes(env, 'jobs:read');
      await count(env, p, 'read');
      return discoveryResult(await waitDiscovery(env, p, args.id, deadlineFor(startedAt, 20), ctx, startedAt), true);
    }),
  );
}

type DiscoveryView = Awaited<ReturnType<typeof getVideoDiscovery>>;

async function waitDiscovery(
  env: ToolEnv,
  p: Principal,
  id: string,
  deadline: number,
  ctx: Ctx,
  startedAt: number,
): Promise<DiscoveryView> {
  const report = progress(ctx, startedAt, Math.round((deadline - startedAt) / 1000));
  const read = () => getVideoDiscovery(env.deps.db, p.workspaceId, id);
  let d = await read();
  while (d.status !== 'succeeded' && d.status !== 'failed' && !ctx.mcpReq.signal.aborted) {
    const left = (deadline - Date.now()) / 1000;
    if (left < 0.2) break;
    await report(`discovery ${d.status}`);
    d = await waitForDiscovery(env.deps.wakeups, id, read, Math.min(WAIT_STEP_SECONDS, left), ctx.mcpReq.signal);
  }
  return d;
}

function discoveryResult(d: DiscoveryView, paged: boolean): CallToolResult {
  if (d.status === 'failed') return failure(d.error ?? toErrorObject('INTERNAL_ERROR'), { discovery: d });
  const done = d.status === 'succeeded';
  const next = !done
    ? `Still ${d.status}: call get_video_discovery with id ${d.id}.`
    : paged && d.next_cursor
      ? 'More: call the same tool again with cursor = discovery.next_cursor.'
      : null;
  const videos = d.videos.map((v) => ({ video_id: v.video_id, title: v.title, url: v.url, duration_s: v.duration_s }));
  return ok({ discovery: d, done, next }, `Discovery ${d.id} ${d.status}: ${videos.length} videos. ${next ?? ''} ${textOf(videos)}`);
}
