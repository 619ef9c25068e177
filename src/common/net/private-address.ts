import * as ipaddr from 'ipaddr.js';

/** Host names that always mean "this machine" or a cloud metadata service. */
const BLOCKED_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata\.google\.internal$/i, /^metadata$/i];

/** Ranges a webhook must never reach (SSRF): loopback, private, link-local (incl. metadata), etc. */
const BLOCKED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'as112v6',
  'discardOnly',
]);

/** True when an IP address (text) lies in a range webhooks must not reach. */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return BLOCKED_RANGES.has(parsed.range());
}

/**
 * Checks a URL's host as written (no DNS): a literal blocked IP or a local host name. The
 * delivery path checks again after resolving the name (SPEC §4 `webhook_url`).
 */
export function isBlockedLiteralHost(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  const bare = host.replace(/^\[|\]$/g, '');
  if (BLOCKED_HOSTNAMES.some((re) => re.test(bare))) return true;
  if (ipaddr.isValid(bare)) return isBlockedAddress(bare);
  // Numeric forms browsers and resolvers accept (e.g. 2130706433, 0x7f.1) are treated as literal IPs.
  if (/^[0-9.x]+$/i.test(bare)) {
    try {
      return isBlockedAddress(ipaddr.IPv4.parse(bare).toString());
    } catch {
      return false;
    }
  }
  return false;
}
