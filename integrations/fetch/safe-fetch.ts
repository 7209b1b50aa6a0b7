import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import { ServiceError } from '../../core/errors';
import { MAX_MEDIA_BYTES } from '../storage/object-store';
import {
  isHlsPlaylistContentType,
  isHlsPlaylistHead,
  isMediaContentType,
  sniffMedia,
  SNIFF_BYTES,
  type MediaFormat,
} from '../storage/sniff-media';
import { pinnedDispatcher } from './pinned-dispatcher';
import { checkUrl, type AddressPolicy, type CheckedUrl } from './url-guard';

// Downloads a direct media link (any https link to an audio or video file) to
// a local file, safely: every hop is checked by urlGuard and connected through
// a dispatcher pinned to the checked addresses; redirects are followed here,
// by hand, so each one is checked again; the body is cut off at the size limit
// and refused unless its Content-Type and first bytes say audio or video.

export { assertSafeUrl, type AddressPolicy, type Resolver } from './url-guard';

export interface SafeFetchOptions extends AddressPolicy {
  /** Where the body goes; written as <toFile>.<random>.part and renamed when complete and accepted. */
  toFile: string;
  /** Default MAX_MEDIA_BYTES (250 MB). */
  maxBytes?: number;
  /** Redirect hops followed, each checked again. Default 5. */
  maxRedirects?: number;
  /** Whole download, all hops. Default 15 min. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. Default 60 s. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  userAgent?: string;
  /** Tests only: CA (PEM) of a self-signed loopback https server. */
  caForTests?: string | Buffer;
  /** An HLS playlist is fetched, not media: its Content-Type and first line are checked as a playlist's. */
  playlist?: boolean;
}

export interface SafeFetchResult {
  file: string;
  bytes: number;
  /** The Content-Type header of the final answer, if any. */
  contentType: string | null;
  /** What the first bytes say (`hls` for a playlist fetched with `playlist: true`). */
  format: MediaFormat | 'hls';
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** URLs that redirected, in order. */
  redirects: string[];
}

const DEFAULTS = { maxRedirects: 5, timeoutMs: 15 * 60_000 };
const USER_AGENT = 'transcript-service/1.0 (+direct media link fetcher)';

export async function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? MAX_MEDIA_BYTES;
  const maxRedirects = opts.maxRedirects ?? DEFAULTS.maxRedirects;
  const timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const redirects: string[] = [];

  let checked = await checkUrl(url, opts, 'first');
  for (;;) {
    const dispatcher = pinnedDispatcher(checked, opts, {
      connectTimeoutMs: opts.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeoutMs,
      bodyTimeoutMs: opts.idleTimeoutMs,
      ca: opts.caForTests,
    });
    try {
      const res = await send(checked, dispatcher, opts, signal, timeoutMs);
      if (res.statusCode >= 300 && res.statusCode < 400) {
        discard(res);
        const location = header(res, 'location');
        if (!location) throw new ServiceError('SOURCE_NOT_FOUND', `${checked.url.host} answered ${res.statusCode} without a Location`);
        if (redirects.length >= maxRedirects)
          throw new ServiceError('SOURCE_NOT_FOUND', `more than ${maxRedirects} redirects, last from ${checked.url.host}`);
        redirects.push(checked.url.href);
        let next: string;
        try {
          next = new URL(location, checked.url).href; // relative Locations resolve against the hop that sent them
        } catch {
          throw new ServiceError('SOURCE_NOT_FOUND', `${checked.url.host} redirected to an invalid Location`);
        }
        checked = await checkUrl(next, opts, 'redirect');
        continue;
      }
      assertOk(res, checked);
      const saved = await saveBody(res, checked, { ...opts, maxBytes }, signal, timeoutMs);
      return { ...saved, finalUrl: checked.url.href, redirects };
    } finally {
      // Not awaited: close() waits for idle, destroy() is immediate and safe once the body is consumed or destroyed.
      void dispatcher.destroy().catch(() => {});
    }
  }
}

async function send(
  checked: CheckedUrl,
  dispatcher: Dispatcher,
  opts: SafeFetchOptions,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Dispatcher.ResponseData> {
  try {
    return await request(checked.url, {
      method: 'GET',
      dispatcher,
      signal,
      headers: {
        'user-agent': opts.userAgent ?? USER_AGENT,
        accept: opts.playlist
          ? 'application/vnd.apple.mpegurl, audio/mpegurl;q=0.9, */*;q=0.1'
          : 'audio/*, video/*, application/octet-stream;q=0.9, */*;q=0.1',
        // Sizes are limited on the bytes stored; a compressed body would make the limit meaningless.
        'accept-encoding': 'identity',
      },
    });
  } catch (err) {
    throw networkError(err, checked, signal, opts.signal, timeoutMs);
  }
}

/** Status codes to the catalogue; 2xx passes. */
function assertOk(res: Dispatcher.ResponseData, checked: CheckedUrl): void {
  const s = res.statusCode;
  if (s >= 200 && s < 300 && s !== 204 && s !== 206) return;
  discard(res);
  const host = checked.url.host;
  if (s === 404 || s === 410) throw new ServiceError('SOURCE_NOT_FOUND', `${host} answered ${s}`);
  if (s === 401 || s === 403 || s === 407) throw new ServiceError('SOURCE_AUTH_REQUIRED', `${host} answered ${s}`);
  if (s === 429) {
    const retryAfter = Number(header(res, 'retry-after'));
    throw new ServiceError(
      'SOURCE_RATE_LIMITED',
      `${host} answered 429`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: Math.min(retryAfter, 3600) } : {},
    );
  }
  if (s === 451) throw new ServiceError('SOURCE_REGION_RESTRICTED', `${host} answered 451`);
  if (s === 408 || s === 504) throw new ServiceError('SOURCE_TIMEOUT', `${host} answered ${s}`);
  // Other 5xx: the server failed now and may not later: retryable. SOURCE_BLOCKED is kept for answers that say we are blocked.
  if (s >= 500) throw new ServiceError('SOURCE_TIMEOUT', `${host} answered ${s} (server error)`);
  throw new ServiceError('SOURCE_NOT_FOUND', `${host} answered ${s}`);
}

