/**
 * Local S3-compatible storage for dev, tests and the benchmark: a MinIO server.
 * MinIO publishes no npm package with a server binary and its download site is
 * unreachable here, so we build it from the Go module proxy once into
 * .tools/bin and reuse it (same approach as stack/temporal.ts).
 *
 * If S3_ENDPOINT is set, that server is used and nothing is started.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureGoTool, type GoTool } from './go-tool';
import { claimServerPort, ROOT, serveUntilSignal, superviseServer } from './proc';

// MinIO tags its releases RELEASE.<date> (not semver), and the module proxy
// here only serves the newest commit as a pseudo-version: this is the last
// commit of github.com/minio/minio (2026-02-12, after RELEASE.2025-10-15),
// go.mod `go 1.24.0`, no `replace` directive. It builds with Go 1.26.
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const MINIO_TOOL: GoTool = {
  name: 'minio',
  bin: path.join(ROOT, '.tools/bin/minio'),
  modulePath: 'github.com/minio/minio',
  version: MINIO_VERSION,
  buildLog: path.join(ROOT, '.tools/log/minio-build.log'),
  buildTime: 'about 10 minutes on 2 cores',
  instead: 'or point S3_ENDPOINT (with S3_ACCESS_KEY, S3_SECRET_KEY) at a running S3 server.',
  // 1,500+ packages: every 100th line of the build shows that it moves.
  progressEvery: 100,
};

export interface MinioHandle {
  /** http://127.0.0.1:<port>, or S3_ENDPOINT. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** false when S3_ENDPOINT was used. */
  started: boolean;
  stop(): Promise<void>;
}

/**
 * Builds the MinIO server into .tools/bin unless the pinned version is already
 * there (about 10 minutes on 2 cores the first time). Synchronous, so a test
 * file can decide at load time whether its S3 suite can run.
 */
export const ensureMinioServer = (): string => ensureGoTool(MINIO_TOOL);

export async function startMinio(opts: { dataDir: string; port: number; accessKey?: string; secretKey?: string }): Promise<MinioHandle> {
  if (process.env.S3_ENDPOINT) {
    return {
      endpoint: process.env.S3_ENDPOINT,
      accessKey: process.env.S3_ACCESS_KEY ?? '',
      secretKey: process.env.S3_SECRET_KEY ?? '',
      started: false,
      stop: async () => {},
    };
  }
  const bin = ensureMinioServer();
  // Not minioadmin: MinIO warns at every start about its well-known default credentials.
  const accessKey = opts.accessKey ?? 'transcripts-local';
  const secretKey = opts.secretKey ?? 'transcripts-local-secret';
  const dataDir = path.resolve(ROOT, opts.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const endpoint = `http://127.0.0.1:${opts.port}`;

  // A server left by a run that was killed hard still holds the port and the data folder.
  const pidFile = path.join(ROOT, '.data', `minio-${opts.port}.pid`);
  await claimServerPort({ name: 'MinIO', port: opts.port, pidFile, shareHint: `S3_ENDPOINT=${endpoint}` });

  const child = spawn(bin, ['server', dataDir, '--address', `127.0.0.1:${opts.port}`, '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      MINIO_ROOT_USER: accessKey,
      MINIO_ROOT_PASSWORD: secretKey,
      // No web console: it would take a second (random) port and is not needed here.
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
    },
  });
  // live = the process serves HTTP; ready = it also accepts S3 calls (a fresh
  // data folder is formatted first, and calls before that fail).
  const stop = await superviseServer(child, {
    name: `MinIO on ${endpoint}`,
    prefix: '[minio] ',
    pidFile,
    readyTimeoutMs: 60_000,
    stepMs: 200,
    killAfterMs: 10_000,
    ready: async () => (await httpOk(`${endpoint}/minio/health/live`)) && (await httpOk(`${endpoint}/minio/health/ready`)),
  });

  return {
    endpoint,
    accessKey,
    secretKey,
    started: true,
    stop,
  };
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

// `tsx stack/minio.ts [dataDir] [port]`: build if needed, start, keep running.
// `tsx stack/minio.ts --build`: only build.
if (require.main === module) {
  if (process.argv[2] === '--build') {
    console.log(`[minio] ${ensureMinioServer()} (${MINIO_VERSION})`);
  } else {
    serveUntilSignal('minio', async () => {
      const m = await startMinio({ dataDir: process.argv[2] ?? '.data/minio-dev', port: Number(process.argv[3] ?? 9000) });
      return { stop: m.stop, describe: `${m.endpoint} (access key ${m.accessKey})` };
    });
  }
}
