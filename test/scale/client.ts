import type { ServiceProcess } from './processes';

// What a load balancer and a well-behaved client do together, in one place: each request goes to one of the
// live API processes in turn; a refused or reset connection (a process killed) or a 503 `shutting_down` (a
// process draining) is sent to the next process at once; any other 503 or a 429 is retried after its
// Retry-After. A POST keeps its Idempotency-Key across every retry, so a retried submit can never make a
// second job. Every answer is recorded for the checks.

export interface Answer {
  at: number;
  method: string;
  path: string;
  status: number;
  code: string | null;
  detail: string | null;
  retryAfter: string | null;
  /** Which API process answered. */
  api: string;
}

export interface ClientLog {
  answers: Answer[];
  /** Connections refused or reset, by API process. */
  connectionErrors: { at: number; api: string; error: string }[];
}

export class FailoverClient {
  readonly log: ClientLog = { answers: [], connectionErrors: [] };
  private turn = 0;

  constructor(private readonly apis: () => ServiceProcess[]) {}

  /** JSON request with retries; resolves with the first answer that is not a transient refusal. */
  async json(
    method: string,
    path: string,
    opts: { key?: string; body?: unknown; idempotencyKey?: string; giveUpAfterMs?: number } = {},
  ): Promise<{ status: number; body: Record<string, unknown>; retried: boolean }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const res = await this.send(method, path, headers, body, opts.giveUpAfterMs);
    return { status: res.status, body: res.json, retried: res.retried };
  }

  /** Raw bytes (an upload's signed PUT). */
  async put(path: string, contentType: string, bytes: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.send('PUT', path, { 'content-type': contentType }, bytes);
    return { status: res.status, body: res.json };
  }

  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    giveUpAfterMs = 180_000,
  ): Promise<{ status: number; json: Record<string, unknown>; retried: boolean }> {
    const until = Date.now() + giveUpAfterMs;
    // Sent before without an answer that counts (a connection lost, a 503 or 429): the earlier attempt may
    // have done the work, and a POST's answer is then the replay of its Idempotency-Key.
    let retried = false;
    for (; ; retried = true) {
      const live = this.apis();
      if (live.length === 0) {
        if (Date.now() > until) throw new Error(`${method} ${path}: no API process for ${giveUpAfterMs} ms`);
        await sleep(200);
        continue;
      }
      const api = live[this.turn++ % live.length]!;
      let res: Response;
      try {
        res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
          method,
          headers,
          body,
          signal: AbortSignal.timeout(60_000),
        });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        this.log.connectionErrors.push({ at: Date.now(), api: api.name, error: cause });
        if (Date.now() > until) throw new Error(`${method} ${path}: ${cause}`);
        await sleep(50);
        continue;
      }
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        json = { text };
      }
      const error = json.error as { code?: string; details?: { detail?: string } } | undefined;
      const answer: Answer = {
        at: Date.now(),
        method,
        path: path.replace(/[0-9a-f-]{36}/g, ':id').replace(/\?.*$/, ''),
        status: res.status,
        code: error?.code ?? null,
        detail: error?.details?.detail ?? null,
        retryAfter: res.headers.get('retry-after'),
        api: api.name,
      };
      this.log.answers.push(answer);
      const transient = res.status === 503 || res.status === 429;
      if (!transient || Date.now() > until) return { status: res.status, json, retried };
      // A draining process: the next one, now (a load balancer has taken it out on its readiness).
      if (answer.detail === 'shutting_down') continue;
      await sleep(Math.min(Number(answer.retryAfter ?? 1), 5) * 1000);
    }
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