async function saveBody(
  res: Dispatcher.ResponseData,
  checked: CheckedUrl,
  opts: SafeFetchOptions & { maxBytes: number },
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Omit<SafeFetchResult, 'finalUrl' | 'redirects'>> {
  const host = checked.url.host;
  const contentType = header(res, 'content-type') ?? null;
  const encoding = (header(res, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const declared = header(res, 'content-length');
  // Everything knowable from the headers is refused before a body byte is read.
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > opts.maxBytes) {
    discard(res);
    throw new ServiceError('FILE_TOO_LARGE', `${host} announces ${declared} bytes; the limit is ${opts.maxBytes}`);
  }
  const kindOk = opts.playlist ? isHlsPlaylistContentType : isMediaContentType;
  if (contentType !== null && !kindOk(contentType)) {
    discard(res);
    const what = opts.playlist ? 'an HLS playlist' : 'audio or video';
    throw new ServiceError('UNSUPPORTED_MEDIA', `${host} serves ${contentType.split(';')[0]!.trim()}, not ${what}`);
  }
  if (encoding !== 'identity' && encoding !== '') {
    discard(res);
    throw new ServiceError('UNSUPPORTED_MEDIA', `${host} sent the file with Content-Encoding ${encoding}`);
  }

  const part = `${opts.toFile}.${randomUUID().slice(0, 8)}.part`;
  let bytes = 0;
  let head = Buffer.alloc(0);
  let format: MediaFormat | 'hls' | null = null;
  const sniff = (bytes: Buffer) => (opts.playlist ? (isHlsPlaylistHead(bytes) ? 'hls' : null) : sniffMedia(bytes));
  const sniffFailure = () =>
    new ServiceError(
      'UNSUPPORTED_MEDIA',
      opts.playlist
        ? `the file at ${host} is not an HLS playlist (it does not begin with #EXTM3U)`
        : `the file at ${host} is not audio or video (its first bytes match no media format)`,
    );
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) return done(new ServiceError('FILE_TOO_LARGE', `${host} sent more than ${opts.maxBytes} bytes`));
      if (format === null && head.length < SNIFF_BYTES) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (head.length >= SNIFF_BYTES) {
          format = sniff(head);
          if (!format) return done(sniffFailure());
        }
      }
      done(null, chunk);
    },
    flush(done) {
      // Shorter than SNIFF_BYTES: sniff what there is.
      if (format === null) format = sniff(head);
      done(format ? null : sniffFailure());
    },
  });
  try {
    await pipeline(res.body, guard, fs.createWriteStream(part, { flags: 'wx' }));
    await fsp.rename(part, opts.toFile);
  } catch (err) {
    discard(res);
    await fsp.rm(part, { force: true });
    if (err instanceof ServiceError) throw err;
    // Errors of our own file (missing folder, full disk) carry its path: not the source's fault.
    if ((err as NodeJS.ErrnoException).path !== undefined) throw err;
    throw networkError(err, checked, signal, opts.signal, timeoutMs);
  }
  return { file: opts.toFile, bytes, contentType, format: format! };
}

function networkError(
  err: unknown,
  checked: CheckedUrl,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
): unknown {
  if (err instanceof ServiceError) return err;
  if (callerSignal?.aborted) return callerSignal.reason ?? err; // cancellation is not a source failure
  const host = checked.url.host;
  const code = (err as { code?: string }).code ?? (err as Error).name;
  if (code === 'ERR_UNSAFE_PEER') return new ServiceError('UNSAFE_URL', (err as Error).message, { cause: err });
  if (signal.aborted)
    return new ServiceError('SOURCE_TIMEOUT', `${host}: download not finished within ${Math.round(timeoutMs / 1000)} s`, { cause: err });
  if (err instanceof undiciErrors.ConnectTimeoutError)
    return new ServiceError('SOURCE_TIMEOUT', `${host}: connect timed out`, { cause: err });
  if (err instanceof undiciErrors.HeadersTimeoutError)
    return new ServiceError('SOURCE_TIMEOUT', `${host}: no answer in time`, { cause: err });
  if (err instanceof undiciErrors.BodyTimeoutError)
    return new ServiceError('SOURCE_TIMEOUT', `${host}: the download stalled`, { cause: err });
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT')) {
    return new ServiceError('SOURCE_BLOCKED', `${host}: TLS failed (${code})`, { cause: err });
  }
  // Refused, reset, unreachable: no answer at all, retryable like a timeout.
  return new ServiceError('SOURCE_TIMEOUT', `network error ${code} reaching ${host}`, { cause: err });
}

/**
 * Drops a body we will not read, the way undici documents: dump() reads at most
 * `limit` bytes and then closes the connection. (Destroying the stream instead
 * left undici's parser paused; a server that then closed the socket tripped an
 * internal assertion — `assert(!this.paused)` — that crashed the process.)
 */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  void res.body.dump({ limit: 64 * 1024 }).catch(() => {});
}

function header(res: Dispatcher.ResponseData, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
