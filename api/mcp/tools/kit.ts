import { randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequiredResult, McpServer, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z, ZodError } from 'zod';
import { type ErrorObject } from '../../../core/errors';
import type { Principal } from '../../../domain/accounts/principal';
import type { IdempotencyScope } from '../../../domain/idempotency';
import { orStopping } from '../../http/drain';
import type { AppDeps } from '../../http/context';
import { zodToServiceError } from '../../http/envelope';
import { toServiceError } from '../../http/middleware';
import { DEFAULT_PAGE_CHARS, MAX_PAGE_CHARS, MIN_PAGE_CHARS, TRANSCRIPT_FORMATS } from '../transcript-page';
import { portableJsonSchema } from '../portable-schema';

// What every tool module shares: the output and input schemas, the result
// shapes, and the plumbing that makes a tool behave like its REST twin (the
// caller from the call's context, scopes, the same rate-limit and
// idempotency accounting, errors as the spec's error object).

/** A tool call never waits past this (remote tool calls are capped at about 40 s). */
export const MAX_TOOL_WAIT_SECONDS = 38;
/** Progress notifications and re-reads while a tool waits. */
export const WAIT_STEP_SECONDS = 5;
/** Without max_credits, a tool submitting AI transcription caps the job at this: the 2 credits held at acceptance. */
export const UNCONFIRMED_MAX_CREDITS = 2;

export type Ctx = ServerContext;

/**
 * What a tool's wait listens to: the call cancelled or its connection gone, or this process beginning to stop
 * (the tool then answers the state as it is, with what to call next).
 */
export function toolWaitSignal(deps: Pick<AppDeps, 'stopping'>, ctx: Ctx): AbortSignal {
  return orStopping(ctx.mcpReq.signal, deps);
}
export type ToolRegistrar = Pick<McpServer, 'registerTool'>;

// ---------------------------------------------------------------------------
// Output schemas (structuredContent)

export const ErrorOut = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  retry_after_seconds: z.number().int().optional(),
  details: z.object({ detail: z.string() }).optional(),
});
export const JobOut = z.looseObject({
  id: z.string(),
  status: z.string(),
  stage: z.string().nullable(),
  result_id: z.string().nullable(),
  error: ErrorOut.nullable(),
  billing: z.looseObject({ credits_reserved: z.number(), credits_charged: z.number(), kind: z.string() }),
});
export const QuoteOut = z.object({
  credits: z.number().int().describe('The exact price of this media: 2 credits per started minute (60 s minimum).'),
  max_credits: z.number().int().describe('The cap the job ran with; nothing was charged.'),
  message: z.string(),
  confirm: z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }).describe('The call that spends the quote.'),
});
export const TranscriptOut = z.looseObject({
  id: z.string(),
  language: z.string().nullable(),
  source_origin: z.string(),
  timing_granularity: z.string(),
  duration_seconds: z.number().nullable(),
});
export const PageOut = z.object({
  format: z.enum(TRANSCRIPT_FORMATS),
  offset: z.number().int(),
  next_offset: z.number().int().nullable(),
  content: z.string().optional(),
  segments: z
    .array(
      z.object({
        start: z.number(),
        end: z.number(),
        text: z.string(),
        speaker: z.string().nullable(),
        language: z.string().nullable(),
        match: z.number().nullable(),
      }),
    )
    .optional(),
  words: z
    .array(z.union([z.tuple([z.number(), z.number(), z.string()]), z.tuple([z.number(), z.number(), z.string(), z.string()])]))
    .optional(),
  returned_chars: z.number().int(),
  total_chars: z.number().int(),
  total_segments: z.number().int(),
  total_words: z.number().int().optional(),
});
export const DiscoveryOut = z.looseObject({
  id: z.string(),
  status: z.string(),
  videos: z.array(z.looseObject({ video_id: z.string(), url: z.string(), title: z.string().nullable() })),
  next_cursor: z.string().nullable(),
  error: ErrorOut.nullable(),
});
export const Next = z.string().nullable().describe('What to call next, if anything.');

// ---------------------------------------------------------------------------
// Inputs shared by several tools

export const Url = z.string().describe('A videosite or shortvideo video link, or any https link to an audio or video file.');
export const Mode = z
  .enum(['captions_only', 'auto', 'transcribe'])
  .describe(
    'captions_only: the video’s own captions, 1 credit, fails NO_CAPTIONS when none. auto: captions when present, else AI transcription. transcribe: always AI transcription (paid plans), 2 credits per started minute.',
  );
export const MaxCredits = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .describe(
    `Spending cap for AI transcription. Without it the tool spends at most ${UNCONFIRMED_MAX_CREDITS} credits: longer media comes back as a quote (the exact price); call again with max_credits = the quote to confirm.`,
  );
