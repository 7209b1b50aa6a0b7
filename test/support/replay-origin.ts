import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

// A loopback HTTP server that plays the platforms' part: the service runs with
// PLATFORM_ORIGIN_OVERRIDE pointing here, every platform request arrives with
// its real path, query and body (and the platform host in X-Forwarded-Host),
// and is answered from a recorded response. Recordings are read in place from
// the shared fixtures folder: they are other people's data and are never copied
// into this repository.

/** The shared recordings (`../shared/fixtures` next to the repo; CI sets nothing). */
export const FIXTURES_DIR = process.env.FIXTURES_DIR ?? path.resolve(__dirname, '../../../shared/fixtures');
/** Fixtures written by this project, each marked HAND-MADE. */
export const HANDMADE_DIR = path.resolve(__dirname, '../fixtures-handmade');

export function fixturesAvailable(): boolean {
  return existsSync(path.join(FIXTURES_DIR, 'videosite'));
}

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The platform host the request was meant for (X-Forwarded-Host), or null. */
  forwardedHost: string | null;
  body: string;
  /** False when no route answered (the origin replied 404). */
  matched: boolean;
}

export interface ReplayRoute {
  /** Default GET. */
  method?: string;
  /** Exact path, without the query. */
  path: string;
  /** Only requests meant for this platform host (X-Forwarded-Host). */
  host?: string;
  /** Further condition on the request (query, body, headers). */
  when?: (req: RecordedRequest) => boolean;
  /** Default: the recording's status, else 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Answer body given inline. */
  body?: string | Buffer;
  /** Inline JSON answer. */
  json?: unknown;
  /** A file under FIXTURES_DIR, answered as is. */
  fixture?: string;
  /** A file under HANDMADE_DIR, answered as is. */
  handmade?: string;
  /** A NewPipe exchange file (`*.newpipe-mock.json`) under FIXTURES_DIR: its status, content type and body. */
  recording?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /**
   * Files of a folder, read when asked (a live stream's playlist and segments, written as it airs): `path` is then
   * a prefix, and the rest of the request's path names the file (404 when it is not there yet, or no longer).
   */
  folder?: string;
}

export interface ReplayOrigin {
  /** `http://127.0.0.1:<port>`: the value for PLATFORM_ORIGIN_OVERRIDE. */
  url: string;
  /** Every request received, in order (matched or not). Clear between tests with `origin.requests.length = 0`. */
  requests: RecordedRequest[];
  setRoutes(routes: ReplayRoute[]): void;
  close(): Promise<void>;
}

interface Prepared {
  route: ReplayRoute;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export async function startReplayOrigin(routes: ReplayRoute[] = []): Promise<ReplayOrigin> {
  let prepared = routes.map(prepare);
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', 'http://replay.invalid');
      const forwarded = req.headers['x-forwarded-host'];
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: target.pathname,
        query: target.searchParams,
        url: req.url ?? '/',
        headers: req.headers,
        forwardedHost: typeof forwarded === 'string' ? forwarded : null,
        body: Buffer.concat(chunks).toString('utf8'),
        matched: false,
      };
      requests.push(recorded);
      const hit = prepared.find(({ route }) => matches(route, recorded));
      if (!hit) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`no replay route for ${recorded.method} ${recorded.path}`);
        return;
      }
      recorded.matched = true;
      if (hit.route.folder !== undefined) {
        const name = path.basename(recorded.path.slice(hit.route.path.length));
        let body: Buffer;
        try {
          body = readFileSync(path.join(hit.route.folder, name));
        } catch {
          res.writeHead(404, { 'content-type': 'text/plain' }).end(`no file ${name}`);
          return;
        }
        const type = name.endsWith('.m3u8')
          ? 'application/vnd.apple.mpegurl'
          : name.endsWith('.ts')
            ? 'video/mp2t'
            : 'application/octet-stream';
        res.writeHead(200, { 'content-type': type, 'content-length': String(body.length), ...hit.headers }).end(body);
        return;
      }
      const answer = () => {
        if (res.destroyed) return; // the client gave up (timeout tests)
        res.writeHead(hit.status, { 'content-length': String(hit.body.length), ...hit.headers }).end(hit.body);
      };
      if (hit.route.delayMs) setTimeout(answer, hit.route.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setRoutes(next) {
      prepared = next.map(prepare);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function matches(route: ReplayRoute, req: RecordedRequest): boolean {
  if ((route.method ?? 'GET').toUpperCase() !== req.method) return false;
  if (route.folder !== undefined ? !req.path.startsWith(route.path) : route.path !== req.path) return false;
  if (route.host !== undefined && route.host !== req.forwardedHost) return false;
  return route.when ? route.when(req) : true;
}

// Files are read when the routes are set, so a wrong path fails the test at once.
function prepare(route: ReplayRoute): Prepared {
  let status = route.status ?? 200;
  let headers: Record<string, string> = {};
  let body: Buffer;
  if (route.recording !== undefined) {
    const exchange = JSON.parse(readFileSync(path.join(FIXTURES_DIR, route.recording), 'utf8')) as {
      response: { responseCode: number; responseHeaders: Record<string, string[]>; responseBody: string };
    };
    status = route.status ?? exchange.response.responseCode;
    const type = exchange.response.responseHeaders['content-type']?.[0];
    if (type) headers['content-type'] = type;
    body = Buffer.from(exchange.response.responseBody, 'utf8');
  } else if (route.fixture !== undefined) {
    body = readFileSync(path.join(FIXTURES_DIR, route.fixture));
    headers['content-type'] = contentTypeFor(route.fixture);
  } else if (route.handmade !== undefined) {
    body = readFileSync(path.join(HANDMADE_DIR, route.handmade));
    headers['content-type'] = contentTypeFor(route.handmade);
  } else if (route.json !== undefined) {
    body = Buffer.from(JSON.stringify(route.json), 'utf8');
    headers['content-type'] = 'application/json; charset=UTF-8';
  } else {
    body = Buffer.isBuffer(route.body) ? route.body : Buffer.from(route.body ?? '', 'utf8');
    if (route.body !== undefined && route.body.length > 0) headers['content-type'] = 'text/plain; charset=utf-8';
  }
  headers = { ...headers, ...lowerCaseKeys(route.headers ?? {}) };
  return { route, status, headers, body };
}

function contentTypeFor(file: string): string {
  const name = file.replace(/\.static$/, '');
  if (name.endsWith('.json')) return 'application/json; charset=UTF-8';
  if (name.endsWith('.html')) return 'text/html; charset=utf-8';
  if (name.endsWith('.xml')) return 'text/xml; charset=UTF-8';
  if (name.endsWith('.vtt')) return 'text/vtt; charset=utf-8';
  return 'application/octet-stream';
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
