import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  StandardSchemaV1,
  StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { ServiceError } from '../../../core/errors';
import type { AppDeps } from '../../http/context';
import { registerDiscoveryTools } from './discoveries';
import { registerJobTools } from './jobs';
import { registerSearchTools } from './search';
import { convertedOnce, failure, type Ctx, type ToolRegistrar } from './kit';
import { registerTranscriptTools } from './transcripts';
import { registerVideoTranscriptTool } from './video-transcript';

// The thirteen tools of the spec's "Agent tool server" and search_transcripts (issue 52), by resource like
// api/routes/: every tool calls the domain functions of its REST twin, checks
// the scope the twin needs and counts against the same limits; failures are
// tool results with isError and the spec's error object.

/** One tool as registerTool takes it. */
export type ToolDefinition = Parameters<McpServer['registerTool']>;

/**
 * The tools with their schemas, built once per process (each schema's JSON
 * Schema converted once: convertedOnce); each request's McpServer only
 * registers them (registerToolDefinitions).
 */
export function toolDefinitions(deps: AppDeps): ToolDefinition[] {
  const defs: ToolDefinition[] = [];
  // Records each registration (with its schemas converted once) instead of registering it; the overloads of
  // registerTool are one signature here, hence the cast.
  const recorder = {
    registerTool: (name: string, config: ToolDefinition[1], cb: ToolDefinition[2]) => {
      const input = once(config.inputSchema);
      const standard = isStandard(input) ? input : null;
      defs.push([
        name,
        { ...config, inputSchema: standard ? acceptingAnyArguments(standard) : input, outputSchema: once(config.outputSchema) },
        standard ? checkingArguments(standard, cb as ToolCallback) : cb,
      ] as ToolDefinition);
    },
  } as unknown as ToolRegistrar;
  registerVideoTranscriptTool(recorder, deps);
  registerJobTools(recorder, deps);
  registerTranscriptTools(recorder, deps);
  registerSearchTools(recorder, deps);
  registerDiscoveryTools(recorder, deps);
  return defs;
}

type ToolCallback = (args: unknown, ctx: Ctx) => Promise<CallToolResult | InputRequiredResult>;

/**
 * The SDK validates a call's arguments before the tool runs and answers a failure with its own text ("Input
 * validation error: …", no error object). Every tool's arguments are validated here instead, by the same schema:
 * the SDK is given a schema that takes any arguments (its JSON Schema, which tools/list shows, is the real one),
 * and a refusal is the catalogue's INVALID_REQUEST naming the argument, one line, like every other tool failure.
 */
function acceptingAnyArguments(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  return { '~standard': { ...schema['~standard'], validate: (value) => ({ value }) } };
}

function checkingArguments(schema: StandardSchemaWithJSON, cb: ToolCallback): ToolCallback {
  return async (args, ctx) => {
    const parsed = await schema['~standard'].validate(args ?? {});
    if (parsed.issues) return failure(argumentError(parsed.issues).toObject());
    return cb(parsed.value, ctx);
  };
}

/** The first issue as INVALID_REQUEST naming the argument (`speakers_expected`, `vocabulary[2]`), one line. */
export function argumentError(issues: readonly StandardSchemaV1.Issue[]): ServiceError {
  const issue = issues[0];
  const path = (issue?.path ?? [])
    .map((p) => (typeof p === 'object' && p !== null ? p.key : p))
    .reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
  const field = path || 'arguments';
  const what = (issue?.message ?? 'is not valid').replace(/\s+/g, ' ').slice(0, 300);
  return new ServiceError('INVALID_REQUEST', field, { message: `${field}: ${what}` });
}

function isStandard(schema: unknown): schema is StandardSchemaWithJSON {
  return schema !== null && typeof schema === 'object' && '~standard' in schema;
}

/** A tool's Standard Schema converted once (a raw zod shape or none is left as it is). */
function once<S>(schema: S): S {
  return isStandard(schema) ? (convertedOnce(schema) as S) : schema;
}

export function registerToolDefinitions(server: McpServer, defs: readonly ToolDefinition[]): void {
  for (const def of defs) server.registerTool(...def);
}
