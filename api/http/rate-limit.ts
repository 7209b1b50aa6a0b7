import { createHash } from 'node:crypto';
import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../../core/errors';
import { PLANS, PLAN_IDS, type PlanId } from '../../core/plans';

// Per-plan, per-workspace fixed windows of one minute, counted in PostgreSQL
// (rate-limiter-flexible's Postgres store) so every API instance shares them.
// Which calls count as submits is written in the OpenAPI document (x-rate-limit).

export type RateLimitKind = 'submit' | 'read';

const LIMIT_NAMES: Record<RateLimitKind, string> = { submit: 'submits_per_minute', read: 'reads_per_minute' };

export interface RateLimitResult {
  headers: Record<string, string>;
}

/** Points per minute for a plan and kind; the plans table unless a deployment (or a load test) says otherwise. */
export type RateLimitTable = (plan: PlanId, kind: RateLimitKind) => number;
export const PLAN_RATE_LIMITS: RateLimitTable = (plan, kind) =>
  kind === 'submit' ? PLANS[plan].submitsPerMinute : PLANS[plan].readsPerMinute;

/**
 * The stored key is the limit's prefix and the sha256 of what is counted (a
 * workspace, a client address, an address and an e-mail): `rate_limits.key`
 * is VARCHAR(255), and what is counted may be as long as a request allows.
 */
class HashedKeyLimiter extends RateLimiterPostgres {
  override getKey(key: string | number): string {
    return `${this.keyPrefix}:${createHash('sha256').update(String(key)).digest('hex')}`;
  }
}

/**
 * A fixed-window counter in the `rate_limits` table (created by the
 * migrations): every limit of the service, so all API instances share them.
 * The key prefix names the limit and its size, so a changed size starts afresh.
 */
export function postgresLimiter(pool: Pool, keyPrefix: string, points: number, durationSeconds: number): RateLimiterPostgres {
  return new HashedKeyLimiter({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    points,
    duration: durationSeconds,
  });
}

/**
 * The client address a per-address limit counts under: \`req.ip\` (which
 * honours X-Forwarded-For only from the proxies TRUST_PROXY names) when it is
 * an IP address, in its canonical form (an IPv4-mapped IPv6 address as IPv4);
 * anything else a trusted proxy passed on counts as one address, \`unknown\`.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip ?? '';
  return ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : 'unknown';
}

/** Retry-After for a refusal: whole seconds until the window frees a point, at least 1. */
export const retryAfterSeconds = (msBeforeNext: number): number => Math.max(1, Math.ceil(msBeforeNext / 1000));

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterPostgres>();

  constructor(
    private readonly pool: Pool,
    limits: RateLimitTable = PLAN_RATE_LIMITS,
  ) {
    for (const plan of PLAN_IDS) {
      this.limiters.set(`submit:${plan}`, this.make('submit', limits(plan, 'submit')));
      this.limiters.set(`read:${plan}`, this.make('read', limits(plan, 'read')));
    }
  }

  private make(kind: RateLimitKind, points: number): RateLimiterPostgres {
    return postgresLimiter(this.pool, `rl_${kind}_${points}`, points, 60);
  }

  /** Consumes `cost` points for the workspace; throws RATE_LIMITED with the spec's headers when over. */
  async consume(kind: RateLimitKind, plan: PlanId, workspaceId: string, cost = 1): Promise<RateLimitResult> {
    const limiter = this.limiters.get(`${kind}:${plan}`)!;
    const limit = limiter.points;
    try {
      const res = await limiter.consume(workspaceId, cost);
      return { headers: headersFor(limit, res) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new ServiceError('RATE_LIMITED', `${LIMIT_NAMES[kind]}=${limit}`, {
          message: `Over the plan's limit of ${limit} ${kind === 'submit' ? 'submits' : 'reads'} per minute.`,
          retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext),
          headers: headersFor(limit, rejection),
        });
      }
      throw rejection;
    }
  }

  /** Gives back points consumed for a call that turned out not to count (a replay of an Idempotency-Key). */
  async refund(kind: RateLimitKind, plan: PlanId, workspaceId: string, cost = 1): Promise<void> {
    await this.limiters.get(`${kind}:${plan}`)!.reward(workspaceId, cost);
  }
}

function headersFor(limit: number, res: RateLimiterRes): Record<string, string> {
  return {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
  };
}

/**
 * Password guessing: failed sign-ins per (client address, e-mail) in a
 * 15-minute window, counted in PostgreSQL like the plan limits (every instance
 * shares them). Only failures count, and a success clears the count, so people
 * who sign in often are never slowed; past the limit the next try is refused
 * before the password is checked, until the window ends. Keyed by address and
 * e-mail together, so a guesser cannot lock the owner out from elsewhere.
 */
export class SignInThrottle {
  static readonly WINDOW_SECONDS = 15 * 60;
  private readonly failures: RateLimiterPostgres;

  constructor(
    pool: Pool,
    readonly maxFailures = 10,
  ) {
    this.failures = postgresLimiter(pool, `rl_sign_in_failures_${maxFailures}`, maxFailures, SignInThrottle.WINDOW_SECONDS);
  }

  /** Runs a sign-in for this address and e-mail: refused with RATE_LIMITED past the limit; a failure (UNAUTHENTICATED) counted, a success clearing the count. */
  async attempt<T>(address: string, email: string, signIn: () => Promise<T>): Promise<T> {
    const key = `${address}|${email.trim().toLowerCase()}`;
    const seen = await this.failures.get(key);
    if (seen && seen.consumedPoints >= this.maxFailures) throw this.refusal(seen.msBeforeNext);
    try {
      const result = await signIn();
      if (seen) await this.failures.delete(key);
      return result;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'UNAUTHENTICATED') await this.failures.penalty(key, 1);
      throw err;
    }
  }

  private refusal(msBeforeNext: number): ServiceError {
    return new ServiceError('RATE_LIMITED', `sign_in_failures_per_15_minutes=${this.maxFailures}`, {
      message: `Too many wrong passwords for this e-mail from this address: try again later.`,
      retryAfterSeconds: retryAfterSeconds(msBeforeNext),
    });
  }
}

/**
 * An hourly count per client address for what anyone may call without an
 * account and what stores something each time: OAuth dynamic client
 * registration, sign-up. Fixed one-hour windows in PostgreSQL like the plan
 * limits, so every instance shares them. The address is clientAddress(req).
 */
export class AddressHourlyLimit {
  static readonly WINDOW_SECONDS = 3600;
  private readonly limiter: RateLimiterPostgres;

  /** `name` is the limit as `details.detail` names it (`<name>=<perHour>`); `advice` ends the refusal's message. */
  constructor(
    pool: Pool,
    private readonly name: string,
    readonly perHour: number,
    private readonly advice: string,
  ) {
    this.limiter = postgresLimiter(pool, `rl_${name}_${perHour}`, perHour, AddressHourlyLimit.WINDOW_SECONDS);
  }

  /** Counts one call from `address`; throws RATE_LIMITED (with Retry-After) past the limit. */
  async consume(address: string): Promise<void> {
    try {
      await this.limiter.consume(address);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new ServiceError('RATE_LIMITED', `${this.name}=${this.perHour}`, {
        message: `Over the limit of ${this.perHour} per hour from one address. ${this.advice}`,
        retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext),
      });
    }
  }
}
