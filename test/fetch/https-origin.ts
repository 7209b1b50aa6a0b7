import { testTls } from '../support/tls';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// An https server on loopback for safeFetch tests, with the tests' one TLS
// authority (test/support/tls.ts), trusted through safeFetch's caForTests.

export const TEST_CA = testTls().cert;
const KEY = testTls().key;

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface HttpsOrigin {
  /** https://127.0.0.1:<port> (or [::1]) */
  url: string;
  port: number;
  routes: Map<string, Route>;
  /** Paths requested, in order. */
  hits: string[];
  close(): Promise<void>;
}

export async function startHttpsOrigin(host = '127.0.0.1'): Promise<HttpsOrigin> {
  const routes = new Map<string, Route>();
  const hits: string[] = [];
  const server = https.createServer({ key: KEY, cert: TEST_CA }, (req, res) => {
    const p = new URL(req.url ?? '/', 'https://x').pathname;
    hits.push(p);
    const route = routes.get(p);
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    routes,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
