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
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { claimServerPort, freePort, portOpen, ROOT, serveUntilSignal, superviseServer } from './proc';

export const STRIPE_MOCK_VERSION = 'v0.203.0';
export const STRIPE_MOCK_MODULE = `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`;
export const STRIPE_MOCK_BIN = path.join(ROOT, '.tools/bin/stripe-mock');
const BUILD_LOG = path.join(ROOT, '.tools/log/stripe-mock-build.log');

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

/** The module version `go install` stamped into the binary, or undefined when it is missing or not a Go build. */
export function builtStripeMockVersion(bin = STRIPE_MOCK_BIN): string | undefined {
  if (!fs.existsSync(bin)) return undefined;
  const out = spawnSync('go', ['version', '-m', bin], { encoding: 'utf8' }).stdout ?? '';
  return /^\s*mod\s+github\.com\/stripe\/stripe-mock\s+(\S+)/m.exec(out)?.[1];
}

/** Builds stripe-mock into .tools/bin unless the pinned version is already there (about 1.5 minutes the first time). */
export function ensureStripeMock(): string {
  const have = builtStripeMockVersion();
  if (have === STRIPE_MOCK_VERSION) return STRIPE_MOCK_BIN;
  if (have) console.log(`[stripe-mock] ${STRIPE_MOCK_BIN} is ${have}, expected ${STRIPE_MOCK_VERSION}: rebuilding`);
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error) {
    if (fs.existsSync(STRIPE_MOCK_BIN)) {
      console.log(`[stripe-mock] Go is not installed, so the version of ${STRIPE_MOCK_BIN} cannot be checked: using it as it is`);
      return STRIPE_MOCK_BIN;
    }
    throw new Error(
      'stripe-mock is missing and Go is not installed to build it. ' +
        `Install Go, or run \`GOBIN=${path.dirname(STRIPE_MOCK_BIN)} go install ${STRIPE_MOCK_MODULE}\`, ` +
        'or point STRIPE_API_BASE at a running stripe-mock.',
    );
  }
  if (go.status !== 0) throw new Error(`\`go version\` failed (exit ${go.status}), so stripe-mock cannot be built: ${go.stderr.trim()}`);
  console.log(
    `[stripe-mock] building ${STRIPE_MOCK_MODULE} into .tools/bin (first run only; about 1.5 minutes; log in ${path.relative(ROOT, BUILD_LOG)})...`,
  );
  fs.mkdirSync(path.dirname(BUILD_LOG), { recursive: true });
  const t0 = Date.now();
  const flags = [process.env.GOFLAGS, '-trimpath'].filter(Boolean).join(' ');
  const r = spawnSync('bash', ['-c', 'set -o pipefail; go install "$MODULE" 2>&1 | tee "$LOG"'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOBIN: path.dirname(STRIPE_MOCK_BIN), GOFLAGS: flags, MODULE: STRIPE_MOCK_MODULE, LOG: BUILD_LOG },
  });
  const seconds = Math.round((Date.now() - t0) / 1000);
  if (r.status !== 0 || builtStripeMockVersion() !== STRIPE_MOCK_VERSION) {
    throw new Error(`go install ${STRIPE_MOCK_MODULE} failed after ${seconds} s (exit ${r.status ?? r.signal}); see ${BUILD_LOG}`);
  }
  console.log(`[stripe-mock] built in ${seconds} s`);
  return STRIPE_MOCK_BIN;
}

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
