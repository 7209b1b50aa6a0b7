import { ServiceError as TemporalServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

// A request that fails because PostgreSQL or Temporal is unreachable is not a
// server bug: the same request succeeds once the dependency is back. Such
// failures answer 503 SERVICE_UNAVAILABLE (retryable, with Retry-After)
// instead of 500. The recognisers below look through the cause chain, because
// Prisma, its pg adapter and the Temporal client each wrap the socket error.

export type Dependency = 'database' | 'temporal';

// Socket-level failures and PostgreSQL's "cannot serve now" SQLSTATEs (class 08
// connection exceptions, 57P01–57P03 shutdown/starting, 53300 too many connections).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const PG_UNAVAILABLE_STATES = /^(08\d{3}|57P0[123]|53300)$/;
// Prisma's own codes for an unreachable server, a dropped connection and an exhausted pool.
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const PG_CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|server closed the connection|the database system is (starting up|shutting down)|terminating connection due to administrator command/i;
// gRPC status codes the Temporal client reports for an unreachable server.
const GRPC_UNAVAILABLE = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

/** `err` and the errors it wraps, outermost first (Prisma's, then its pg adapter's; the Temporal client's). */
export function* errorCauses(err: unknown): Generator<Record<string, unknown>> {
  let current: unknown = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth++) {
    yield current as Record<string, unknown>;
    const c = current as { cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: unknown } };
    // Prisma puts the pg adapter's error under meta.driverAdapterError.
    const next = c.cause ?? c.originalError ?? c.meta?.driverAdapterError;
    if (next === current) break;
    current = next;
  }
}

/** Which dependency an error says is unreachable, or null for any other error. */
export function unreachableDependency(err: unknown): Dependency | null {
  for (const e of errorCauses(err)) {
    if (e instanceof TemporalServiceError || e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      for (const inner of errorCauses(e.cause)) if (typeof inner.code === 'number' && GRPC_UNAVAILABLE.has(inner.code)) return 'temporal';
      if (e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'temporal';
      if (/UNAVAILABLE|DEADLINE_EXCEEDED|Connection refused|transport/i.test(String(e.message))) return 'temporal';
    }
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (PRISMA_UNAVAILABLE.has(code) || PG_UNAVAILABLE_STATES.test(code))) return 'database';
    if (code && NETWORK_CODES.has(code)) return 'database';
    const message = typeof e.message === 'string' ? e.message : '';
    if (PG_CONNECTION_MESSAGES.test(message)) return 'database';
    // The pg adapter reports driver errors as { kind, ... } objects.
    if (e.kind === 'DatabaseNotReachable' || e.kind === 'ConnectionClosed' || e.kind === 'SocketTimeout' || e.kind === 'TooManyConnections')
      return 'database';
  }
  return null;
}
