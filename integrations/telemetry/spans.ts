/**
 * Spans at the service's own boundaries, where a require hook cannot reach: every SQL statement on the shared
 * pg pool (Prisma's adapter and the raw users alike), and every object-storage call (S3 or local disk). Both
 * check `tracingOn()` first, so with tracing off a call costs one boolean test.
 */
import { SpanKind, type Span } from '@opentelemetry/api';
import type { Pool, PoolClient } from 'pg';
import type { ObjectStore } from '../storage/object-store';
import { inSpan, tracer, tracingOn } from './tracing';

/** The longest statement text kept on a span: enough to recognise it, bounded for the exporter. */
const STATEMENT_CHARS = 2_000;
const TABLE = /\b(?:FROM|INTO|UPDATE|JOIN)\s+(?:"?\w+"?\.)?"?(\w+)"?/i;

/** "SELECT jobs", "INSERT credit_ledger", "BEGIN": the operation and its first table, as OpenTelemetry names database spans. */
export function sqlSpanName(text: string): string {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  const table = TABLE.exec(text)?.[1];
  return table ? `${operation} ${table}` : operation;
}

/** Every query of every connection the pool opens becomes a CLIENT span under the active one. */
export function traceQueries(pool: Pool): void {
  pool.on('connect', (client) => traceClientQueries(client));
}

type QueryFn = (...args: unknown[]) => unknown;

function traceClientQueries(client: PoolClient): void {
  const original = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    if (!tracingOn()) return original(...args);
    const first = args[0] as string | { text?: string } | undefined;
    const text = (typeof first === 'string' ? first : first?.text) ?? '';
    const span = tracer().startSpan(sqlSpanName(text), {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system': 'postgresql', 'db.statement': text.slice(0, STATEMENT_CHARS) },
    });
    // pg takes a callback (pool.query does) or answers a promise (Prisma's adapter).
    const callbackAt = args.findIndex((a) => typeof a === 'function');
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as (err: Error | null, res: unknown) => void;
      args[callbackAt] = (err: Error | null, res: unknown) => {
        endSpan(span, err);
        callback(err, res);
      };
      return original(...args);
    }
    const result = original(...args) as Promise<unknown> | undefined;
    if (result && typeof result.then === 'function')
      return result.then(
        (rows) => {
          endSpan(span, null);
          return rows;
        },
        (err: Error) => {
          endSpan(span, err);
          throw err;
        },
      );
    endSpan(span, null);
    return result;
  };
}

function endSpan(span: Span, err: Error | null): void {
  if (err) {
    span.recordException(err);
    span.setStatus({ code: 2, message: err.message });
  }
  span.end();
}

const tracedStores = new WeakSet<ObjectStore>();
const STORE_CALLS = ['presignPut', 'stat', 'readRange', 'download', 'put', 'delete'] as const;

/** Each object-storage call as a span `storage <call>` with the store's kind and the key (never a URL or a secret). */
export function traceObjectStore<T extends ObjectStore>(store: T): T {
  if (tracedStores.has(store)) return store;
  tracedStores.add(store);
  for (const call of STORE_CALLS) {
    const original = (store[call] as (...args: unknown[]) => Promise<unknown>).bind(store);
    Object.defineProperty(store, call, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) =>
        tracingOn()
          ? inSpan(`storage ${call}`, { 'storage.kind': store.kind, 'storage.key': String(args[0]) }, () => original(...args))
          : original(...args),
    });
  }
  return store;
}
