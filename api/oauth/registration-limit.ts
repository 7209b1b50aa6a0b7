import type { NextFunction, Request, Response } from 'express';
import type { Pool } from 'pg';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../../domain/errors';
import { sendError } from '../http/envelope';
import { postgresLimiter, retryAfterSeconds } from '../http/rate-limit';

// Dynamic client registration (RFC 7591) is open to anyone, as the MCP
// authorization spec expects, and each registration stores a client: without a
// limit one address could fill the clients table. Counted per client address
// (req.ip, which honours X-Forwarded-For only from trusted proxies: TRUST_PROXY)
// in one-hour fixed windows, in PostgreSQL like the plan limits, so every API
// instance shares them.

const WINDOW_SECONDS = 3600;

export function registrationLimit(pool: Pool, perHour: number) {
  const limiter = postgresLimiter(pool, `rl_oauth_register_${perHour}`, perHour, WINDOW_SECONDS);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await limiter.consume(req.ip ?? 'unknown');
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      sendError(
        res,
        new ServiceError('RATE_LIMITED', `oauth_registrations_per_hour=${perHour}`, {
          message: `Over the limit of ${perHour} client registrations per hour from one address. Reuse the client_id you registered, or publish a client ID metadata document (no registration needed).`,
          retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext),
        }),
      );
    }
  };
}
