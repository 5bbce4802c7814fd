// The client address of a request (DESIGN 10) and CIDR lists (merchant IP
// allowlists, server.trusted_proxies). Matching uses node:net's BlockList;
// parsed lists are cached by their text so the hot path pays one Map lookup.
import { BlockList, isIP } from "node:net";

/** "::ffff:1.2.3.4" (an IPv4 peer on a dual-stack socket) is 1.2.3.4. */
export function normalizeIp(ip: string): string {
  const s = ip.trim().replace(/^\[|\]$/g, "");
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  return m ? m[1]! : s;
}

/** Why a CIDR (or a bare address) is not valid, or null. */
export function cidrProblem(cidr: string): string | null {
  const [addr, bits, extra] = cidr.trim().split("/");
  if (extra !== undefined || !addr) return "must be an IP address or CIDR (e.g. 203.0.113.0/24)";
  const v = isIP(addr);
  if (!v) return "must be an IP address or CIDR (e.g. 203.0.113.0/24)";
  if (bits !== undefined) {
    const max = v === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return `prefix length must be 0-${max}`;
  }
  return null;
}

export function buildBlockList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of cidrs) {
    if (cidrProblem(raw)) throw new Error(`invalid CIDR: ${raw}`);
    const [addr, bits] = raw.trim().split("/") as [string, string | undefined];
    const family = isIP(addr) === 4 ? "ipv4" : "ipv6";
    const ip = normalizeIp(addr);
    const fam = isIP(ip) === 4 ? "ipv4" : family;
    const prefix = bits === undefined ? (fam === "ipv4" ? 32 : 128) : fam === "ipv4" && family === "ipv6" ? Math.max(0, Number(bits) - 96) : Number(bits);
    list.addSubnet(ip, prefix, fam);
  }
  return list;
}

export function inList(list: BlockList, ip: string): boolean {
  const a = normalizeIp(ip);
  const v = isIP(a);
  if (!v) return false;
  return list.check(a, v === 4 ? "ipv4" : "ipv6");
}

const cache = new Map<string, BlockList | null>();

/**
 * A merchant's allowlist as stored (JSON array of CIDRs; null/empty allows
 * every address). An unreadable stored value allows nobody: failing closed.
 */
export function allowlistOf(stored: string | null | undefined): BlockList | null {
  if (!stored) return null;
  let list = cache.get(stored);
  if (list !== undefined) return list;
  try {
    const cidrs = JSON.parse(stored) as unknown;
    if (!Array.isArray(cidrs) || !cidrs.every((c) => typeof c === "string")) throw new Error("not a list of strings");
    list = cidrs.length ? buildBlockList(cidrs) : null;
  } catch {
    list = new BlockList();
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(stored, list);
  return list;
}

/** The client address of a request that came through a trusted proxy with an X-Forwarded-For entry that is not a bare IP address. */
export const INVALID_FORWARDED = "invalid-x-forwarded-for";

/** Where a request comes from: `direct` when `ip` is the socket peer itself, not a forwarded value. */
export interface ClientAddr {
  ip: string | null;
  direct: boolean;
}

/**
 * The client address (DESIGN 10): the socket peer, unless the peer is a trusted proxy; then the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy (the left part of the header
 * is whatever the client chose to send). An entry that is not a bare IP address (a name, ip:port,
 * [v6], garbage) is refused: the client is then INVALID_FORWARDED, which no allowlist contains, which
 * is never loopback and which the sign-in throttle counts like any address.
 */
export function clientAddr(peer: string | undefined, forwardedFor: string | null, trusted: BlockList | null): ClientAddr {
  if (!peer) return { ip: null, direct: true };
  const p = normalizeIp(peer);
  if (!trusted || forwardedFor === null || !inList(trusted, p)) return { ip: p, direct: true };
  const hops = forwardedFor.split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const h = bareIp(hops[i]!);
    if (h === null) return { ip: INVALID_FORWARDED, direct: false };
    if (!inList(trusted, h)) return { ip: h, direct: false };
  }
  // Every hop is a trusted proxy: the left-most is the closest to the client we know.
  return { ip: bareIp(hops[0]!)!, direct: false };
}

/** A bare IPv4 or IPv6 address (an IPv4-mapped one as IPv4), or null for anything else. */
function bareIp(entry: string): string | null {
  if (!isIP(entry)) return null;
  return normalizeIp(entry);
}

/** The client address alone (see clientAddr). */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trusted: BlockList | null): string | undefined {
  return clientAddr(peer, forwardedFor, trusted).ip ?? undefined;
}

/**
 * The socket peer of a request, remembered by the server's fetch handler so
 * routes below Elysia can read it (allowlists, audit entries, login throttling).
 * The server passes a function: the address is read from the socket only when
 * something asks (most signed requests never do), then kept.
 */
const peers = new WeakMap<Request, string | (() => string | undefined)>();
export function rememberPeer(req: Request, address: string | undefined | (() => string | undefined)): void {
  if (address) peers.set(req, address);
}
export function peerOf(req: Request): string | null {
  const p = peers.get(req);
  if (typeof p !== "function") return p ?? null;
  const address = p();
  if (address) peers.set(req, address);
  else peers.delete(req);
  return address ?? null;
}

/** Where a request comes from, believing X-Forwarded-For only from `trustedProxies` (server.trusted_proxies). */
export function clientAddrResolver(trustedProxies: readonly string[]): (req: Request) => ClientAddr {
  const trusted = trustedProxies.length ? buildBlockList(trustedProxies) : null;
  return (req) => clientAddr(peerOf(req) ?? undefined, req.headers.get("x-forwarded-for"), trusted);
}

/** The client address of a request, believing X-Forwarded-For only from `trustedProxies` (server.trusted_proxies). */
export function clientIpResolver(trustedProxies: readonly string[]): (req: Request) => string | null {
  const resolve = clientAddrResolver(trustedProxies);
  return (req) => resolve(req).ip;
}
