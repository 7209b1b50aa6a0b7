import type { NextFunction, Request, Response } from 'express';
import type { AddressHourlyLimit } from '../http/rate-limit';

// Dynamic client registration (RFC 7591) is open to anyone, as the MCP
// authorization spec expects, and each registration stores a client: without a
// limit one address could fill the clients table (AppDeps.oauthRegistrationLimit,
// OAUTH_REGISTRATIONS_PER_HOUR).

export function registrationLimit(limit: AddressHourlyLimit) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    limit.consume(req.ip ?? '').then(() => next(), next);
  };
}
