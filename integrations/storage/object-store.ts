import { ServiceError } from '../../core/errors';

// The one storage interface for uploads and fetched media, used by the API
// (reserve an upload, verify it at completion) and by the worker (download,
// store derived audio, delete on retention). Two implementations: S3 (MinIO or
// any S3 service) and a folder on local disk for the embedded dev default.

export interface PresignPutOptions {
  /** The Content-Type the client declared and must send. */
  contentType: string;
  /** The exact size the client declared and must send. */
  bytes: number;
  /** Validity of the URL; uploads use 24 h. */
  expiresSeconds: number;
}

export interface ObjectStat {
  size: number;
  /** As stored with the object (what the uploader sent), 'application/octet-stream' when none was. */
  contentType: string;
}

export interface ObjectStore {
  readonly kind: 's3' | 'local';
  /** The origin (scheme://host:port) of the URLs presignPut returns: what a browser page must be allowed to connect to for an upload. */
  readonly uploadOrigin: string;
  /**
   * A URL the client PUTs the file body to, without credentials. The S3 URL does
   * not bind Content-Type or size (SigV4 presigning signs only the host), so the
   * upload must be checked at completion (verifyStoredUpload); the local URL binds both.
   */
  presignPut(key: string, opts: PresignPutOptions): Promise<string>;
  /** null when there is no such object. */
  stat(key: string): Promise<ObjectStat | null>;
  /** Bytes [start, end) (end exclusive, like Buffer#subarray); shorter at the end of the object, empty past it. */
  readRange(key: string, start: number, end: number): Promise<Buffer>;
  /** Writes the object to a local file (replaced if present). NOT_FOUND when there is no such object. */
  download(key: string, toFile: string): Promise<void>;
  /** Stores a local file (path) or a buffer under the key, replacing any object there. */
  put(key: string, fileOrBuffer: string | Buffer, contentType: string): Promise<void>;
  /** Removes the object; no error when it is already gone. */
  delete(key: string): Promise<void>;
  /** Creates the bucket or folder when missing; call once at start-up. */
  ensureBucket(): Promise<void>;
}

/** Media size limit from the spec (250 MB). */
export const MAX_MEDIA_BYTES = 262_144_000;
/** Upload slot validity from the spec (24 h). */
export const UPLOAD_URL_TTL_SECONDS = 24 * 60 * 60;
/** S3 caps presigned URLs at 7 days; the local store uses the same cap. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 60 * 60;

/**
 * Keys are `a/b/c` paths of [A-Za-z0-9._-] segments. Both stores accept only
 * these, so a key can never climb out of the local data folder (no `..`, no
 * absolute path, no segment starting with a dot) and means the same thing on S3.
 */
export function assertValidKey(key: string): void {
  const ok =
    typeof key === 'string' &&
    key.length > 0 &&
    key.length <= 512 &&
    key.split('/').every((segment) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(segment));
  if (!ok) throw new ServiceError('INVALID_REQUEST', `invalid object key: ${JSON.stringify(key).slice(0, 80)}`);
}

export function assertPresignOptions(opts: PresignPutOptions): void {
  if (!Number.isSafeInteger(opts.bytes) || opts.bytes < 1)
    throw new ServiceError('INVALID_REQUEST', `bytes must be a positive integer, got ${opts.bytes}`);
  if (opts.bytes > MAX_MEDIA_BYTES)
    throw new ServiceError('FILE_TOO_LARGE', `${opts.bytes} bytes is over the ${MAX_MEDIA_BYTES}-byte limit`);
  if (!Number.isSafeInteger(opts.expiresSeconds) || opts.expiresSeconds < 1 || opts.expiresSeconds > MAX_EXPIRES_SECONDS) {
    throw new ServiceError('INVALID_REQUEST', `expiresSeconds must be 1..${MAX_EXPIRES_SECONDS}, got ${opts.expiresSeconds}`);
  }
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(mediaTypeEssence(opts.contentType))) {
    throw new ServiceError('INVALID_REQUEST', `not a media type: ${JSON.stringify(opts.contentType).slice(0, 80)}`);
  }
}

/** `Audio/MPEG; charset=x` → `audio/mpeg`: parameters never decide what a file is. */
export function mediaTypeEssence(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

export function sameMediaType(a: string, b: string): boolean {
  return mediaTypeEssence(a) === mediaTypeEssence(b);
}
