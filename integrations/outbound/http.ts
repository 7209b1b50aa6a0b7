import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { ServiceError } from '../../core/errors';
import { applyOriginOverride, assertLoopbackTarget, parseOriginOverride } from './origin-override';
import { Semaphore } from './semaphore';
import { pinnedDispatcher, type AddressPolicy, type CheckedUrl } from '../fetch';

// The one way platform traffic leaves the worker. Everything a platform sees
// from us goes through here so that timeouts, per-platform concurrency, egress
// proxies, the User-Agent and the test origin override are decided once.

export type OutboundPlatform = 'videosite' | 'shortvideo' | 'photosocial' | 'direct';
const PLATFORMS: readonly OutboundPlatform[] = ['videosite', 'shortvideo', 'photosocial', 'direct'];

export interface OutboundConfig {
  /** `http://127.0.0.1:9999`: send every request there instead (tests, benchmark). Env PLATFORM_ORIGIN_OVERRIDE. */
  originOverride?: string | null;
  /** Egress proxies (`http://user:pass@host:port`), used one at a time per platform and rotated when one is blocked. */
  proxies?: readonly string[];
  /** Per-request budget covering connect, headers and body. Default 15 s. */
  timeoutMs?: number;
  /** Requests in flight per platform (and deliveries to customers' endpoints) in this process. Default 8 each. */
  concurrency?: Partial<Record<OutboundPlatform | 'deliveries', number>>;
  /** Default User-Agent; a request may set its own (the innertube app clients do). */
  userAgent?: string;
  /** Larger (decompressed) bodies are refused. Default 32 MiB. */
  maxBodyBytes?: number;
  /** Hops followed when a request asks for `redirect: 'follow'`. Default 5. */
  maxRedirects?: number;
  /**
   * Refuse any target that is not loopback (after the override): the test
   * stack's guarantee that platform traffic never leaves the machine. Default
   * on, so that an outbound built without settings cannot reach the internet;
   * production turns it off (domain/config.ts outboundSettings).
   */
  loopbackOnly?: boolean;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Serialised as the body, with Content-Type application/json. */
  json?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Default 'manual': a 3xx comes back as is. 'follow' follows it here, so every hop gets the origin override too. */
  redirect?: 'follow' | 'manual';
  /** A blocked answer that is not a 429 (a bot-check page); it makes the request retry through the next proxy. */
  isBlocked?: (response: OutboundResponse) => boolean;
  /** The body is media, not text: it comes back as `bytes` (and `body` is empty). */
  binary?: boolean;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
  /** The body's bytes, with `binary: true`. */
  bytes?: Buffer;
  /** The platform URL that answered (after redirects), never the override. */
  url: string;
  /** Platform URLs of the redirects followed, in order. */
  redirects: string[];
  /** The proxy this answer came through (credentials removed), null when direct. */
  proxy: string | null;
}

/** A POST to an address a caller checked and pinned (a webhook endpoint): what came back. */
export interface DeliveryAnswer {
  /** The HTTP status, or null when there was no answer (refused, reset, timed out). */
  status: number | null;
  /** Why there was no answer; null with a status. */
  error: string | null;
}

export interface Outbound {
  /**
   * Delivers a body to a customer's endpoint (webhooks): never through the
   * platform origin override or the egress proxies, on a connection pinned to
   * the address the SSRF guard checked, within `timeoutMs` in all, at most
   * `concurrency.deliveries` at once per process. The answer's body is dropped.
   */
  deliver(
    checked: CheckedUrl,
    init: { headers: Record<string, string>; body: string; timeoutMs: number; policy: AddressPolicy; caForTests?: string },
  ): Promise<DeliveryAnswer>;
  fetchText(platform: OutboundPlatform, url: string, init?: OutboundRequest): Promise<OutboundResponse>;
  /** fetchText, plus the body parsed as JSON (`json` is undefined when the body is not JSON: the caller decides what that means). */
  fetchJson<T = unknown>(
    platform: OutboundPlatform,
    url: string,
    init?: OutboundRequest,
  ): Promise<OutboundResponse & { json: T | undefined }>;
  close(): Promise<void>;
}

