import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed PUT URLs of the local-disk store. The signature binds the key, the
// expiry, the Content-Type and the exact size, so a client can upload exactly
// what it reserved and nothing else. The type and size travel in the query
// (signed, so unchangeable) so that a mismatch can be reported as such rather
// than as a bad signature.

export interface SignedPut {
  key: string;
  /** Unix seconds. */
  expires: number;
  contentType: string;
  bytes: number;
}

export const UPLOAD_PATH_PREFIX = '/uploads/put/';

function canonical(p: SignedPut): string {
  // Newline-separated: none of the fields can contain one (keys and types are validated).
  return ['local-put-v1', p.key, String(p.expires), p.contentType, String(p.bytes)].join('\n');
}

export function signPut(secret: Buffer, p: SignedPut): string {
  return createHmac('sha256', secret).update(canonical(p)).digest('base64url');
}

/** Constant-time comparison of the expected and the presented signature. */
export function signatureMatches(secret: Buffer, p: SignedPut, presented: string): boolean {
  const expected = Buffer.from(signPut(secret, p), 'base64url');
  const given = Buffer.from(presented, 'base64url');
  // Lengths differ only for a malformed signature; comparing equal-length buffers keeps timingSafeEqual happy.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `{baseUrl}/uploads/put/<key>?expires=..&content_type=..&bytes=..&signature=..` */
export function buildSignedPutUrl(baseUrl: string, secret: Buffer, p: SignedPut): string {
  const url = new URL(UPLOAD_PATH_PREFIX.slice(1) + p.key.split('/').map(encodeURIComponent).join('/'), withSlash(baseUrl));
  url.searchParams.set('expires', String(p.expires));
  url.searchParams.set('content_type', p.contentType);
  url.searchParams.set('bytes', String(p.bytes));
  url.searchParams.set('signature', signPut(secret, p));
  return url.href;
}

function withSlash(base: string): string {
  // A relative path against 'http://h/api/' keeps /api (a leading slash would drop it).
  return base.endsWith('/') ? base : base + '/';
}
