import net from 'node:net';
import ipaddr from 'ipaddr.js';

// Which network an IP address belongs to, for SSRF checks on direct media links
// and webhook URLs. ipaddr.js (already in the tree through minio) knows the IANA
// special-purpose ranges; this file adds what it does not: cloud metadata
// addresses, IPv4 embedded in IPv6 (mapped, compatible, translated, NAT64,
// 6to4), and the rule that IPv6 is only public inside global unicast 2000::/3.

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'carrierGradeNat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'cloudMetadata'
  | 'uniqueLocal';

export interface AddressInfo {
  /** The address as given (canonical text from DNS or the URL parser). */
  address: string;
  class: AddressClass;
  /** When an IPv4 address is carried inside an IPv6 one, how, and which IPv4 address. */
  embedded?: { via: 'ipv4Mapped' | 'ipv4Compatible' | 'ipv4Translated' | 'nat64' | '6to4'; ipv4: string };
  /** ipaddr.js range name (or ours) behind the class, for logs and details. */
  range: string;
}

const LABELS: Record<AddressClass, string> = {
  public: 'public',
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved or special-purpose',
  cloudMetadata: 'cloud metadata service',
  uniqueLocal: 'unique-local IPv6 (fc00::/7)',
};

// Instance metadata endpoints. Most already fall in a blocked range; naming them
// makes the refusal say what was really targeted.
const METADATA_V4 = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean...
  '169.254.170.2', // AWS ECS task metadata
  '169.254.169.253', // AWS DNS resolver in a VPC
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud (classic)
]);
// AWS over IPv6; compared in ipaddr.js's normalized form so every spelling matches.
const METADATA_V6 = new Set(['fd00:ec2::254', 'fd00:ec2::253'].map((a) => ipaddr.IPv6.parse(a).toNormalizedString()));

/** Host names that reach a metadata service without any special address in the URL. */
export const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

const IPV4_CLASS: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'linkLocal',
  loopback: 'loopback',
  carrierGradeNat: 'carrierGradeNat',
  private: 'private',
  // reserved, as112, amt and anything ipaddr.js adds later
};

const IPV6_CLASS: Record<string, AddressClass> = {
  unspecified: 'unspecified',
  linkLocal: 'linkLocal',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'uniqueLocal',
  // deprecatedSiteLocal, discard, teredo, benchmarking, orchid, documentation... are 'reserved'
};

/**
 * Classifies one IP address. Throws on text that is not a canonical IPv4 or
 * IPv6 address (net.isIP), so legacy forms like `0x7f.1` or `2130706433` never
 * reach ipaddr.js's lenient parser: the URL parser and DNS give canonical text.
 */
export function classifyAddress(address: string): AddressInfo {
  const family = net.isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  if (family === 4) return classifyV4(address, ipaddr.IPv4.parse(address));

  const v6 = ipaddr.IPv6.parse(address);
  if (METADATA_V6.has(v6.toNormalizedString())) {
    return { address, class: 'cloudMetadata', range: 'cloudMetadata' };
  }
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = classifyV4(address, embedded.ipv4);
    return { ...inner, embedded: { via: embedded.via, ipv4: embedded.ipv4.toString() } };
  }
  const range = v6.range();
  if (range === 'unicast') {
    // Only 2000::/3 is assigned as global unicast; everything else that ipaddr.js
    // calls unicast (e.g. ::a:b:c:d/96 outside the special ranges) is unassigned.
    const first = v6.parts[0];
    return { address, class: first >= 0x2000 && first <= 0x3fff ? 'public' : 'reserved', range };
  }
  return { address, class: IPV6_CLASS[range] ?? 'reserved', range };
}

function classifyV4(address: string, v4: ipaddr.IPv4): AddressInfo {
  const text = v4.toString();
  if (METADATA_V4.has(text)) return { address, class: 'cloudMetadata', range: 'cloudMetadata' };
  const range = v4.range();
  return { address, class: IPV4_CLASS[range] ?? 'reserved', range };
}

/** The IPv4 address inside an IPv6 one, for every form a host stack may route to IPv4. */
function embeddedIPv4(v6: ipaddr.IPv6): { via: NonNullable<AddressInfo['embedded']>['via']; ipv4: ipaddr.IPv4 } | undefined {
  const p = v6.parts;
  const low32 = () => new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return { via: 'ipv4Mapped', ipv4: low32() }; // ::ffff:a.b.c.d
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { via: 'ipv4Translated', ipv4: low32() }; // ::ffff:0:a.b.c.d (RFC 6145)
  // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 are themselves, not IPv4.
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return { via: 'ipv4Compatible', ipv4: low32() };
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return { via: 'nat64', ipv4: low32() }; // 64:ff9b::/96 (RFC 6052)
  if (p[0] === 0x2002) return { via: '6to4', ipv4: new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]) }; // 2002:AABB:CCDD::/48
  return undefined;
}

/** Human text for a refusal: "10.0.0.7 is a private (RFC 1918) address". */
export function describeAddress(info: AddressInfo): string {
  const via = info.embedded ? ` (${info.embedded.via} IPv6 carrying ${info.embedded.ipv4})` : '';
  return `${info.address}${via} is a ${LABELS[info.class]} address`;
}

/** Lower-case, without the trailing dot of a fully qualified name. */
export function normalizeHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}
