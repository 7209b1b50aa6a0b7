import type { LookupAddress, LookupOneOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { classifyAddress, describeAddress } from './address-class';
import { isAllowed, type AddressPolicy, type CheckedUrl } from './url-guard';

// An undici dispatcher that can only reach the addresses urlGuard checked:
// its DNS lookup answers from that list instead of asking DNS again, so a name
// that re-resolves to 10.0.0.1 after the check (DNS rebinding) still connects
// to the checked address. TLS keeps verifying the certificate against the
// host name (servername), so pinning does not weaken https.
//
// As a second line, the connected socket's peer address is classified again
// before any byte is sent: a bug in the pinning would fail closed.

export interface PinnedDispatcherOptions {
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. */
  bodyTimeoutMs?: number;
  /** Tests only: extra CA certificates (PEM) to trust instead of the system store, for a self-signed loopback server. */
  ca?: string | Buffer;
  /**
   * Keep an idle connection this long for the next request through this dispatcher (default: none). Only for
   * a dispatcher kept for one checked URL and address set (integrations/outbound/http.ts deliveries).
   */
  keepAliveMs?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function pinnedDispatcher(checked: CheckedUrl, policy: AddressPolicy, opts: PinnedDispatcherOptions = {}): Agent {
  const pinned = checked.addresses;
  const lookup = (hostname: string, options: LookupOneOptions & { all?: boolean }, callback: LookupCallback): void => {
    const wanted = options.family === 4 || options.family === 6 ? pinned.filter((a) => a.family === options.family) : pinned;
    if (hostname.toLowerCase().replace(/\.$/, '') !== checked.hostname || wanted.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`refusing to resolve ${hostname}: this connection is pinned to ${checked.hostname}`);
      err.code = 'ENOTFOUND';
      return callback(err, '');
    }
    if (options.all)
      return callback(
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    return callback(null, wanted[0]!.address, wanted[0]!.family);
  };

  const base = buildConnector({ lookup: lookup as never, timeout: opts.connectTimeoutMs ?? 10_000, ...(opts.ca ? { ca: opts.ca } : {}) });
  const connect: buildConnector.connector = (options, callback) => {
    base(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const peer = socket.remoteAddress ?? '';
      let refusal: string | undefined;
      try {
        const info = classifyAddress(peer);
        if (!isAllowed(info, policy) || !pinned.some((a) => sameAddress(a.address, peer))) refusal = describeAddress(info);
      } catch {
        refusal = `peer address ${JSON.stringify(peer)} is unknown`;
      }
      if (refusal) {
        socket.destroy();
        return callback(Object.assign(new Error(`connected to a blocked address: ${refusal}`), { code: 'ERR_UNSAFE_PEER' }), null);
      }
      callback(null, socket);
    });
  };

  return new Agent({
    connect,
    headersTimeout: opts.headersTimeoutMs ?? 30_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 60_000,
    // Without keepAliveMs, one request per hop: no connection is kept for reuse by a later, differently-checked hop.
    ...(opts.keepAliveMs
      ? { pipelining: 1, keepAliveTimeout: opts.keepAliveMs, keepAliveMaxTimeout: opts.keepAliveMs }
      : { pipelining: 0, keepAliveTimeout: 1 }),
  });
}

/** Equal as addresses, whatever the spelling (`::ffff:1.2.3.4` vs `1.2.3.4`, zero compression). */
function sameAddress(a: string, b: string): boolean {
  try {
    const norm = (x: string) => ipaddr.process(x).toNormalizedString();
    return norm(a) === norm(b);
  } catch {
    return false;
  }
}