/** No HTTP answer at all (refused, reset, DNS, proxy down). A subclass only so that rotation can recognise it. */
class NoAnswerError extends ServiceError {
  constructor(detail: string, cause: unknown) {
    super('SOURCE_TIMEOUT', detail, { cause });
  }
}

export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';
const DEFAULTS = { timeoutMs: 15_000, concurrency: 8, maxBodyBytes: 32 * 1024 * 1024, maxRedirects: 5 };

export function createOutbound(config: OutboundConfig = {}): Outbound {
  const override = parseOriginOverride(config.originOverride);
  const proxies = [...(config.proxies ?? [])];
  proxies.forEach((p) => new URL(p)); // a malformed proxy fails at start-up, not on the first job
  const timeoutMs = config.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBodyBytes = config.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const maxRedirects = config.maxRedirects ?? DEFAULTS.maxRedirects;
  const loopbackOnly = config.loopbackOnly ?? true;
  const userAgent = config.userAgent ?? DEFAULT_USER_AGENT;
  const slots = Object.fromEntries(PLATFORMS.map((p) => [p, new Semaphore(config.concurrency?.[p] ?? DEFAULTS.concurrency)])) as Record<
    OutboundPlatform,
    Semaphore
  >;
  // Which proxy each platform uses now: a block on one platform says nothing about the others.
  const proxyCursor = Object.fromEntries(PLATFORMS.map((p) => [p, 0])) as Record<OutboundPlatform, number>;
  const direct = new Agent({ keepAliveTimeout: 10_000 });
  const viaProxy = new Map<string, ProxyAgent>();

  function dispatcherFor(proxy: string | null): Dispatcher {
    if (proxy === null) return direct;
    let agent = viaProxy.get(proxy);
    // Always a CONNECT tunnel, also for http targets (undici 8 would forward those as absolute-URI requests):
    // the proxy sees only host and port, the same for every target, and the test origin's http traffic is tunnelled as production's https is.
    if (!agent) viaProxy.set(proxy, (agent = new ProxyAgent({ uri: proxy, proxyTunnel: true })));
    return agent;
  }

  /** One HTTP exchange, retried through the next proxy while the answer is a block and proxies remain. */
  async function sendRotating(
    platform: OutboundPlatform,
    url: string,
    init: OutboundRequest,
  ): Promise<Omit<OutboundResponse, 'url' | 'redirects'>> {
    const attempts = Math.max(1, proxies.length);
    for (let attempt = 1; ; attempt++) {
      const index = proxyCursor[platform];
      const proxy = proxies.length > 0 ? proxies[index % proxies.length] : null;
      const canRotate = proxy !== null && attempt < attempts;
      const rotate = () => {
        // Only the first request to see the block moves the cursor; concurrent ones must not skip a healthy proxy.
        if (proxyCursor[platform] === index) proxyCursor[platform] = (index + 1) % proxies.length;
      };
      let answer: Omit<OutboundResponse, 'url' | 'redirects'>;
      try {
        answer = await sendOnce(url, init, proxy);
      } catch (err) {
        if (canRotate && err instanceof NoAnswerError) {
          rotate();
          continue;
        }
        throw err;
      }
      const blocked = answer.status === 429 || (init.isBlocked?.({ ...answer, url, redirects: [] }) ?? false);
      if (!blocked) return answer;
      if (proxy !== null) rotate();
      if (!canRotate) return answer;
    }
  }

  async function sendOnce(url: string, init: OutboundRequest, proxy: string | null): Promise<Omit<OutboundResponse, 'url' | 'redirects'>> {
    const { target, forwardedHost } = applyOriginOverride(url, override);
    if (loopbackOnly) assertLoopbackTarget(target);
    const headers: Record<string, string> = {
      'user-agent': userAgent,
      accept: '*/*',
      'accept-language': 'en-US,en;q=0.9',
      'accept-encoding': 'gzip, deflate, br',
      ...lowerCaseKeys(init.headers ?? {}),
    };
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    if (forwardedHost !== null) headers['x-forwarded-host'] = forwardedHost;

    const budget = init.timeoutMs ?? timeoutMs;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new Error('timeout')), budget);
    const signal = init.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    try {
      const res = await request(target, {
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        dispatcher: dispatcherFor(proxy),
      });
      const bytes = await readBody(res, maxBodyBytes, url);
      return {
        status: res.statusCode,
        headers: flattenHeaders(res.headers),
        ...(init.binary ? { body: '', bytes } : { body: bytes.toString('utf8') }),
        proxy: proxy === null ? null : redactProxy(proxy),
      };
    } catch (err) {
      if (timer.signal.aborted && !init.signal?.aborted) {
        throw new ServiceError('SOURCE_TIMEOUT', `${new URL(url).host} did not answer within ${budget} ms`, { cause: err });
      }
      if (init.signal?.aborted) throw init.signal.reason ?? err; // cancellation is not a platform failure
      if (err instanceof ServiceError) throw err;
      // No answer at all (refused, reset, DNS): retryable like a timeout. SOURCE_BLOCKED is kept for answers that say we are blocked.
      const code = (err as { code?: string }).code ?? (err as Error).name;
      throw new NoAnswerError(`network error: ${code} reaching ${new URL(url).host}`, err);
    } finally {
      clearTimeout(timeout);
    }
  }

  async function fetchText(platform: OutboundPlatform, url: string, init: OutboundRequest = {}): Promise<OutboundResponse> {
    const release = await slots[platform].acquire(init.signal);
    try {
      const redirects: string[] = [];
      let current = url;
      let hopInit = init;
      for (;;) {
        const answer = await sendRotating(platform, current, hopInit);
        const location = answer.headers.location;
        if (init.redirect !== 'follow' || answer.status < 300 || answer.status > 399 || !location) {
          return { ...answer, url: current, redirects };
        }
        if (redirects.length >= maxRedirects)
          throw new ServiceError('SOURCE_CHANGED', `more than ${maxRedirects} redirects from ${new URL(url).host}`);
        redirects.push(current);
        // Resolved against the platform URL, so a relative Location stays on the platform host (and under the override).
        current = new URL(location, current).href;
        if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && (hopInit.method ?? 'GET') !== 'GET')) {
          hopInit = { ...hopInit, method: 'GET', body: undefined, json: undefined };
        }
      }
    } finally {
      release();
    }
  }

  const deliveries = new Semaphore(config.concurrency?.deliveries ?? DEFAULTS.concurrency);
  const keptForDeliveries = new KeptDispatchers(DELIVERY_DISPATCHERS_KEPT);

  async function deliver(
    checked: CheckedUrl,
    init: { headers: Record<string, string>; body: string; timeoutMs: number; policy: AddressPolicy; caForTests?: string },
  ): Promise<DeliveryAnswer> {
    const release = await deliveries.acquire();
    // An endpoint's connection is kept a few seconds for its next event, but only for the same URL origin
    // and the same checked addresses (the caller checks them again before every delivery): a name that now
    // resolves elsewhere gets a dispatcher, and connections, of its own.
    const key = deliveryKey(checked, init);
    const dispatcherFor = (fresh: boolean) =>
      keptForDeliveries.get(key, fresh, () =>
        pinnedDispatcher(checked, init.policy, {
          connectTimeoutMs: init.timeoutMs,
          headersTimeoutMs: init.timeoutMs,
          bodyTimeoutMs: init.timeoutMs,
          keepAliveMs: DELIVERY_KEEP_ALIVE_MS,
          ...(init.caForTests ? { ca: init.caForTests } : {}),
        }),
      );
    const post = async (dispatcher: Dispatcher) => {
      const res = await request(checked.url, {
        method: 'POST',
        headers: { 'user-agent': `transcript-service-webhooks`, ...lowerCaseKeys(init.headers) },
        body: init.body,
        dispatcher,
        signal: AbortSignal.timeout(init.timeoutMs),
      });
      await res.body.dump(); // the answer's status is all that counts
      return { status: res.statusCode, error: null };
    };
    try {
      const kept = dispatcherFor(false);
      try {
        return await post(kept.dispatcher);
      } catch (err) {
        // A kept connection the endpoint closed as the request went out: once more on a new connection
        // (the event id makes a repeat harmless; webhooks are at least once).
        if (!kept.reused || !closedUnderUs(err)) throw err;
        return await post(dispatcherFor(true).dispatcher);
      }
    } catch (err) {
      const error =
        err instanceof ServiceError
          ? `${err.code}: ${err.detail ?? err.message}`
          : (err as Error).name === 'TimeoutError'
            ? `no answer within ${init.timeoutMs} ms`
            : (err as Error).message;
      return { status: null, error };
    } finally {
      release();
    }
  }

  return {
    deliver,
    fetchText,
    async fetchJson<T>(platform: OutboundPlatform, url: string, init: OutboundRequest = {}) {
      const res = await fetchText(platform, url, { ...init, headers: { accept: 'application/json', ...init.headers } });
      let json: T | undefined;
      try {
        json = JSON.parse(res.body) as T;
      } catch {
        json = undefined;
      }
      return { ...res, json };
    },
    async close() {
      await Promise.all([direct.close(), ...[...viaProxy.values()].map((a) => a.close()), keptForDeliveries.close()]);
    },
  };
}