export const Timeout = (dflt: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(600)
    .optional()
    .describe(`Seconds to wait for the result (default ${dflt}; never more than ${MAX_TOOL_WAIT_SECONDS} in one call).`);
export const Offset = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Where the page starts: next_offset of the previous page (a character offset; a segment index for segments).');
export const MaxChars = z
  .number()
  .int()
  .min(MIN_PAGE_CHARS)
  .max(MAX_PAGE_CHARS)
  .optional()
  .describe(`Page size in characters (default ${DEFAULT_PAGE_CHARS}, about ${DEFAULT_PAGE_CHARS / 4} tokens).`);
export const Limit = (max: number, dflt: number) =>
  z.number().int().min(1).max(max).optional().describe(`Videos per page, 1 to ${max} (default ${dflt}).`);
export const Cursor = z.string().optional().describe('next_cursor of the previous page (valid 24 hours, bound to the same listing).');

// ---------------------------------------------------------------------------
// Results

export function textOf(value: unknown): string {
  return JSON.stringify(value);
}

export function ok(structured: Record<string, unknown>, summary: string): CallToolResult {
  return { content: [{ type: 'text', text: summary }], structuredContent: structured };
}

export function failure(error: ErrorObject, extra: Record<string, unknown> = {}): CallToolResult {
  const structured = { error, ...extra };
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message} (retryable: ${error.retryable}) ${textOf(structured)}` }],
    structuredContent: structured,
  };
}

// ---------------------------------------------------------------------------
// Plumbing

/** The principal api/mcp/server.ts put on the request (`AuthInfo.extra.principal`): each call's caller, from its own context. */
export function principalOf(ctx: Ctx): Principal | null {
  return (ctx.http?.authInfo?.extra as { principal?: Principal } | undefined)?.principal ?? null;
}

/** The scope rule and the accounting of the REST twin, from the one call pipeline (api/http/pipeline.ts). */
export { requireScopes, countToolCall as count, countedToolRead as countedRead } from '../../http/pipeline';

/** A tool's handler: its arguments, the call's context and its caller. */
export type ToolHandler<A> = (args: A, ctx: Ctx, caller: Principal | null) => Promise<CallToolResult | InputRequiredResult>;

/** The handler with its caller taken from the call's context, and any failure answered as the spec's error object. */
export function guarded<A>(deps: AppDeps, fn: ToolHandler<A>) {
  return async (args: A, ctx: Ctx): Promise<CallToolResult | InputRequiredResult> => {
    try {
      return await fn(args, ctx, principalOf(ctx));
    } catch (err) {
      const e = err instanceof ZodError ? zodToServiceError(err, 'body') : toServiceError(err, deps.logger, `mcp:${String(ctx.mcpReq.id)}`);
      return failure(e.toObject());
    }
  };
}

/** Progress notifications while a tool waits, when the client sent a progressToken. */
export function progress(ctx: Ctx, startedAt: number, totalSeconds: number) {
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

export const deadlineFor = (startedAt: number, timeoutSeconds: number) =>
  startedAt + Math.min(Math.max(0, timeoutSeconds), MAX_TOOL_WAIT_SECONDS) * 1000;

/** A fresh key per call, for the tools that take none (the discovery short cache makes their repeats free). */
export const freshKey = (operation: string): IdempotencyScope => ({ key: `mcp-${randomUUID()}`, operation });

/**
 * A tool's schema with its JSON Schema converted once per process: the SDK
 * converts per McpServer instance (for tools/list, and on every 2026-07-28
 * tools/call for its Mcp-Param header check), and ours live one request.
 * A Standard Schema of its own that validates with the zod schema and
 * answers the conversion it made the first time, spelled portably
 * (portable-schema.ts); the zod schema is left as it is.
 */
export function convertedOnce<S extends StandardSchemaWithJSON>(
  schema: S,
): StandardSchemaWithJSON<StandardSchemaWithJSON.InferInput<S>, StandardSchemaWithJSON.InferOutput<S>> {
  const std = schema['~standard'];
  const memo = new Map<string, Record<string, unknown>>();
  const once = (io: 'input' | 'output') => (options: Parameters<typeof std.jsonSchema.input>[0]) => {
    const key = `${io}:${options.target}`;
    // Spelled so that every client reads it (portable-schema.ts).
    if (!memo.has(key)) memo.set(key, portableJsonSchema(std.jsonSchema[io](options)));
    return memo.get(key)!;
  };
  return {
    '~standard': {
      version: std.version,
      vendor: std.vendor,
      validate: (value) => std.validate(value),
      jsonSchema: { input: once('input'), output: once('output') },
    },
  };
}

export { TRANSCRIPT_FORMATS, z };
