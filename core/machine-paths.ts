import os from 'node:os';

// Not in core/errors.ts: workflow code imports the catalogue, and a workflow bundle may not import node:os.

/**
 * Where this machine's own files live: a detail or message that names one (a scratch file in ffprobe's complaint, a
 * checkout path in a stack trace) tells a caller about the host and nothing about their request.
 */
const MACHINE_ROOTS = [os.tmpdir(), process.cwd(), os.homedir()].filter((p) => p.length > 1);

/** `text` with every absolute path under one of this machine's roots replaced by `<file>`. */
export function withoutMachinePaths(text: string): string;
export function withoutMachinePaths(text: string | undefined): string | undefined;
export function withoutMachinePaths(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let out = text;
  for (const root of MACHINE_ROOTS) {
    if (!out.includes(root)) continue;
    const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // The root itself or a path below it (`/root` in `/rooted` is neither).
    out = out.replace(new RegExp(`${escaped}(?=$|[/\\s'"\`:,;)])(?:/[^\\s'"\`:,;)]*)?`, 'g'), '<file>');
  }
  return out;
}
