import type { Pool, PoolClient } from 'pg';
import { timeoutOrAbort } from '../../core/waiting';

// Long-poll wake-ups. The activity that finalises a job runs
// `NOTIFY job_final, '<job id>'` in the same transaction as the final write, so
// the notice is delivered only once the state is visible. Each API instance
// keeps one LISTEN connection and wakes the requests waiting in it; a request
// that lands on another instance than the one that accepted the job is woken
// the same way. Nothing but the list of local waiters lives in memory.
// Readers of a growing transcript also wake on `job_progress`, sent by the
// step that publishes a piece's segments (domain/jobs/partial-segments.ts).

export const JOB_FINAL_CHANNEL = 'job_final';
export const JOB_PROGRESS_CHANNEL = 'job_progress';

interface Waiter {
  wake: () => void;
  /** Also woken by progress (new segments), not only by the job's end. */
  progress: boolean;
}

export class JobWakeups {
  private client: PoolClient | null = null;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly pool: Pool) {}

  async start(): Promise<void> {
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = await this.pool.connect();
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      const final = msg.channel === JOB_FINAL_CHANNEL;
      if (!final && msg.channel !== JOB_PROGRESS_CHANNEL) return;
      const set = this.waiters.get(msg.payload);
      if (set) for (const w of set) if (final || w.progress) w.wake();
    });
    client.on('error', () => this.reconnect(client));
    await client.query(`LISTEN ${JOB_FINAL_CHANNEL}; LISTEN ${JOB_PROGRESS_CHANNEL}`);
    this.client = client;
  }

  private reconnect(broken: PoolClient): void {
    if (this.closed) return;
    broken.release(true);
    this.client = null;
    this.connecting = null;
    // Wake everyone so they re-read the state; then listen again.
    for (const set of this.waiters.values()) for (const w of set) w.wake();
    setTimeout(() => void this.start().catch(() => undefined), 500).unref();
  }

  /**
   * Resolves when a notice for `jobId` arrives or `timeoutMs` passes. The caller
   * registers before reading the state (see waitForFinal) so no notice is lost. With `progress`, a notice of
   * new segments wakes it too.
   */
  subscribe(
    jobId: string,
    opts: { progress?: boolean } = {},
  ): { wait: (timeoutMs: number, signal?: AbortSignal) => Promise<boolean>; cancel: () => void } {
    let wake!: () => void;
    const woken = new Promise<boolean>((resolve) => (wake = () => resolve(true)));
    const waiter: Waiter = { wake, progress: opts.progress ?? false };
    let set = this.waiters.get(jobId);
    if (!set) this.waiters.set(jobId, (set = new Set()));
    set.add(waiter);
    const cancel = () => {
      set!.delete(waiter);
      if (set!.size === 0) this.waiters.delete(jobId);
    };
    const wait = async (timeoutMs: number, signal?: AbortSignal) => {
      const limit = timeoutOrAbort(timeoutMs, signal);
      try {
        return await Promise.race([woken, limit.ended.then(() => false)]);
      } finally {
        limit.stop();
        cancel();
      }
    };
    return { wait, cancel };
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    if (c) {
      await c.query(`UNLISTEN ${JOB_FINAL_CHANNEL}; UNLISTEN ${JOB_PROGRESS_CHANNEL}`).catch(() => undefined);
      c.release();
    }
  }
}
