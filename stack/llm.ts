/**
 * The embedded language model's server (recognizer/llm_server.py: llama.cpp's OpenAI-compatible server through
 * xllamacpp) for the local stacks: `npm run dev`, the summaries' tests and the bench start one on a free loopback
 * port and point LLM_BASE_URL at it. It stops by itself when the process that started it is gone (LLM_PARENT_PID).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, superviseServer } from './proc';

export const LLM_PYTHON = path.join(ROOT, '.tools/venv-llm/bin/python');
export const LLM_MODEL_FILE = path.join(ROOT, '.tools/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');
/** The name the local stacks give the model (LLM_MODEL): the file it is. */
export const LLM_MODEL_NAME = 'qwen2.5-coder-1.5b-instruct-q4_k_m';

export interface LlmServerHandle {
  pid: number;
  /** What LLM_BASE_URL is set to: http://127.0.0.1:<port>/v1. */
  baseUrl: string;
  stop(): Promise<void>;
}

/** Whether stack/llm-setup.sh has installed the server and the model. */
export function llmInstalled(): boolean {
  return fs.existsSync(LLM_PYTHON) && fs.existsSync(LLM_MODEL_FILE);
}

/** `port` 0 (the default): a free one. */
export async function startLlmServer(opts: { threads?: number; prefix?: string; port?: number } = {}): Promise<LlmServerHandle> {
  if (!llmInstalled()) throw new Error(`${LLM_MODEL_FILE} is missing: run bash stack/llm-setup.sh (npm run dev and npm test run it)`);
  const args = ['-m', 'recognizer.llm_server', '--model', LLM_MODEL_FILE, '--port', String(opts.port ?? 0)];
  if (opts.threads) args.push('--threads', String(opts.threads));
  const child = spawn(LLM_PYTHON, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      LLM_PARENT_PID: String(process.pid),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
      OMP_WAIT_POLICY: 'PASSIVE',
    },
  });
  let address = '';
  let seen = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    if (address) return;
    seen += chunk.toString('utf8');
    const m = /^llm ready: (\S+)$/m.exec(seen);
    if (m) address = m[1]!;
  });
  const pidFile = path.join(ROOT, '.data', `llm-${process.pid}-${child.pid}.pid`);
  fs.mkdirSync(path.dirname(pidFile), { recursive: true });
  const stop = await superviseServer(child, {
    name: 'the language model server',
    prefix: opts.prefix ?? '[llm] ',
    pidFile,
    ready: async () => address !== '',
    readyTimeoutMs: 120_000,
    stepMs: 50,
    killAfterMs: 10_000,
  });
  return { pid: child.pid!, baseUrl: `${address}/v1`, stop };
}
