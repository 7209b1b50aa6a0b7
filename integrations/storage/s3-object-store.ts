import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { ServiceError } from '../../core/errors';
import { assertRange } from './local-disk-object-store';
import { assertPresignOptions, assertValidKey, type ObjectStat, type ObjectStore, type PresignPutOptions } from './object-store';

// Objects in an S3 bucket through the `minio` client (MinIO locally, any S3
// service in production).

export interface S3ObjectStoreOptions {
  /** http(s)://host:port the service reaches S3 at (S3_ENDPOINT). */
  endpoint: string;
  /**
   * http(s)://host:port clients reach S3 at, when different (S3_PUBLIC_ENDPOINT):
   * with Docker the service talks to http://minio:9000 but a browser needs
   * http://localhost:9000, and the host is part of what a presigned URL signs.
   */
  publicEndpoint?: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** Fixed so presigning needs no network call to find the bucket's region. Default us-east-1. */
  region?: string;
  /** Budget for metadata calls (stat, delete, bucket checks, range reads). Default 30 s. */
  timeoutMs?: number;
}

export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  readonly uploadOrigin: string;
  private readonly client: Client;
  private readonly presigner: Client;
  private readonly region: string;
  private readonly timeoutMs: number;

  constructor(opts: S3ObjectStoreOptions) {
    this.bucket = opts.bucket;
    this.region = opts.region ?? 'us-east-1';
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.client = makeClient(opts.endpoint, opts, this.region);
    this.uploadOrigin = new URL(opts.publicEndpoint ?? opts.endpoint).origin;
    this.presigner = opts.publicEndpoint ? makeClient(opts.publicEndpoint, opts, this.region) : this.client;
  }

  /** The underlying client, for the benchmark's raw putObject baseline. */
  get raw(): Client {
    return this.client;
  }

  async presignPut(key: string, opts: PresignPutOptions): Promise<string> {
    assertValidKey(key);
    assertPresignOptions(opts);
    // SigV4 query presigning signs the host only: Content-Type and size are
    // checked at completion (verifyStoredUpload), not by S3.
    return this.call('presign', () => this.presigner.presignedPutObject(this.bucket, key, opts.expiresSeconds));
  }

  async stat(key: string): Promise<ObjectStat | null> {
    assertValidKey(key);
    try {
      const st = await this.call('stat', () => this.client.statObject(this.bucket, key), true);
      const type = st.metaData?.['content-type'] ?? st.metaData?.['Content-Type'];
      return { size: st.size, contentType: typeof type === 'string' && type ? type : 'application/octet-stream' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async readRange(key: string, start: number, end: number): Promise<Buffer> {
    assertValidKey(key);
    assertRange(start, end);
    if (end === start) return Buffer.alloc(0);
    try {
      return await this.call(
        'read',
        async () => {
          const stream = await this.client.getPartialObject(this.bucket, key, start, end - start);
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        },
        true,
      );
    } catch (err) {
      if (code(err) === 'InvalidRange') return Buffer.alloc(0); // start is past the end
      if (isNotFound(err)) throw new ServiceError('NOT_FOUND', `no object ${key}`);
      throw err;
    }
  }

  async download(key: string, toFile: string): Promise<void> {
    assertValidKey(key);
    // Our own streaming rather than the client's fGetObject, which in minio 8.0.7
    // failed here with ENOENT on its own .part.minio file. A partial download
    // never lands at toFile: it is written aside and renamed when complete.
    const part = `${toFile}.${randomUUID().slice(0, 8)}.part`;
    try {
      // Large objects: no overall deadline.
      await this.call(
        'download',
        async () => {
          const size = (await this.client.statObject(this.bucket, key)).size;
          await pipeline(await this.client.getObject(this.bucket, key), fs.createWriteStream(part));
          const got = (await fsp.stat(part)).size;
          if (got !== size) throw Object.assign(new Error(`got ${got} of ${size} bytes`), { code: 'ShortRead' });
        },
        true,
        0,
      );
      await fsp.rename(part, toFile);
    } catch (err) {
      await fsp.rm(part, { force: true });
      if (isNotFound(err)) throw new ServiceError('NOT_FOUND', `no object ${key}`);
      throw err;
    }
  }

  async put(key: string, fileOrBuffer: string | Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    const meta = { 'Content-Type': contentType };
    await this.call(
      'write',
      () =>
        typeof fileOrBuffer === 'string'
          ? this.client.fPutObject(this.bucket, key, fileOrBuffer, meta)
          : this.client.putObject(this.bucket, key, fileOrBuffer, fileOrBuffer.length, meta),
      false,
      0,
    );
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    // S3 DELETE of a missing key succeeds, which is the contract here too.
    await this.call('delete', () => this.client.removeObject(this.bucket, key));
  }

  async ensureBucket(): Promise<void> {
    await this.call('create the bucket', async () => {
      if (await this.client.bucketExists(this.bucket)) return;
      try {
        await this.client.makeBucket(this.bucket, this.region);
      } catch (err) {
        // Another process (API vs worker at start-up) made it first.
        if (code(err) !== 'BucketAlreadyOwnedByYou' && code(err) !== 'BucketAlreadyExists') throw err;
      }
    });
  }

  /**
   * Runs one S3 call, turning every failure into STORAGE_UNAVAILABLE (retryable)
   * except a not-found that the caller asked to see. `timeoutMs` 0 = no deadline.
   */
  private async call<T>(op: string, fn: () => Promise<T>, passNotFound = false, timeoutMs = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = fn();
      if (timeoutMs === 0) return await work;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'TIMEOUT' })), timeoutMs);
      });
      work.catch(() => {}); // a late failure after the deadline must not be unhandled
      return await Promise.race([work, deadline]);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      if (passNotFound && isNotFound(err)) throw err;
      if (code(err) === 'InvalidRange') throw err;
      throw new ServiceError('STORAGE_UNAVAILABLE', `S3 could not ${op} (bucket ${this.bucket}): ${code(err) ?? (err as Error).message}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

function makeClient(endpoint: string, opts: S3ObjectStoreOptions, region: string): Client {
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  return new Client({
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: opts.accessKey,
    secretKey: opts.secretKey,
    region,
    // Path-style (http://host/bucket/key) works with MinIO and every S3 service without wildcard DNS.
    pathStyle: true,
  });
}

function code(err: unknown): string | undefined {
  return (err as { code?: string } | undefined)?.code;
}

function isNotFound(err: unknown): boolean {
  const c = code(err);
  return c === 'NotFound' || c === 'NoSuchKey';
}
