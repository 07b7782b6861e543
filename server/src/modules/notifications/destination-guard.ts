import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Webhook URLs come from strangers (a public submitter's callback_url), so a
 * delivery must not become a request into the pool's own network (SSRF):
 * loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, multicast and reserved ranges are refused unless the
 * operator allows private destinations. The check runs twice: when the URL
 * is given (a clear error for the submitter), and on the address actually
 * connected to, so a name that resolves differently later (DNS rebinding)
 * is still refused.
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
// IPv6: only global unicast (2000::/3) is reachable; everything else (loopback, unique-local, link-local,
// multicast, IPv4-compatible ::/96, SIIT ::ffff:0:0/96, NAT64 64:ff9b::/96 and /48) lies outside it.
// Inside it, the ranges that carry an IPv4 address a relay would reach (Teredo 2001::/32, 6to4 2002::/16)
// and documentation are refused too.
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
for (const [net, prefix] of [['2001::', 32], ['2001:db8::', 32], ['2002::', 16]] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** IPv4 written inside IPv6 (::ffff:a.b.c.d or its hex form) is judged as the IPv4 address it is. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** True for an address a webhook must not reach without the operator's leave. */
export function isPrivateAddress(address: string): boolean {
  const v4 = embeddedIpv4(address);
  if (v4) return blocked.check(v4, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: never connect to it
  if (family === 4) return blocked.check(address, 'ipv4');
  return !globalUnicast.check(address, 'ipv6') || blocked.check(address, 'ipv6');
}

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

export interface DestinationPolicy {
  /** The operator's setting: deliveries to private and loopback addresses allowed (a pool's own receivers). */
  allowPrivate: boolean;
}

const MAX_URL_CHARS = 2_000;

/** The URL as it will be called, or a refusal that says what is wrong with it. Checks only what the URL itself says. */
/** `label` names the URL in messages: a submitter's 'callback URL', or a client's 'webhook URL'. */
export function checkWebhookUrl(raw: string, policy: DestinationPolicy, label = 'callback URL'): URL {
  if (raw.length > MAX_URL_CHARS) throw new DestinationRefused(`The ${label} is longer than ${MAX_URL_CHARS.toLocaleString('en-US')} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused(`The ${label} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused(`The ${label} must start with https:// or http://.`);
  if (url.username || url.password) throw new DestinationRefused(`The ${label} must not contain a user name or password.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate) {
    if (isIP(host) !== 0 && isPrivateAddress(host)) throw new DestinationRefused(`The ${label} points at a private or local address, which this portal does not call.`);
    if (host === 'localhost' || host.endsWith('.localhost')) throw new DestinationRefused(`The ${label} points at a private or local address, which this portal does not call.`);
  }
  return url;
}

/**
 * A `lookup` for http.request that refuses private answers at connect time.
 * Node skips `lookup` for IP literals, so checkWebhookUrl covers those.
 */
export function guardedLookup(policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = policy.allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (allowed.length === 0) {
        return callback(new DestinationRefused(`${hostname} resolves to a private or local address, which this portal does not call.`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
