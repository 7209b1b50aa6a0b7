import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { AppDeps } from '../../http/context';
import { registerDiscoveryTools } from './discoveries';
import { registerJobTools } from './jobs';
import { convertedOnce, type ToolRegistrar } from './kit';
import { registerTranscriptTools } from './transcripts';
import { registerVideoTranscriptTool } from './video-transcript';

// The thirteen tools of the spec's "Agent tool server", by resource like
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
      defs.push([
        name,
        { ...config, inputSchema: once(config.inputSchema), outputSchema: once(config.outputSchema) },
        cb,
      ] as ToolDefinition);
    },
  } as unknown as ToolRegistrar;
  registerVideoTranscriptTool(recorder, deps);
  registerJobTools(recorder, deps);
  registerTranscriptTools(recorder, deps);
  registerDiscoveryTools(recorder, deps);
  return defs;
}

/** A tool's Standard Schema converted once (a raw zod shape or none is left as it is). */
function once<S>(schema: S): S {
  const standard = schema !== null && typeof schema === 'object' && '~standard' in schema;
  return standard ? (convertedOnce(schema as StandardSchemaWithJSON) as S) : schema;
}

export function registerToolDefinitions(server: McpServer, defs: readonly ToolDefinition[]): void {
  for (const def of defs) server.registerTool(...def);
}
