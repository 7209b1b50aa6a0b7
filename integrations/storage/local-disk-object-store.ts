import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../../core/errors';
import {
  assertPresignOptions,
  assertValidKey,
  mediaTypeEssence,
  type ObjectStat,
  type ObjectStore,
  type PresignPutOptions,
} from './object-store';
import { buildSignedPutUrl, signatureMatches, type SignedPut } from './upload-signature';

// Objects as plain files under one folder: the embedded dev default, so that
// `npm run dev` works without an S3 server. Layout:
//   <root>/<key>                 the object
//   <root>/.meta/<key>.json      { contentType }
//   <root>/.meta/<key>.put       the signed PUT of this key was used (kept when the object is deleted)
//   <root>/.tmp/<uuid>           writes in progress, renamed into place when complete
// Keys never have a segment starting with '.', so they cannot collide with .meta/.tmp.

export interface LocalDiskObjectStoreOptions {
  /** The folder holding the objects (DATA_DIR/objects). */
  root: string;
  /** Public base URL of the API that mounts createLocalUploadHandler (e.g. http://localhost:3000). */
  baseUrl: string;
  /** HMAC-SHA256 key for signed PUT URLs: at least 32 bytes. */
  signingSecret: Buffer;
  /** For tests: the clock, in ms. */
  now?: () => number;
}

export class LocalDiskObjectStore implements ObjectStore {
  readonly kind = 'local' as const;
  readonly root: string;
  readonly uploadOrigin: string;
  private readonly baseUrl: string;
  private readonly secret: Buffer;
  private readonly now: () => number;

  constructor(opts: LocalDiskObjectStoreOptions) {
    if (opts.signingSecret.length < 32) throw new Error('LocalDiskObjectStore: signingSecret must be at least 32 bytes');
    this.root = path.resolve(opts.root);
    this.baseUrl = opts.baseUrl;
    this.uploadOrigin = new URL(opts.baseUrl).origin;
    this.secret = opts.signingSecret;
    this.now = opts.now ?? Date.now;
  }

  async presignPut(key: string, opts: PresignPutOptions): Promise<string> {
    assertValidKey(key);
    assertPresignOptions(opts);
    const expires = Math.floor(this.now() / 1000) + opts.expiresSeconds;
    return buildSignedPutUrl(this.baseUrl, this.secret, {
      key,
      expires,
      contentType: mediaTypeEssence(opts.contentType),
      bytes: opts.bytes,
    });
  }

