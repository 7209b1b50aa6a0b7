import { Context } from '@temporalio/activity';

// Worker crash detection. An activity whose workflow sets a heartbeatTimeout
// is declared lost when no heartbeat arrives for that long, and is retried on
// another worker within seconds instead of waiting out its startToCloseTimeout.
// The ticker starts after the first interval, so an activity that finishes
// quickly (most caption fetches) sends no heartbeat at all. The last progress
// an activity saved rides along with every beat, so a retry can resume from it.

const HEARTBEAT_EVERY_MS = 2_000;
const progress = new WeakMap<Context, unknown>();

/** The running activity's context; null outside an activity and in a local one (it cannot heartbeat). */
export function currentActivity(): Context | null {
  try {
    const ctx = Context.current();
    return ctx.info.isLocal ? null : ctx; // local activities cannot heartbeat
  } catch {
    return null; // called outside an activity (a unit test of the function)
  }
}

/** Runs `fn` with a heartbeat every 2 s while it works. */
export async function whileHeartbeating<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = currentActivity();
  if (!ctx) return fn();
  const timer = setInterval(() => ctx.heartbeat(progress.get(ctx)), HEARTBEAT_EVERY_MS);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/** Records how far the activity got (sent with the next heartbeat, and at once). */
export function saveProgress<T>(details: T): void {
  const ctx = currentActivity();
  if (!ctx) return;
  progress.set(ctx, details);
  ctx.heartbeat(details);
}

/** The progress the previous attempt of this activity saved, if any. */
export function savedProgress<T>(): T | undefined {
  const ctx = currentActivity();
  return ctx ? (ctx.info.heartbeatDetails as T | undefined) : undefined;
}
