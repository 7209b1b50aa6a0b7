import { spawn } from 'node:child_process';
import path from 'node:path';
import { RECOGNIZER_PYTHON } from '../stack/recognizer';
import type { TestApi, TestWorkspace } from '../test/support/harness';

// What every section of `npm run bench` shares (bench/sections/): the stack
// bench/run.ts starts, the markdown output, and the small measuring helpers.

export interface BenchContext {
  /** The service's API on the private stack, with a real worker on `taskQueue`. */
  api: TestApi;
  /** Where that API listens (http://127.0.0.1:port). */
  base: string;
  /** A bare Express handler (GET and POST), the baseline of the HTTP figures. */
  bareUrl: string;
  taskQueue: string;
  /** Workspaces on the scale plan: reads rotate over `readers` (read limits), submits use `submitters` (credits topped up). */
  readers: TestWorkspace[];
  submitters: TestWorkspace[];
  makeWorkspaces(count: number): Promise<TestWorkspace[]>;
  startTestApi: typeof import('../test/support/harness').startTestApi;
  createWorkspace: typeof import('../test/support/harness').createWorkspace;
  bearer: typeof import('../test/support/harness').bearer;
  /** The load of the throughput figures (bench/load.js). */
  loadCfg: { connections: number; durationSeconds: number };
  /** The replay origin the platform clients are pointed at (PLATFORM_ORIGIN_OVERRIDE of a worker process). */
  originUrl: string;
  /** A line of RESULTS.md (and of the console). */
  out(line?: string): void;
}

export interface BenchSection {
  /** The name `npm run bench -- --only=<name>,…` selects it by. */
  name: string;
  /** Written as its own marked block of RESULTS.md, so a run of this section alone (`--only=`) records it too. */
  ownBlock?: boolean;
  run(ctx: BenchContext): Promise<void>;
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** A videosite id nobody asked for before (the replay origin answers any). */
export const videoId = () => Array.from({ length: 11 }, () => ID_CHARS[Math.floor(Math.random() * 64)]).join('');

export function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

export interface Load {
  rps: number;
  /** How long the load ran (with `amount`, from the first request to the last answer). */
  seconds: number;
  total: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
}

/**
 * A client of the service in its own process, so it does not share the
 * server's event loop: node with `args`, the config as one JSON argument; its
 * last stdout line is the JSON answer.
 */
function runClientProcess<T>(args: string[], cfg: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args.at(-1)} exited ${code}`)),
    );
  });
}

/** bench/load.js: autocannon against one URL. */
export const runLoad = (cfg: object) => runClientProcess<Load>([path.join(__dirname, 'load.js')], cfg);

/** bench/mcp-calls.ts (through tsx): the latencies of each case. */
export const runMcpCalls = (cfg: object) =>
  runClientProcess<Record<string, { rest: number[]; legacy: number[]; modern: number[] }>>(
    ['--import', 'tsx', path.join(__dirname, 'mcp-calls.ts')],
    cfg,
  );

/**
 * `python <args>` in the recognizer's environment, from the project's root: figures measured by the recognizer's own
 * code, read from its stdout as JSON. `input` goes to its stdin.
 */
export function recognizerPython<T>(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(RECOGNIZER_PYTHON, args, {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`python ${args.join(' ')} exited ${code}`)),
    );
    child.stdin.end(opts.input ?? '');
  });
}
