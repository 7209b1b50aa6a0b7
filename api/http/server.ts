import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { ServiceError } from '../../core/errors';
import { rawErrorResponse } from './envelope';
import { attachListen, isListenUpgrade } from '../listen/relay';
import type { AppDeps } from './context';

// Requests that Node's HTTP parser rejects (a control character in a header, a
// malformed request line, oversized headers) never reach Express. Node's
// default answer is a bare "400 Bad Request"; here they get the same envelope
// and X-Request-Id as every other error, then the connection closes.

function clientErrorResponse(err: NodeJS.ErrnoException): Buffer {
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ServiceError('HEADERS_TOO_LARGE', 'headers', { message: 'The request headers are too large.' })
      : new ServiceError('BAD_REQUEST', 'request', { message: `The HTTP request is malformed (${err.code ?? 'parse error'}).` });
  return rawErrorResponse(error, randomUUID());
}

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that went away or timed out gets no answer: there is nobody to read it.
    if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(err));
  });
}

/** The API's HTTP server: the Express app plus the parser-error answers. */
export function createHttpServer(app: Express, deps?: AppDeps): http.Server {
  // Only GET /v1/listen is upgraded (to a WebSocket); any other request asking to upgrade is an ordinary request.
  const server = http.createServer({ shouldUpgradeCallback: isListenUpgrade }, app);
  answerClientErrors(server);
  if (deps) attachListen(server, deps);
  return server;
}
