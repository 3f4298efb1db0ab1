/**
 * Where a webhook may point (SSRF): an `https` URL (plain `http` only with FIELDLENS_WEBHOOK_ALLOW_HTTP=on) with no
 * credentials, whose host resolves only to public addresses — no loopback, private (RFC 1918, ULA), link-local (with
 * the 169.254.169.254 metadata address), CGNAT, unspecified, multicast, reserved or documentation ranges, and an IPv6
 * address that embeds an IPv4 one (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96) is judged by
 * that IPv4 address — unless FIELDLENS_WEBHOOK_ALLOW_PRIVATE=on. Checked at creation and again before each delivery;
 * the delivery then connects to the address checked (webhook-sender.ts), so a name re-resolved in between (DNS
 * rebinding) cannot send it elsewhere.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** A URL refused, with the reason in words a user can act on (never the response of anything). */
export class WebhookUrlRefused extends Error {
  override readonly name = 'WebhookUrlRefused';
}

export interface CheckedTarget {
  url: URL;
  /** The address to connect to (the first allowed one the name resolved to). */
  address: string;
  family: 4 | 6;
}

const V4_BLOCKED: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_BLOCKED: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private (ULA)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const v4Lists = V4_BLOCKED.map(([network, prefix, kind]) => {
  const list = new net.BlockList();
  list.addSubnet(network, prefix, 'ipv4');
  return { list, kind };
});
const v6Lists = V6_BLOCKED.map(([network, prefix, kind]) => {
  const list = new net.BlockList();
  list.addSubnet(network, prefix, 'ipv6');
  return { list, kind };
});

/** The eight 16-bit groups of an IPv6 address (any textual form, with or without a dotted IPv4 tail). */
function hextets(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = (dotted[1] as string).split('.').map(Number);
    text =
      text.slice(0, -(dotted[1] as string).length) +
      `${(((parts[0] as number) << 8) | (parts[1] as number)).toString(16)}:${(((parts[2] as number) << 8) | (parts[3] as number)).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible or NAT64), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const g = hextets(address);
  if (!g) return undefined;
  const v4 = () =>
    `${(g[6] as number) >> 8}.${(g[6] as number) & 255}.${(g[7] as number) >> 8}.${(g[7] as number) & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(); // ::ffff:a.b.c.d
  if (zeros(0, 6) && ((g[6] as number) !== 0 || (g[7] as number) > 1)) return v4(); // ::a.b.c.d (deprecated "compatible")
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(); // 64:ff9b::/96 NAT64
  return undefined;
}

/** Why an address is not a public one (undefined: it is). */
export function nonPublicKind(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 4) return v4Lists.find((b) => b.list.check(address, 'ipv4'))?.kind;
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4 !== undefined) return nonPublicKind(v4);
    return v6Lists.find((b) => b.list.check(address, 'ipv6'))?.kind;
  }
  return 'not an IP address';
}

/** Parses the URL and refuses what no delivery may use, before any DNS (a 400/422 at creation). */
export function parseWebhookUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('The URL is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookUrlRefused('A webhook URL must be https');
  if (url.protocol === 'http:' && !policy.allowHttp)
    throw new WebhookUrlRefused('A webhook URL must be https (plain http needs FIELDLENS_WEBHOOK_ALLOW_HTTP=on)');
  if (url.username !== '' || url.password !== '')
    throw new WebhookUrlRefused('A webhook URL may not carry a user name or password');
  if (url.hostname === '') throw new WebhookUrlRefused('A webhook URL needs a host');
  return url;
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** How long a name may take to resolve before the URL is refused (the system resolver's own timeouts are far longer). */
const RESOLVE_TIMEOUT_MS = 5000;

const systemResolver: Resolver = (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS);
  });
  return Promise.race([dns.lookup(hostname, { all: true, verbatim: true }), timeout]).finally(() =>
    clearTimeout(timer),
  );
};

/**
 * Resolves the URL's host and checks every address it resolves to (one non-public address refuses the URL: a name
 * answering both is how rebinding is staged). Answers the address to connect to.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: AddressPolicy,
  resolve: Resolver = systemResolver,
): Promise<CheckedTarget> {
  const url = parseWebhookUrl(raw, policy);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host) !== 0) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new WebhookUrlRefused(`The host name ${host} does not resolve (within ${RESOLVE_TIMEOUT_MS / 1000} s)`);
    }
    if (addresses.length === 0) throw new WebhookUrlRefused(`The host name ${host} does not resolve`);
  }
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const kind = nonPublicKind(a.address);
      if (kind !== undefined) {
        throw new WebhookUrlRefused(
          `The URL's host resolves to ${a.address}, a ${kind} address; webhooks go to public addresses only (FIELDLENS_WEBHOOK_ALLOW_PRIVATE=on allows others)`,
        );
      }
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