async function readBody(res: Dispatcher.ResponseData, maxBytes: number, url: string): Promise<Buffer> {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  let stream: Readable = res.body;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.body.pipe(createGunzip());
  else if (encoding === 'br') stream = res.body.pipe(createBrotliDecompress());
  else if (encoding === 'deflate') stream = res.body.pipe(createInflate());
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new ServiceError('SOURCE_CHANGED', `${new URL(url).host} answered with more than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } finally {
    if (stream !== res.body) res.body.destroy();
  }
  return Buffer.concat(chunks);
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function redactProxy(proxy: string): string {
  const u = new URL(proxy);
  u.username = '';
  u.password = '';
  return u.origin;
}

/** How long a webhook endpoint's idle connection is kept: under the 5 s that Node's servers keep theirs. */
export const DELIVERY_KEEP_ALIVE_MS = 4_000;
/** Endpoints whose dispatchers are kept at once in a process (least recently used goes first). */
const DELIVERY_DISPATCHERS_KEPT = 256;

/** What a kept delivery dispatcher is for: the URL's origin, every checked address, and the connection's settings. */
export function deliveryKey(checked: CheckedUrl, init: { timeoutMs: number; policy: AddressPolicy; caForTests?: string }): string {
  const addresses = checked.addresses.map((a) => `${a.family}/${a.address}`).sort();
  return JSON.stringify([checked.url.origin, addresses, init.timeoutMs, Boolean(init.policy.loopbackOnly), init.caForTests ?? null]);
}

/** A reused connection that the other side closed before answering: undici's socket errors. */
function closedUnderUs(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** Dispatchers kept by key, the least recently used closed past `max`. */
export class KeptDispatchers {
  private readonly kept = new Map<string, Dispatcher>();

  constructor(private readonly max: number) {}

  /** The key's dispatcher (`reused` when it was kept from before), or a new one when `fresh` or there is none. */
  get(key: string, fresh: boolean, make: () => Dispatcher): { dispatcher: Dispatcher; reused: boolean } {
    const found = this.kept.get(key);
    if (found) this.kept.delete(key);
    if (found && !fresh) {
      this.kept.set(key, found); // most recently used last
      return { dispatcher: found, reused: true };
    }
    if (found) void found.close();
    const dispatcher = make();
    this.kept.set(key, dispatcher);
    for (const [oldest, d] of this.kept) {
      if (this.kept.size <= this.max) break;
      this.kept.delete(oldest);
      void d.close();
    }
    return { dispatcher, reused: false };
  }

  get size(): number {
    return this.kept.size;
  }

  async close(): Promise<void> {
    const all = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(all.map((d) => d.close()));
  }
}
