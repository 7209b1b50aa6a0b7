/**
 * The speech recognizer worker (recognizer/, Python) for the local stacks:
 * `npm run dev`, `npm test`, the benchmarks and `npm run eval:asr` start one
 * with the environment stack/recognizer-setup.sh installed, on the same
 * Temporal server, namespace and object store as the TypeScript processes.
 * It loads the Whisper model once, then serves `recognizePiece` on the
 * recognition task queue until stopped. It also stops by itself when the
 * process that started it is gone (RECOGNIZER_PARENT_PID), so a SIGKILLed
 * test run leaves no recognizer behind.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, superviseServer } from './proc';

export const RECOGNIZER_VENV = path.join(ROOT, '.tools/venv-recognizer');
export const RECOGNIZER_PYTHON = path.join(RECOGNIZER_VENV, 'bin/python');

export interface RecognizerHandle {
  pid: number;
  /** Settles when the worker process exits (for whatever reason). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The worker's ready line (model, threads, task queue, store, start-up times). */
  readyLine: string;
  /** From spawn to the ready line. */
  startMs: number;
  stop(): Promise<void>;
}

export interface RecognizerOptions {
  temporalAddress: string;
  namespace?: string;
  /** RECOGNITION_TASK_QUEUE; default `recognition` (the worker's and the workflow's default). */
  taskQueue?: string;
  /** DATA_DIR of the local object store shared with the API and worker (ignored when env has S3_ENDPOINT). */
  dataDir: string;
  /** Extra environment (S3_*, WHISPER_*, RECOGNIZER_CONCURRENCY, LOG_LEVEL). */
  env?: Record<string, string | undefined>;
  /** Output prefix; default `[recognizer] `. */
  prefix?: string;
}

export async function startRecognizer(opts: RecognizerOptions): Promise<RecognizerHandle> {
  if (!fs.existsSync(RECOGNIZER_PYTHON)) {
    throw new Error(`${RECOGNIZER_PYTHON} is missing: run bash stack/recognizer-setup.sh (npm run dev and npm test run it)`);
  }
  const t0 = Date.now();
  const child = spawn(RECOGNIZER_PYTHON, ['-m', 'recognizer', 'worker'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...opts.env,
      TEMPORAL_ADDRESS: opts.temporalAddress,
      TEMPORAL_NAMESPACE: opts.namespace ?? 'default',
      ...(opts.taskQueue ? { RECOGNITION_TASK_QUEUE: opts.taskQueue } : {}),
      DATA_DIR: path.resolve(ROOT, opts.dataDir),
      RECOGNIZER_PARENT_PID: String(process.pid),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
    },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let readyLine = '';
  let seen = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    if (readyLine) return;
    seen += chunk.toString('utf8');
    const line = seen.split('\n').find((l) => l.startsWith('recognizer ready:'));
    if (line) readyLine = line;
  });
  const pidFile = path.join(ROOT, '.data', `recognizer-${process.pid}-${child.pid}.pid`);
  fs.mkdirSync(path.dirname(pidFile), { recursive: true });
  const stop = await superviseServer(child, {
    name: 'the recognizer worker',
    prefix: opts.prefix ?? '[recognizer] ',
    pidFile,
    ready: async () => readyLine !== '',
    readyTimeoutMs: 120_000,
    stepMs: 50,
    killAfterMs: 10_000,
  });
  return { pid: child.pid!, exited, readyLine, startMs: Date.now() - t0, stop };
}

/** Resident memory of a process (VmRSS from /proc), in MiB; NaN when it cannot be read. */
export function residentMemoryMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The key=value fields of the worker's ready line (model, device, compute_type, threads, load_s, …). */
export function readyFields(readyLine: string): Record<string, string> {
  return Object.fromEntries([...readyLine.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}
