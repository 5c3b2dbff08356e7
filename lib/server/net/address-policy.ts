import "server-only";
// Which addresses the server does not connect to for a user (a mind's curl,
// an own-key model's base URL, later webhooks and push) unless the host
// listed them: this machine (loopback, unspecified), the networks around it
// (private, carrier-grade NAT, link-local), and the IPv6 spellings that carry
// one of those IPv4 addresses inside (IPv4-mapped, -translated, -compatible,
// NAT64, 6to4). Pure: an address in, a reason out; DNS and the connection are
// guarded-fetch's.
import { isIP } from "node:net";

type V4 = readonly [number, number, number, number];
type V6 = readonly [number, number, number, number, number, number, number, number];

/** How `ip` is described when a mind may not reach it by itself ("a loopback address"); null for a public address. */
export function blockedKind(ip: string): string | null {
  const bare = unbracket(ip);
  const v4 = ipv4(bare);
  if (v4) return v4Kind(v4);
  const h = hextets(bare);
  if (!h) return "not an IP address";
  if (h.every((x) => x === 0)) return "an unspecified address";
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return "a loopback address";
  if ((h[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((h[0] & 0xfe00) === 0xfc00 || (h[0] & 0xffc0) === 0xfec0) return "a private address";
  const inner = embeddedV4(h);
  return inner ? v4Kind(inner) : null;
}

/** The one spelling of an address used to compare it with what the host listed: IPv4 dotted, an IPv4-mapped address as its IPv4, other IPv6 as eight hex groups. Null if it is not an IP address. */
export function canonicalIp(ip: string): string | null {
  const bare = unbracket(ip);
  const v4 = ipv4(bare);
  if (v4) return v4.join(".");
  const h = hextets(bare);
  if (!h) return null;
  if (isMapped(h)) return [h[6] >> 8, h[6] & 0xff, h[7] >> 8, h[7] & 0xff].join(".");
  return h.map((x) => x.toString(16)).join(":");
}

export const isLoopback = (ip: string) => blockedKind(ip) === "a loopback address";

/** An address and port the host listed: `host` is an IP address, or `localhost` for this machine's loopback. */
export interface ListedPort {
  host: string;
  port: number;
}

/**
 * Whether the host listed `address` (with `port`): an entry whose host is an
 * IP address lists that address; one whose host is localhost lists this
 * machine's loopback. A name is never listed by what it resolves to: DNS can
 * change, the host's word cannot.
 */
export function listedPorts(entries: readonly ListedPort[]): (address: string, port: number) => boolean {
  const listed = new Set<string>();
  const loopbackPorts = new Set<number>();
  for (const { host, port } of entries) {
    const ip = canonicalIp(host);
    if (ip) listed.add(`${ip} ${port}`);
    else if (isLocalhostName(host)) loopbackPorts.add(port);
  }
  return (address, port) => {
    const ip = canonicalIp(address);
    if (!ip) return false;
    return listed.has(`${ip} ${port}`) || (loopbackPorts.has(port) && isLoopback(ip));
  };
}

/** listedPorts for RUNNER_NETWORK_ALLOW's URL prefixes: a listed name that resolves to a private address does not list that address. */
export function listedAddresses(hostAllow: readonly string[]): (address: string, port: number) => boolean {
  return listedPorts(
    hostAllow.map((entry) => {
      const u = new URL(entry);
      return { host: u.hostname, port: portOf(u) };
    }),
  );
}

export const portOf = (u: URL) => Number(u.port || (u.protocol === "https:" ? 443 : 80));

/** `localhost` and its subdomains name this machine (RFC 6761), whatever a resolver says. */
export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

function v4Kind([a, b]: V4): string | null {
  if (a === 0) return "an unspecified address"; // 0.0.0.0/8: 0.0.0.0 reaches this machine
  if (a === 127) return "a loopback address";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "a private address";
  if (a === 100 && b >= 64 && b <= 127) return "a private (carrier-grade NAT) address";
  if (a === 169 && b === 254) return "a link-local address";
  return null;
}

const unbracket = (ip: string) => (ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip);

function ipv4(ip: string): V4 | null {
  if (isIP(ip) !== 4) return null;
  const [a = 0, b = 0, c = 0, d = 0] = ip.split(".").map(Number);
  return [a, b, c, d];
}

/** The eight 16-bit groups of an IPv6 address (a zone, `%eth0`, is dropped); null if it is not one. */
function hextets(ip: string): V6 | null {
  const s = ip.replace(/%.*$/, "");
  if (isIP(s) !== 6) return null;
  let head = s;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    head = s.slice(0, dotted.index);
    if (!head.endsWith("::")) head = head.slice(0, -1); // the ':' before the IPv4 part
  }
  const [left, right] = head.split("::");
  const groups = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const zeros = right === undefined ? [] : new Array<number>(8 - l.length - r.length - tail.length).fill(0);
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = [...l, ...zeros, ...r, ...tail];
  return [h0, h1, h2, h3, h4, h5, h6, h7];
}

const isMapped = (h: V6) => h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff;

/** The IPv4 address an IPv6 one stands for, when it is a form that reaches one. */
function embeddedV4(h: V6): V4 | null {
  const from = (hi: number, lo: number): V4 => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zero = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (isMapped(h)) return from(h[6], h[7]); // ::ffff:a.b.c.d
  if (zero(0, 4) && h[4] === 0xffff && h[5] === 0) return from(h[6], h[7]); // ::ffff:0:a.b.c.d (IPv4-translated)
  if (zero(0, 6)) return from(h[6], h[7]); // ::a.b.c.d (IPv4-compatible, deprecated)
  if (h[0] === 0x64 && h[1] === 0xff9b && zero(2, 6)) return from(h[6], h[7]); // 64:ff9b::/96 (NAT64)
  if (h[0] === 0x2002) return from(h[1], h[2]); // 2002::/16 (6to4)
  return null;
}
