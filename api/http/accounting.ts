import type { Principal } from '../../domain/accounts/principal';
import { ServiceError } from '../../core/errors';
import { idempotencyKeyUsed, type IdempotencyScope } from '../../domain/idempotency';
import type { AppDeps } from './context';
import type { RateLimitKind } from './rate-limit';

// How a call counts against its workspace's plan limits, for the REST routes
// (api/http/route.ts) and the agent tool server's tools alike: one submit or
// one read per call, except a replay of an Idempotency-Key already used for
// the operation, which creates nothing and is not counted.

export interface Counting {
  kind: RateLimitKind;
  principal: Principal;
  /** The call's key and operation, when it takes one: a replay is not counted. */
  idempotency?: IdempotencyScope;
}

/**
 * Counts the call; throws RATE_LIMITED past the limit. Answers whether it is a replay (then nothing was counted).
 * With a key, the replay check and the count run side by side (one round trip of latency on every submit,
 * not two); a replay, rare, gets its point back, and is never refused for the limit.
 */
export async function countCall(deps: Pick<AppDeps, 'db' | 'rateLimits'>, c: Counting, setHeaders?: (h: Record<string, string>) => void) {
  const { kind, principal } = c;
  if (!c.idempotency) {
    const { headers } = await deps.rateLimits.consume(kind, principal.plan, principal.workspaceId);
    setHeaders?.(headers);
    return { replay: false };
  }
  const [used, counted] = await Promise.allSettled([
    idempotencyKeyUsed(deps.db, principal.workspaceId, c.idempotency),
    deps.rateLimits.consume(kind, principal.plan, principal.workspaceId),
  ]);
  if (used.status === 'rejected') throw used.reason;
  if (used.value) {
    // Counted beside the check, over the limit or not (the limiter adds the point either way): given back.
    await deps.rateLimits.refund(kind, principal.plan, principal.workspaceId);
    return { replay: true };
  }
  if (counted.status === 'rejected') throw counted.reason;
  setHeaders?.(counted.value.headers);
  return { replay: false };
}

/**
 * A write whose operation tells its own replays (its accepting statement claims the key, and a key held
 * already is answered as a replay): counted, then run, with no look-up of the key beforehand (one statement
 * fewer on every submit). A replay gets its point back once the operation says so. The key is looked up
 * only where the operation cannot tell: when the limit refuses the call (a replay is still answered, never
 * refused) and when the operation fails (a conflicting reuse of the key, or a replay whose request no longer
 * checks out, is not counted).
 */
export async function countThenRunTellingReplays<T>(
  deps: Pick<AppDeps, 'db' | 'rateLimits'>,
  c: Counting & { idempotency: IdempotencyScope },
  run: () => Promise<{ result: T; replay: boolean }>,
  setHeaders?: (h: Record<string, string>) => void,
): Promise<T> {
  const { kind, principal, idempotency } = c;
  const refund = () => deps.rateLimits.refund(kind, principal.plan, principal.workspaceId);
  const used = () => idempotencyKeyUsed(deps.db, principal.workspaceId, idempotency);
  let headers: Record<string, string>;
  try {
    ({ headers } = await deps.rateLimits.consume(kind, principal.plan, principal.workspaceId));
  } catch (refusal) {
    // Over the limit (the limiter adds the point all the same): a replay gets it back and is answered.
    if (!(refusal instanceof ServiceError && refusal.code === 'RATE_LIMITED') || !(await used())) throw refusal;
    await refund();
    return (await run()).result;
  }
  let outcome: { result: T; replay: boolean };
  try {
    outcome = await run();
  } catch (err) {
    if (await used().catch(() => false)) await refund();
    throw err;
  }
  if (outcome.replay) await refund();
  else setHeaders?.(headers);
  return outcome.result;
}

/** A write: counted first, then run. */
export async function countThen<T>(
  deps: Pick<AppDeps, 'db' | 'rateLimits'>,
  c: Counting,
  run: () => Promise<T>,
  setHeaders?: (h: Record<string, string>) => void,
): Promise<T> {
  await countCall(deps, c, setHeaders);
  return run();
}

/**
 * A read changes nothing: it runs beside the rate-limit statement (one round
 * trip of latency instead of two), and its answer is dropped when the limit
 * refuses the call.
 */
export async function readBesideLimit<T>(
  deps: Pick<AppDeps, 'db' | 'rateLimits'>,
  c: Counting,
  read: () => Promise<T>,
  setHeaders?: (h: Record<string, string>) => void,
): Promise<T> {
  const reading = read();
  reading.catch(() => undefined);
  await countCall(deps, c, setHeaders);
  return reading;
}
