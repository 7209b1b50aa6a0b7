// Test and benchmark traffic goes to a local replay server instead of the
// platform: only scheme, host and port change, and the platform host travels in
// X-Forwarded-Host so the replay server can tell youtubei.googleapis.com from
// www.youtube.com. Path, query and body are sent exactly as they would be.

export interface OverriddenTarget {
  /** Where the request is actually sent. */
  target: string;
  /** The platform host (`host[:port]`) when an override applied, else null. */
  forwardedHost: string | null;
}

export function parseOriginOverride(value: string | null | undefined): URL | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const origin = new URL(value.trim());
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:')
    throw new Error(`PLATFORM_ORIGIN_OVERRIDE must be an http(s) origin, got ${value}`);
  if ((origin.pathname !== '/' && origin.pathname !== '') || origin.search !== '')
    throw new Error(`PLATFORM_ORIGIN_OVERRIDE must be an origin without path or query, got ${value}`);
  return origin;
}

export function applyOriginOverride(url: string, override: URL | null): OverriddenTarget {
  if (override === null) return { target: url, forwardedHost: null };
  const original = new URL(url);
  const target = new URL(original.href);
  target.protocol = override.protocol;
  target.hostname = override.hostname;
  target.port = override.port;
  return { target: target.href, forwardedHost: original.host };
}

/**
 * The test stack's guarantee that platform traffic never leaves the machine:
 * the target (after the override) must be a loopback address or localhost.
 * A missing PLATFORM_ORIGIN_OVERRIDE fails here instead of reaching the internet.
 */
export function assertLoopbackTarget(target: string): void {
  const host = new URL(target).hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1';
  if (!loopback)
    throw new Error(
      `the test stack sends platform traffic to loopback only (set PLATFORM_ORIGIN_OVERRIDE); refused ${new URL(target).host}`,
    );
}
