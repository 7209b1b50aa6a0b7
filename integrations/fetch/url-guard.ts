import dns from 'node:dns';
import net from 'node:net';
import { ServiceError } from '../../core/errors';
import {
  classifyAddress,
  describeAddress,
  METADATA_HOSTNAMES,
  normalizeHostname,
  type AddressClass,
  type AddressInfo,
} from './address-class';

// Decides whether a URL may be fetched (direct media links) or posted to
// (webhook endpoints): https only, and every address its host resolves to
// must be public. The addresses checked here are the ones the connection is
// then pinned to (see pinnedDispatcher.ts), so a DNS answer that changes
// between check and connect (rebinding) cannot reach anything else.

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. Injected in tests; default: the system resolver (getaddrinfo, /etc/hosts included). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicy {
  /**
   * The test stack: loopback destinations and nothing else. Test servers
   * listen on 127.0.0.1, and a test or a fuzzer must never reach the
   * internet: a public address is refused like a private one, and a host name
   * other than localhost is refused before any DNS lookup (unless a resolver
   * is injected, which answers from its own table). Checked on every redirect
   * hop. Never read from the environment here: the caller sets it from
   * APP_ENV=test (domain/config.ts addressPolicy).
   */
  loopbackOnly?: boolean;
  resolver?: Resolver;
}

export interface CheckedUrl {
  url: URL;
  /** Host name without brackets or trailing dot, lower case. */
  hostname: string;
  /** Every address of the host, all checked; connect only to these. */
  addresses: ResolvedAddress[];
}

const MAX_URL_LENGTH = 2048;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Names that mean this machine without asking DNS (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * Webhook endpoint URLs: the same rules as direct links. Call at registration
 * and again before every delivery (DNS may have changed since), and deliver
 * through pinnedDispatcher(checked) so the checked addresses are the ones used.
 * Throws INVALID_URL (not https, malformed) or UNSAFE_URL (blocked address);
 * SOURCE_NOT_FOUND / SOURCE_TIMEOUT when the name does not resolve.
 */
export async function assertSafeUrl(url: string | URL, policy: AddressPolicy = {}): Promise<CheckedUrl> {
  return checkUrl(url, policy);
}

export async function checkUrl(input: string | URL, policy: AddressPolicy, hop: 'first' | 'redirect' = 'first'): Promise<CheckedUrl> {
  const text = String(input);
  if (text.length > MAX_URL_LENGTH) throw new ServiceError('INVALID_URL', `longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ServiceError('INVALID_URL', hop === 'first' ? 'not a valid URL' : `redirect to an invalid URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'https:') {
    // A redirect from https down to http would expose the transfer and skip TLS checks of the new host.
    if (hop === 'redirect')
      throw new ServiceError('UNSAFE_URL', `redirect to ${url.protocol} (${url.host}) refused: only https is followed`);
    throw new ServiceError('INVALID_URL', `only https links are accepted, got ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) throw new ServiceError('INVALID_URL', 'links with a user name or password are not accepted');

  const hostname = normalizeHostname(url.hostname.replace(/^\[|\]$/g, ''));
  if (METADATA_HOSTNAMES.has(hostname)) throw new ServiceError('UNSAFE_URL', `${hostname} is a cloud metadata service`);

  // The URL parser already turned 0x7f.1, 2130706433 and friends into dotted IPv4.
  if (net.isIP(hostname)) {
    assertAllowed(classifyAddress(hostname), policy, hostname);
    return { url, hostname, addresses: [{ address: hostname, family: net.isIP(hostname) === 6 ? 6 : 4 }] };
  }

  if (policy.loopbackOnly && !policy.resolver && !isLocalhostName(hostname)) {
    throw new ServiceError('UNSAFE_URL', `${hostname}: the test stack reaches loopback only and looks up no other names`);
  }
  const addresses = await resolve(hostname, policy.resolver ?? systemResolver);
  // Every address, not just the first: the connection may use any of them (happy eyeballs, retries).
  for (const a of addresses) assertAllowed(classifyAddress(a.address), policy, hostname);
  return { url, hostname, addresses };
}

async function resolve(hostname: string, resolver: Resolver): Promise<ResolvedAddress[]> {
  let found: ResolvedAddress[];
  try {
    found = await resolver(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      throw new ServiceError('SOURCE_NOT_FOUND', `${hostname} does not resolve`, { cause: err });
    throw new ServiceError('SOURCE_TIMEOUT', `resolving ${hostname} failed: ${code ?? (err as Error).message}`, { cause: err });
  }
  if (found.length === 0) throw new ServiceError('SOURCE_NOT_FOUND', `${hostname} has no addresses`);
  for (const a of found) {
    if (!net.isIP(a.address)) throw new ServiceError('UNSAFE_URL', `${hostname} resolved to something that is not an IP address`);
  }
  return found;
}

export function isAllowed(info: AddressInfo, policy: AddressPolicy): boolean {
  return policy.loopbackOnly ? info.class === 'loopback' : info.class === 'public';
}

function assertAllowed(info: AddressInfo, policy: AddressPolicy, hostname: string): void {
  if (isAllowed(info, policy)) return;
  const via = hostname === info.address ? '' : `${hostname} resolves to `;
  const why = policy.loopbackOnly && info.class === 'public' ? ' (the test stack reaches loopback only)' : '';
  throw new ServiceError('UNSAFE_URL', `${via}${describeAddress(info)}${why}`);
}

export type { AddressClass };
