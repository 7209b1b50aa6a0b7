import { createHmac } from 'node:crypto';
import { acceptedContent, CLIENT_CAPABILITIES_META_KEY, inputResponse, type ClientCapabilities } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Principal } from '../../../domain/accounts/principal';
import { safeEqual } from '../../../domain/accounts/secrets';
import { requestHash } from '../../../domain/idempotency';
import type { JobView } from '../../../domain/jobs/view';
import type { Ctx } from './kit';

// Cost confirmation (issue 14 item 4): the quote of a job the cost-safety cap
// stopped, and asking the user by elicitation.
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

export const CONFIRM_KEY = 'confirm_cost';
export const ConfirmCost = z.object({
  confirm: z.boolean().describe('Spend the quoted credits on AI transcription of this media.'),
});

/** Whether this request's client accepts form elicitation (declared in the 2026-07-28 per-request envelope). */
export function canElicit(ctx: Ctx): boolean {
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    ClientCapabilities | undefined;
  const e = caps?.elicitation as { form?: object; url?: object } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** The quote the user is asked about, bound to the workspace and the call; HMAC-signed because it comes back through the client. */
export function quoteState(secretsKey: string, p: Principal, call: unknown, credits: number): string {
  const body = Buffer.from(JSON.stringify({ w: p.workspaceId, c: credits, h: requestHash(call).slice(0, 32) })).toString('base64url');
  return `${body}.${createHmac('sha256', secretsKey).update(`mcp-quote:${body}`).digest('base64url')}`;
}

/** The user's answer carried by a retried call: the confirmed credits, a refusal, or nothing (no answer, or state not ours). */
export function quoteAnswer(secretsKey: string, p: Principal, call: unknown, ctx: Ctx): { confirmed: number } | 'declined' | null {
  if (!ctx.mcpReq.inputResponses) return null;
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state !== 'string') return null;
  const [body, mac] = state.split('.');
  if (!body || !mac || !safeEqual(mac, createHmac('sha256', secretsKey).update(`mcp-quote:${body}`).digest('base64url'))) return null;
  const q = JSON.parse(Buffer.from(body, 'base64url').toString()) as { w: string; c: number; h: string };
  if (q.w !== p.workspaceId || q.h !== requestHash(call).slice(0, 32)) return null;
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind !== 'elicit') return null;
  return acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY, ConfirmCost)?.confirm === true ? { confirmed: q.c } : 'declined';
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
