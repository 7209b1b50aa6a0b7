import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { testTls } from './tls';
import type { Db } from '../../domain/db';

export interface ReceivedDelivery {
  /** The receiver process's wall clock (ms since the epoch, with a fraction) when the request was complete. */
  received_at: number;
  event_id: string;
  type: string;
  status: number;
  duplicate: boolean;
  signature_ok: boolean;
  timestamp_ok: boolean;
  body: Record<string, unknown>;
  /** The body exactly as received (what a signature is checked over). */
  raw: string;
  headers: Record<string, string>;
  /** The sender's address and port: one value for requests that came over one connection. */
  connection: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  configure(cfg: { secret?: string; failFirst?: number }): void;
  waitFor(predicate: (all: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** Starts the receiver process (test/support/webhook-receiver-process.js) on loopback https. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const tls = testTls();
  const child: ChildProcess = fork(path.join(__dirname, 'webhook-receiver-process.js'), [], {
    env: { ...process.env, TLS_KEY: tls.key, TLS_CERT: tls.cert },
    stdio: 'inherit',
  });
  const received: ReceivedDelivery[] = [];
  const port = await new Promise<number>((resolve) => {
    child.on('message', (m: { listening?: number } & ReceivedDelivery) => {
      if (m.listening) resolve(m.listening);
      else received.push(m);
    });
  });
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    received,
    configure: (cfg) => child.send(cfg),
    async waitFor(predicate, timeoutMs = 15000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until)
          throw new Error(`webhook receiver: condition not met; received ${JSON.stringify(received.map((r) => [r.type, r.status]))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    async close() {
      child.kill();
    },
  };
}

/**
 * The service logs an attempt once the endpoint's answer is back, a moment
 * after the receiver saw the request: waits for the log row the attempt wrote.
 */
export async function loggedDelivery(db: Db, where: { eventId?: string; workspaceId?: string; succeeded?: boolean }, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await db.webhookDelivery.findFirst({ where, orderBy: { attempt: 'desc' } });
    if (row) return row;
    if (Date.now() > deadline) throw new Error(`no webhook delivery was logged for ${JSON.stringify(where)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
