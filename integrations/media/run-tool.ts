import { spawn } from 'node:child_process';
import { ServiceError } from '../../core/errors';

// One way to run the media command-line tools (ffmpeg, ffprobe, yt-dlp):
// no shell (file names are never interpreted), output
// collected with a cap so a chatty tool cannot exhaust memory, and the child
// killed when the caller's AbortSignal fires (a cancelled Temporal activity
// must not leave a decoder running).

export interface ToolRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  signal?: AbortSignal;
  /** Kill the tool after this long. Default: no limit. */
  timeoutMs?: number;
  /** Keep at most this many characters of each stream (the tail of stderr, the head of stdout). Default 16 MiB / 64 KiB. */
  maxStdout?: number;
  maxStderr?: number;
}

export class ToolMissingError extends Error {}

/** Runs `command args…`; resolves with whatever exit code it had (callers decide what a failure means). */
export function runTool(command: string, args: readonly string[], opts: ToolOptions = {}): Promise<ToolRun> {
  const maxOut = opts.maxStdout ?? 16 * 1024 * 1024;
  const maxErr = opts.maxStderr ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(abortError(opts.signal));
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < maxOut) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (stderr.length > 2 * maxErr) stderr = stderr.slice(-maxErr);
    });
    const kill = () => child.kill('SIGKILL');
    const onAbort = () => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = opts.timeoutMs ? setTimeout(kill, opts.timeoutMs) : undefined;
    child.on('error', (err: NodeJS.ErrnoException) => {
      cleanup();
      reject(err.code === 'ENOENT' ? new ToolMissingError(`${command} is not installed (run stack/speech-setup.sh)`) : err);
    });
    child.on('close', (code, signal) => {
      cleanup();
      if (opts.signal?.aborted) return reject(abortError(opts.signal));
      resolve({ code, signal, stdout, stderr: stderr.slice(-maxErr) });
    });
    function cleanup() {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
}

/** The last non-empty line of a tool's stderr: enough to name the failure in an error detail. */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

// What a tool prints when the host failed its output, not the input: the disk full or read-only, file handles
// short. ffmpeg 5 even exits 0 after "Error writing trailer of out.wav: No space left on device", leaving a cut-off
// file that would have been recognised as if it were the whole recording. (Not "Input/output error" or "Cannot
// allocate memory": ffmpeg also prints those for a damaged or hostile input, which is the media's fault.)
const HOST_FAULT =
  /No space left on device|Disk quota exceeded|Read-only file system|Too many open files|Error writing trailer|Error closing file/i;

/**
 * A tool's failure as the host's own (a retryable INTERNAL_ERROR naming the tool and its line), whatever its exit
 * code; null when its output (stderr) tells of nothing of the kind. Checked before a failure is blamed on the media
 * or the source.
 */
export function hostFault(tool: string, output: string): ServiceError | null {
  const line = output
    .split('\n')
    .map((l) => l.trim())
    .find((l) => HOST_FAULT.test(l));
  return line ? new ServiceError('INTERNAL_ERROR', `${tool} on this worker: ${line.slice(0, 300)}`) : null;
}
