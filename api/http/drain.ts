import type { NextFunction, Request, Response } from 'express';
import type { AppDeps } from './context';
import { ServiceError } from '../../core/errors';
import { sendError } from './envelope';

/** What a client is told to wait before it tries again while this process stops (another instance answers by then). */
export const DRAIN_RETRY_AFTER_SECONDS = 5;

/**
 * A graceful stop of one API process (SIGTERM, api/main.ts): from `begin()` on, readiness answers 503 so the
 * load balancer takes the instance out, every new request answers 503 SERVICE_UNAVAILABLE with Retry-After and
 * `Connection: close`, liveness stays 200, and the requests already in flight finish; `settled()` resolves when
 * the last one has, or when the bound runs out. A request in flight that only waits (a long poll, an upload's
 * verification) stops waiting at once and answers what it has (`signal`, AppDeps.stopping): the client asks
 * again, of another instance, so a drain lasts as long as real work does, not up to 25 s of waiting.
 */
export function createDrain() {
  let draining = false;
  // Aborted by begin(): the waits that hold a request in flight (AppDeps.stopping) end and answer what they have.
  const stopping = new AbortController();
  let inFlight = 0;
  let wake: (() => void) | null = null;

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (!draining) {
      inFlight += 1;
      res.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) wake?.();
      });
      return next();
    }
    res.set('Connection', 'close');
    if (req.path === '/healthz') return void res.json({ status: 'ok' });
    if (req.path === '/readyz') return void res.status(503).json({ status: 'draining' });
    sendError(
      res,
      new ServiceError('SERVICE_UNAVAILABLE', 'shutting_down', {
        message: 'This instance is shutting down: send the request again (another instance answers it).',
        retryAfterSeconds: DRAIN_RETRY_AFTER_SECONDS,
      }),
    );
  };

  return {
    middleware,
    begin(): void {
      draining = true;
      stopping.abort();
    },
    /** Aborted once the stop begins. */
    signal: stopping.signal,
    get draining(): boolean {
      return draining;
    },
    get inFlight(): number {
      return inFlight;
    },
    /** True when every request in flight finished within `boundMs`; false when the bound ran out first. */
    settled(boundMs: number): Promise<boolean> {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), boundMs);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}

export type Drain = ReturnType<typeof createDrain>;

/** `signal`, or the process beginning to stop (AppDeps.stopping): what a wait that holds a request listens to. */
export function orStopping(signal: AbortSignal, deps: Pick<AppDeps, 'stopping'>): AbortSignal {
  return deps.stopping ? AbortSignal.any([signal, deps.stopping]) : signal;
}

/**
 * What a request's wait listens to: the client going away, or this process beginning to stop (then the wait
 * ends and the handler answers the state as it is, like a wait that ran out).
 */
export function requestWaitSignal(req: Request, deps: Pick<AppDeps, 'stopping' | 'requestLoad'>): AbortSignal {
  // A request that waits is no load on the process (it holds no start back: api/http/request-load.ts).
  if (req.res) deps.requestLoad.waiting(req.res);
  const gone = new AbortController();
  req.on('close', () => gone.abort());
  return orStopping(gone.signal, deps);
}
