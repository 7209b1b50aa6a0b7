// Upload throughput: a file PUT to a signed URL, for each store, beside a raw
// write to the same storage without HTTP or signing.
// Run: npx tsx bench/upload.bench.ts [--mb 50] [--runs 5]
//
//  - local disk: the signed PUT through createLocalUploadHandler on loopback
//    (signature check, streaming with the size guard, rename into place),
//    against a plain stream copy of the file into the same folder;
//  - MinIO (built and started by stack/minio.ts, or S3_ENDPOINT): a PUT to a
//    presigned URL, against the client's own putObject of the same file.
// Each row is the median of the runs; MB = 10^6 bytes.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { createLocalUploadHandler } from '../integrations/storage/local-upload-handler';
import { LocalDiskObjectStore } from '../integrations/storage/local-disk-object-store';
import { S3ObjectStore } from '../integrations/storage/s3-object-store';
import { startMinio, type MinioHandle } from '../stack/minio';
import { freePort, ROOT } from '../stack/proc';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MB = arg('mb', 50);
const RUNS = arg('runs', 5);
const BYTES = Math.round(MB * 1_000_000);
const TYPE = 'audio/wav';

interface Row {
  store: string;
  path: string;
  seconds: number[];
}

async function time(fn: () => Promise<void>): Promise<number[]> {
  await fn(); // warm-up: first-touch costs (page cache, connection, JIT) out of the numbers
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    out.push((performance.now() - t0) / 1000);
  }
  return out;
}

async function putFile(url: string, file: string): Promise<void> {
  const res = await request(url, {
    method: 'PUT',
    body: fs.createReadStream(file),
    headers: { 'content-type': TYPE, 'content-length': String(BYTES) },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`PUT answered ${res.statusCode}: ${text.slice(0, 300)}`);
}

async function main() {
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'upload-bench-'));
  const file = path.join(work, 'input.bin');
  await fsp.writeFile(file, randomBytes(BYTES)); // random: nothing on the way can compress it
  const rows: Row[] = [];
  let minio: MinioHandle | undefined;
  let server: http.Server | undefined;
  try {
    // Local disk.
    const root = path.join(work, 'objects');
    let handler: ReturnType<typeof createLocalUploadHandler> | undefined;
    server = http.createServer((req, res) => handler!(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const local = new LocalDiskObjectStore({
      root,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      signingSecret: randomBytes(32),
    });
    await local.ensureBucket();
    handler = createLocalUploadHandler(local);
    rows.push({
      store: 'local disk',
      path: 'baseline: stream copy into the folder',
      seconds: await time(() => pipeline(fs.createReadStream(file), fs.createWriteStream(path.join(root, 'raw')))),
    });
    rows.push({
      store: 'local disk',
      path: 'signed PUT via createLocalUploadHandler',
      seconds: await time(async () =>
        putFile(await local.presignPut('uploads/bench', { contentType: TYPE, bytes: BYTES, expiresSeconds: 600 }), file),
      ),
    });

    // MinIO.
    try {
      minio = await startMinio({ dataDir: path.relative(ROOT, path.join(work, 'minio')), port: await freePort() });
    } catch (e) {
      console.error(`[bench] MinIO unavailable, S3 rows skipped: ${e instanceof Error ? e.message : e}`);
    }
    if (minio) {
      const s3 = new S3ObjectStore({ endpoint: minio.endpoint, accessKey: minio.accessKey, secretKey: minio.secretKey, bucket: 'bench' });
      await s3.ensureBucket();
      rows.push({
        store: `MinIO (${minio.started ? 'local' : minio.endpoint})`,
        path: 'baseline: minio client putObject (stream)',
        seconds: await time(
          async () => void (await s3.raw.putObject('bench', 'raw', fs.createReadStream(file), BYTES, { 'Content-Type': TYPE })),
        ),
      });
      rows.push({
        store: `MinIO (${minio.started ? 'local' : minio.endpoint})`,
        path: 'presigned PUT',
        seconds: await time(async () =>
          putFile(await s3.presignPut('uploads/bench', { contentType: TYPE, bytes: BYTES, expiresSeconds: 600 }), file),
        ),
      });
    }
  } finally {
    server?.closeAllConnections();
    server?.close();
    await minio?.stop();
    await fsp.rm(work, { recursive: true, force: true });
  }

  console.log(
    `\nUpload of a ${MB} MB file (median of ${RUNS} runs after one warm-up; ${os.cpus().length} cores, Node ${process.version})\n`,
  );
  console.log('| Store | Path | Median s | MB/s | vs baseline |');
  console.log('|---|---|---:|---:|---:|');
  const baseline = new Map<string, number>();
  for (const r of rows) {
    const sorted = [...r.seconds].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    if (r.path.startsWith('baseline')) baseline.set(r.store, median);
    const base = baseline.get(r.store)!;
    console.log(
      `| ${r.store} | ${r.path} | ${median.toFixed(3)} | ${(MB / median).toFixed(0)} | ${r.path.startsWith('baseline') ? '1.00×' : `${(median / base).toFixed(2)}× time`} |`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
