import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { docUrl, ServiceError } from '../../core/errors';

// Requests that Node's HTTP parser rejects (a control character in a header, a
// malformed request line, oversized headers) never reach Express. Node's
// default answer is a bare "400 Bad Request"; here they get the same envelope
// and X-Request-Id as every other error, then the connection closes.

function clientErrorResponse(err: NodeJS.ErrnoException): Buffer {
  const requestId = randomUUID();
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ServiceError('HEADERS_TOO_LARGE', 'headers', { message: 'The request headers are too large.' })
      : new ServiceError('BAD_REQUEST', 'request', { message: `The HTTP request is malformed (${err.code ?? 'parse error'}).` });
  const body = JSON.stringify({ error: { ...error.toObject(), doc_url: docUrl(error.code) }, request_id: requestId });
  const reason = http.STATUS_CODES[error.status] ?? 'Bad Request';
  return Buffer.from(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
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
export function createHttpServer(app: Express): http.Server {
  const server = http.createServer(app);
  answerClientErrors(server);
  return server;
}
