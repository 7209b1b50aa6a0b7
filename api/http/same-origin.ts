import type { Request } from 'express';
import { ServiceError } from '../../core/errors';

/**
 * A request a browser sent from another site is refused before anything else:
 * its Origin is not this service's (PUBLIC_BASE_URL, or the origin the request
 * itself was addressed to), or the browser says so (`Sec-Fetch-Site:
 * cross-site`). Used where there is no session token yet to prove intent
 * (sign-in and sign-up, JSON and forms: login CSRF would sign a victim into the
 * attacker's account) and on every dashboard write. Clients that send neither
 * header (curl, SDKs) are not browsers and pass.
 */
export function assertSameOrigin(req: Request, baseUrl: string): void {
  const origin = req.get('origin');
  const own = new Set([new URL(baseUrl).origin, `${req.protocol}://${req.get('host') ?? ''}`]);
  if ((origin !== undefined && !own.has(origin)) || req.get('sec-fetch-site') === 'cross-site') {
    throw new ServiceError('FORBIDDEN', 'origin', { message: 'This request was sent from another site.' });
  }
}
