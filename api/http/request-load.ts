import type { NextFunction, Request, Response } from 'express';

// How busy this API process is answering writes, for the StartDispatcher (domain/workflow-starts.ts): while
// more than a few submits queue in it at once, it holds the workflow starts of what it accepted, so the cores
// answer the requests first and the starts drain after the burst.

/**
 * Writes in flight at which the process counts as busy: a load the process keeps up with has one or two in
 * flight (a submit answers in a few milliseconds); a burst from 32 connections can have all 32 in it at once.
 */
export const BUSY_WRITES_IN_FLIGHT = 8;

/**
 * How long the process stays busy after it last had that many writes in flight. In a burst the count dips
 * below the mark for a moment whenever a run of answers goes out before the next requests are read; a start
 * made in each dip took the cores from the answers that followed.
 */
export const BUSY_LINGER_MS = 100;

export interface RequestLoad {
  /** Counts a write (a request to /v1/ other than GET or HEAD) from its arrival to its response's close. */
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /** A request that now only waits (a long wait for a job, an upload's verification) is no load: uncounted. */
  waiting: (res: Response) => void;
  readonly writesInFlight: number;
  /** BUSY_WRITES_IN_FLIGHT or more in flight, or that many found by a write that arrived BUSY_LINGER_MS ago or less. */
  busy: () => boolean;
}

/** `now`: the clock the linger is measured on (a test's own). */
export function createRequestLoad(now: () => number = () => performance.now()): RequestLoad {
  let writes = 0;
  let busyUntil = 0;
  const counted = new WeakSet<Response>();
  const uncount = (res: Response) => {
    if (counted.delete(res)) writes -= 1;
  };
  return {
    middleware(req, res, next) {
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.path.startsWith('/v1/')) {
        writes += 1;
        if (writes >= BUSY_WRITES_IN_FLIGHT) busyUntil = now() + BUSY_LINGER_MS;
        counted.add(res);
        res.once('close', () => uncount(res));
      }
      next();
    },
    waiting: uncount,
    get writesInFlight() {
      return writes;
    },
    busy: () => writes >= BUSY_WRITES_IN_FLIGHT || now() < busyUntil,
  };
}