  /** The signature check of the upload handler; the handler reports which part failed. */
  verifySignature(p: SignedPut, signature: string): boolean {
    return signatureMatches(this.secret, p, signature);
  }

  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const file = this.fileOf(key);
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) return null;
      return { size: st.size, contentType: await this.readContentType(key) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw unavailable('stat', err);
    }
  }

  async readRange(key: string, start: number, end: number): Promise<Buffer> {
    assertRange(start, end);
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await fsp.open(this.fileOf(key), 'r');
      const buf = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buf, 0, buf.length, start);
      return buf.subarray(0, bytesRead);
    } catch (err) {
      if (isMissing(err)) throw new ServiceError('NOT_FOUND', `no object ${key}`);
      throw unavailable('read', err);
    } finally {
      await handle?.close();
    }
  }

  async download(key: string, toFile: string): Promise<void> {
    try {
      await fsp.copyFile(this.fileOf(key), toFile);
    } catch (err) {
      if (isMissing(err) && !(await exists(path.dirname(toFile)))) throw err; // the caller's folder is missing: its bug, not storage
      if (isMissing(err)) throw new ServiceError('NOT_FOUND', `no object ${key}`);
      throw unavailable('download', err);
    }
  }

  async put(key: string, fileOrBuffer: string | Buffer, contentType: string): Promise<void> {
    const file = this.fileOf(key);
    const tmp = this.tmpFile();
    try {
      if (typeof fileOrBuffer === 'string') await fsp.copyFile(fileOrBuffer, tmp);
      else await fsp.writeFile(tmp, fileOrBuffer);
      await this.commit(key, file, tmp, contentType);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      if (err instanceof ServiceError) throw err;
      if (typeof fileOrBuffer === 'string' && isMissing(err) && !(await exists(fileOrBuffer))) throw err; // caller's file missing
      throw unavailable('write', err);
    }
  }

  /**
   * Streams an upload body into place. Stops as soon as more than `bytes`
   * arrive, and stores nothing unless exactly `bytes` arrived: a half-sent
   * upload never replaces an object. A signed URL takes one whole body: a PUT
   * after one that was stored (or after completion moved it away) is refused
   * with CONFLICT, before its body is read when that is known up front.
   */
  async receive(key: string, body: Readable, bytes: number, contentType: string): Promise<void> {
    assertValidKey(key);
    // Checked synchronously: the body is piped below in this same turn, before its events can be missed.
    if (fs.existsSync(this.usedMarkerOf(key))) throw usedAlready();
    const file = this.fileOf(key);
    const tmp = this.tmpFile();
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > bytes) done(new ServiceError('PAYLOAD_TOO_LARGE', `body is longer than the ${bytes} bytes this URL was signed for`));
        else done(null, chunk);
      },
    });
    // The body is piped in, not handed to pipeline(): pipeline would destroy it on
    // a write error, and with it the socket, so the caller could not answer
    // STORAGE_UNAVAILABLE. Its errors and early close are forwarded by hand.
    const source = new PassThrough();
    body.pipe(source);
    const onError = (err: Error) => source.destroy(err);
    const onClose = () => {
      if (!body.readableEnded)
        source.destroy(Object.assign(new Error('request closed before the body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    body.once('error', onError);
    body.once('close', onClose);
    try {
      await pipeline(source, limit, fs.createWriteStream(tmp, { flags: 'wx' }));
      if (received !== bytes)
        throw new ServiceError('INVALID_REQUEST', `received ${received} of the ${bytes} bytes this URL was signed for`);
      // Claimed exclusively: of two bodies sent at once, one is stored and the other refused.
      await this.claimSignedPut(key);
      await this.commit(key, file, tmp, contentType);
    } catch (err) {
      body.unpipe(source);
      await fsp.rm(tmp, { force: true });
      if (err instanceof ServiceError) throw err;
      // A client that hangs up mid-body surfaces as ERR_STREAM_PREMATURE_CLOSE or ECONNRESET: not a storage fault.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'ECONNABORTED') {
        throw new ServiceError('INVALID_REQUEST', `upload interrupted after ${received} of ${bytes} bytes`, { cause: err });
      }
      throw unavailable('write', err);
    } finally {
      body.off('error', onError);
      body.off('close', onClose);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await fsp.rm(this.fileOf(key), { force: true });
      await fsp.rm(this.metaOf(key), { force: true });
    } catch (err) {
      throw unavailable('delete', err);
    }
  }

  async ensureBucket(): Promise<void> {
    try {
      await fsp.mkdir(path.join(this.root, '.tmp'), { recursive: true });
      await fsp.mkdir(path.join(this.root, '.meta'), { recursive: true });
    } catch (err) {
      throw unavailable('create the data folder', err);
    }
  }

  private fileOf(key: string): string {
    assertValidKey(key);
    return path.join(this.root, key);
  }

  private metaOf(key: string): string {
    return path.join(this.root, '.meta', `${key}.json`);
  }

  private usedMarkerOf(key: string): string {
    return path.join(this.root, '.meta', `${key}.put`);
  }

  private async claimSignedPut(key: string): Promise<void> {
    const marker = this.usedMarkerOf(key);
    await fsp.mkdir(path.dirname(marker), { recursive: true });
    try {
      await (await fsp.open(marker, 'wx')).close();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw usedAlready();
      throw err;
    }
  }

  private tmpFile(): string {
    return path.join(this.root, '.tmp', randomUUID());
  }

  /** Metadata first, then the object: a reader never sees an object without its type. */
  private async commit(key: string, file: string, tmp: string, contentType: string): Promise<void> {
    const meta = this.metaOf(key);
    const metaTmp = this.tmpFile();
    await fsp.writeFile(metaTmp, JSON.stringify({ contentType }));
    await fsp.mkdir(path.dirname(meta), { recursive: true });
    await fsp.rename(metaTmp, meta);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.rename(tmp, file);
  }

  private async readContentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await fsp.readFile(this.metaOf(key), 'utf8')) as { contentType?: unknown };
      return typeof meta.contentType === 'string' ? meta.contentType : 'application/octet-stream';
    } catch (err) {
      if (isMissing(err)) return 'application/octet-stream';
      throw err;
    }
  }
}

export function assertRange(start: number, end: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end - start > 16 * 1024 * 1024) {
    throw new ServiceError('INVALID_REQUEST', `bad byte range [${start}, ${end}) (at most 16 MiB)`);
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function exists(p: string): Promise<boolean> {
  return fsp.access(p).then(
    () => true,
    () => false,
  );
}

function usedAlready(): ServiceError {
  return new ServiceError('CONFLICT', 'signed_upload_url', {
    message: 'This upload URL already took a file; it takes one. Reserve a new upload to send another file.',
  });
}

function unavailable(op: string, err: unknown): ServiceError {
  const code = (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);
  return new ServiceError('STORAGE_UNAVAILABLE', `local storage could not ${op}: ${code}`, { cause: err });
}
