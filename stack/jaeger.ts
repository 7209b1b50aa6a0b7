/**
 * The local trace store for a person (`npm run dev -- --traces`): Jaeger v1.76.0 built from its Go module
 * into .tools/bin/jaeger, receiving OTLP from the API, the worker and the recognizer, keeping spans in memory,
 * answering Jaeger's query API (`npm run traces -- <trace id>` prints a trace from it).
 *
 * Its go.mod carries replace directives, so `go install module@version` refuses it; it is built the way its
 * module path suggests for a tool: `go get -tool` in a scratch module, then `go build`. The Go module ships no
 * web UI assets (the Jaeger UI is built from another repository, published in no package registry reachable
 * here), so Jaeger's own page at the query port is its placeholder; the query API is complete.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, superviseServer } from './proc';

export const JAEGER_VERSION = 'v1.76.0';
const MODULE = 'github.com/jaegertracing/jaeger';
const BIN = path.join(ROOT, '.tools/bin/jaeger');
const STAMP = path.join(ROOT, `.tools/bin/.jaeger-${JAEGER_VERSION}`);
const CONFIG = path.join(ROOT, 'stack/jaeger-config.yaml');

/** Builds Jaeger into .tools/bin unless this version is there (minutes on 2 cores the first time; the Go build cache keeps a rebuild quick). */
export function ensureJaeger(): string {
  if (fs.existsSync(STAMP) && fs.existsSync(BIN)) return BIN;
  const scratch = fs.mkdtempSync(path.join(ROOT, '.tools/.jaeger-build-'));
  const log = path.join(ROOT, '.tools/log/jaeger-build.log');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  try {
    console.log(
      `[jaeger] building ${MODULE} ${JAEGER_VERSION} (first run only; minutes on 2 cores; log in ${path.relative(ROOT, log)})...`,
    );
    const t0 = Date.now();
    const script = [
      'set -euo pipefail',
      'go mod init jaeger-build >/dev/null 2>&1',
      `go get -tool "${MODULE}/cmd/jaeger@${JAEGER_VERSION}"`,
      `go build -trimpath -o "$BIN" "${MODULE}/cmd/jaeger"`,
    ].join('\n');
    const r = spawnSync('bash', ['-c', `(${script}) > "$LOG" 2>&1`], {
      cwd: scratch,
      stdio: 'inherit',
      env: { ...process.env, BIN, LOG: log },
    });
    if (r.status !== 0) {
      const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-10).join('\n') : '';
      throw new Error(`building Jaeger ${JAEGER_VERSION} failed (exit ${r.status}); log in ${log}:\n${tail}`);
    }
    fs.writeFileSync(STAMP, '');
    console.log(`[jaeger] built in ${Math.round((Date.now() - t0) / 1000)} s`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return BIN;
}

export interface JaegerHandle {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the service's processes. */
  otlpEndpoint: string;
  /** Jaeger's query API (and its placeholder page). */
  queryUrl: string;
  stop(): Promise<void>;
}

export async function startJaeger(ports: { otlp: number; query: number; queryGrpc: number }): Promise<JaegerHandle> {
  const bin = ensureJaeger();
  const child = spawn(bin, ['--config', CONFIG], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      JAEGER_OTLP_PORT: String(ports.otlp),
      JAEGER_QUERY_PORT: String(ports.query),
      JAEGER_QUERY_GRPC_PORT: String(ports.queryGrpc),
    },
  });
  const queryUrl = `http://127.0.0.1:${ports.query}`;
  const pidFile = path.join(ROOT, '.data', `jaeger-${ports.query}.pid`);
  fs.mkdirSync(path.dirname(pidFile), { recursive: true });
  const stop = await superviseServer(child, {
    name: 'Jaeger',
    prefix: '[jaeger] ',
    pidFile,
    ready: () =>
      fetch(`${queryUrl}/api/services`).then(
        (r) => r.ok,
        () => false,
      ),
    readyTimeoutMs: 30_000,
    stepMs: 200,
    killAfterMs: 5_000,
  });
  return { otlpEndpoint: `http://127.0.0.1:${ports.otlp}`, queryUrl, stop };
}
