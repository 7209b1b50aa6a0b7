import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { docUrl, ServiceError, toErrorObject } from '../../core/errors';
import { LocalDiskObjectStore } from './local-disk-object-store';
import { assertValidKey, MAX_MEDIA_BYTES, mediaTypeEssence, type ObjectStore } from './object-store';
import { UPLOAD_PATH_PREFIX, type SignedPut } from './upload-signature';

// Receives `PUT /uploads/put/<key>?expires=&content_type=&bytes=&signature=`
// for the local-disk store: the stand-in for S3's presigned PUT. The API mounts
// it before its JSON body parser (the body is the raw file), e.g.
//   app.use(createLocalUploadHandler(store))
// Requests for other paths go to `next` (or get 404 when there is none).
//
// Everything that can be refused is refused before a byte of the body is
// read, and those answers close the connection so a large body is not drained.

export type UploadHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/**
 * Takes any ObjectStore so the API can mount it unconditionally: with S3 the
 * client PUTs to S3 itself, and this handler routes nothing (all to `next`).
 */
export function createLocalUploadHandler(store: ObjectStore): UploadHandler {
  if (!(store instanceof LocalDiskObjectStore)) {
    return (req, res, next) => (next ? next() : fail(req, res, new ServiceError('NOT_FOUND', 'uploads go to S3, not here')));
  }
  return (req, res, next) => {
    // Express strips a mount path from req.url; originalUrl keeps it.
    const rawUrl = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const url = new URL(rawUrl, 'http://local');
    if (!url.pathname.startsWith(UPLOAD_PATH_PREFIX)) {
      if (next) return next();
      return fail(req, res, new ServiceError('NOT_FOUND', `no route ${url.pathname}`));
    }
    handle(store, req, res, url).catch((err) => {
      const error =
        err instanceof ServiceError ? err : new ServiceError('STORAGE_UNAVAILABLE', 'upload could not be stored', { cause: err });
      fail(req, res, error);
    });
  };
}

async function handle(store: LocalDiskObjectStore, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  // Browsers PUT straight to the signed URL: answer the CORS preflight. The URL
  // itself is the credential, so any origin may use it.
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'PUT',
      'Access-Control-Allow-Headers': 'Content-Type',
      'Access-Control-Max-Age': '86400',
    });
    res.end();
    return;
  }
  if (req.method !== 'PUT') {
    res.setHeader('Allow', 'PUT, OPTIONS');
    return fail(
      req,
      res,
      new ServiceError('METHOD_NOT_ALLOWED', `method:${req.method}`, { message: `Use PUT to upload (got ${req.method}).` }),
    );
  }

  const signed = parseSignedPut(url);
  if (typeof signed === 'string') return fail(req, res, new ServiceError('FORBIDDEN', signed));
  if (!store.verifySignature(signed, url.searchParams.get('signature') ?? '')) {
    return fail(
      req,
      res,
      new ServiceError('FORBIDDEN', 'signature does not match this upload URL (it was altered or signed by another server)'),
    );
  }
  // After the signature, so a forged expiry reads as a bad signature, not as "expired".
  if (store.nowSeconds() > signed.expires) {
    return fail(
      req,
      res,
      new ServiceError('FORBIDDEN', `upload URL expired at ${new Date(signed.expires * 1000).toISOString()}; reserve a new upload`),
    );
  }

  const sentType = req.headers['content-type'];
  if (!sentType || mediaTypeEssence(sentType) !== signed.contentType) {
    return fail(
      req,
      res,
      new ServiceError(
        'INVALID_REQUEST',
        `Content-Type ${sentType ? JSON.stringify(sentType) : 'is missing; it'} must be ${signed.contentType}, as declared for this upload`,
      ),
    );
  }
  const sentLength = req.headers['content-length'];
  if (sentLength === undefined || !/^\d+$/.test(sentLength)) {
    // Chunked bodies have no length to check up front.
    return fail(
      req,
      res,
      new ServiceError('INVALID_REQUEST', `Content-Length is required and must be ${signed.bytes}, as declared for this upload`),
    );
  }
  const length = Number(sentLength);
  if (length > signed.bytes) {
    return fail(
      req,
      res,
      new ServiceError('PAYLOAD_TOO_LARGE', `Content-Length ${length} is more than the ${signed.bytes} bytes declared for this upload`),
    );
  }
  if (length !== signed.bytes) {
    return fail(
      req,
      res,
      new ServiceError('INVALID_REQUEST', `Content-Length ${length} is not the ${signed.bytes} bytes declared for this upload`),
    );
  }

  await store.receive(signed.key, req, signed.bytes, signed.contentType);
  res.writeHead(200, { 'Content-Length': '0' });
  res.end();
}

/** The signed fields from the URL, or why they are unusable. */
function parseSignedPut(url: URL): SignedPut | string {
  let key: string;
  try {
    key = url.pathname.slice(UPLOAD_PATH_PREFIX.length).split('/').map(decodeURIComponent).join('/');
    assertValidKey(key);
  } catch {
    return 'upload URL names no valid object';
  }
  const q = url.searchParams;
  const expires = q.get('expires') ?? '';
  const bytes = q.get('bytes') ?? '';
  const contentType = q.get('content_type') ?? '';
  // Numbers as they were signed (plain digits, no leading zero): one value has one spelling.
  if (!/^[1-9]\d{0,11}$/.test(expires) || !/^[1-9]\d{0,11}$/.test(bytes) || !contentType || !q.get('signature')) {
    return 'upload URL is incomplete: expires, content_type, bytes and signature are required';
  }
  if (Number(bytes) > MAX_MEDIA_BYTES) return 'upload URL declares more than the size limit';
  return { key, expires: Number(expires), contentType, bytes: Number(bytes) };
}

function fail(req: IncomingMessage, res: ServerResponse, err: ServiceError, status = err.status): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const locals = (res as ServerResponse & { locals?: { requestId?: unknown } }).locals;
  const requestId = String(locals?.requestId ?? req.headers['x-request-id'] ?? randomUUID());
  const body = JSON.stringify({
    error: { ...toErrorObject(err.code, err.detail, err.message), doc_url: docUrl(err.code) },
    request_id: requestId,
  });
  // Closing tells node not to read (drain) an unread body of up to 250 MB before the next request.
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}
