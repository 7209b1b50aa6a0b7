/**
 * Stripe's API surface for dev and tests: stripe-mock, Stripe's own mock
 * server generated from Stripe's OpenAPI document (594 endpoints; parameters
 * validated, fixtures returned, no state kept, no webhooks sent). It is a Go
 * module with no release on npm, so it is built from the Go module proxy once
 * into .tools/bin and reused, like the Temporal CLI (stack/temporal.ts) and
 * MinIO (stack/minio.ts).
 *
 * If STRIPE_API_BASE is set, that server is used and nothing is started.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureGoTool, type GoTool } from './go-tool';
import { claimServerPort, freePort, portOpen, ROOT, serveUntilSignal, superviseServer } from './proc';

export const STRIPE_MOCK_VERSION = 'v0.203.0';
const STRIPE_MOCK_TOOL: GoTool = {
  name: 'stripe-mock',
  bin: path.join(ROOT, '.tools/bin/stripe-mock'),
  modulePath: 'github.com/stripe/stripe-mock',
  version: STRIPE_MOCK_VERSION,
  buildLog: path.join(ROOT, '.tools/log/stripe-mock-build.log'),
  buildTime: 'about 1.5 minutes',
  instead: 'or point STRIPE_API_BASE at a running stripe-mock.',
};

/** The secret key given to stripe-node in dev and tests: stripe-mock takes any `sk_test_<letters and digits>` key. */
export const STRIPE_MOCK_SECRET_KEY = 'sk_test_stripemock';
/** The webhook signing secret of dev and tests (events are signed by the tests themselves: stripe-mock sends none). */
export const STRIPE_DEV_WEBHOOK_SECRET = 'whsec_local_development_only_0123456789';

export interface StripeMockHandle {
  /** http://127.0.0.1:<port>, or STRIPE_API_BASE. */
  apiBase: string;
  started: boolean;
  stop(): Promise<void>;
}

/** Builds stripe-mock into .tools/bin unless the pinned version is already there. */
export const ensureStripeMock = (): string => ensureGoTool(STRIPE_MOCK_TOOL);

export async function startStripeMock(opts: { port: number }): Promise<StripeMockHandle> {
  if (process.env.STRIPE_API_BASE) return { apiBase: process.env.STRIPE_API_BASE, started: false, stop: async () => {} };
  const bin = ensureStripeMock();
  const apiBase = `http://127.0.0.1:${opts.port}`;
  const pidFile = path.join(ROOT, '.data', `stripe-mock-${opts.port}.pid`);
  await claimServerPort({ name: 'stripe-mock', port: opts.port, pidFile, shareHint: `STRIPE_API_BASE=${apiBase}` });
  // Own process group, like Temporal: a Ctrl-C reaches only us, and we stop it after the processes that use it.
  // Both listeners on loopback: given only -http-addr, stripe-mock still opens HTTPS on :12112 (all
  // interfaces), and a second stack on the machine then fails to start.
  const httpsAddr = `127.0.0.1:${await freePort()}`;
  // Its stdout logs every request (three lines each): dropped; errors (a port taken) come on stderr.
  const child = spawn(bin, ['-http-addr', `127.0.0.1:${opts.port}`, '-https-addr', httpsAddr], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const stop = await superviseServer(child, {
    name: `stripe-mock on ${apiBase}`,
    prefix: '[stripe-mock] ',
    pidFile,
    readyTimeoutMs: 30_000,
    stepMs: 100,
    killAfterMs: 5_000,
    // Ready = it answers an API call (any `sk_test_` key is accepted).
    ready: async () => {
      if (!(await portOpen(opts.port))) return false;
      try {
        const res = await fetch(`${apiBase}/v1/prices?limit=1`, {
          headers: { Authorization: `Bearer ${STRIPE_MOCK_SECRET_KEY}` },
          signal: AbortSignal.timeout(2000),
        });
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false;
      }
    },
  });
  return { apiBase, started: true, stop };
}

// `tsx stack/stripe-mock.ts [port]`: build if needed, start, keep running. `--build`: only build.
if (require.main === module) {
  if (process.argv[2] === '--build') {
    console.log(`[stripe-mock] ${ensureStripeMock()} (${STRIPE_MOCK_VERSION})`);
  } else {
    serveUntilSignal('stripe-mock', async () => {
      const s = await startStripeMock({ port: Number(process.argv[2] ?? 12111) });
      return { stop: s.stop, describe: s.apiBase };
    });
  }
}
