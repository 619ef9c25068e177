import * as ipaddr from 'ipaddr.js';

/** Host names that always mean "this machine" or a cloud metadata service. */
const BLOCKED_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata\.google\.internal$/i, /^metadata$/i];

/** NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

/**
 * True when an IP address (text) is one webhooks must not reach (SSRF). Only plain global
 * unicast is allowed: every special range ipaddr.js knows is refused — loopback, private (RFC
 * 1918, unique local), link-local (the cloud metadata address), carrier-grade NAT, multicast,
 * documentation, benchmarking, site-local, discard, ORCHID, segment routing, reserved, and the
 * IPv6 forms that carry an IPv4 address through a tunnel or translator (6to4 `2002::/16`, Teredo
 * `2001::/32`, SIIT `::ffff:0:0:0/96`, NAT64 local-use `64:ff9b:1::/48`).
 *
 * An IPv4 address written inside IPv6 is judged as that IPv4 address, wherever the host would
 * reach it: IPv4-mapped `::ffff:a.b.c.d` and NAT64's well-known `64:ff9b::a.b.c.d` (what DNS64
 * hands out for IPv4-only hosts on IPv6-only networks, so a public one stays allowed), and an
 * ISATAP interface id `…:5efe:a.b.c.d`. IPv4-compatible `::a.b.c.d` (`::/96`, deprecated by RFC
 * 4291, never a real target) is refused whatever it embeds.
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4'
    ? isBlockedIPv4(parsed as ipaddr.IPv4)
    : isBlockedIPv6(parsed as ipaddr.IPv6);
}

function isBlockedIPv4(ip: ipaddr.IPv4): boolean {
  return ip.range() !== 'unicast';
}

function isBlockedIPv6(ip: ipaddr.IPv6): boolean {
  const range = ip.range();
  if (range === 'ipv4Mapped' || (range === 'rfc6052' && ip.match(NAT64_WELL_KNOWN))) {
    return isBlockedIPv4(embeddedIPv4(ip));
  }
  if (range !== 'unicast') return true;
  const [a, b, c, d, e, f] = ip.parts;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0) return true; // IPv4-compatible
  if ((e & 0xfcff) === 0 && f === 0x5efe) return isBlockedIPv4(embeddedIPv4(ip)); // ISATAP
  return false;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 {
  const [g, h] = ip.parts.slice(6);
  return new ipaddr.IPv4([g >> 8, g & 0xff, h >> 8, h & 0xff]);
}

/**
 * Checks a URL's host as written (no DNS): a literal blocked IP or a local host name. The
 * delivery path checks again after resolving the name (contract §4 `webhook_url`).
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
