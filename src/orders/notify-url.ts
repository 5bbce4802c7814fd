// notifyUrl checks at order creation (10001). The delivery worker checks the
// resolved address again at delivery time (DNS may change).
import { isIP } from "node:net";

export function isPrivateAddress(ip: string): boolean {
  const x = ip.toLowerCase().replace(/^\[|\]$/g, "");
  const v = isIP(x);
  if (v === 4) {
    const [a, b] = x.split(".").map(Number);
    return (
      a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224
    );
  }
  if (v === 6) {
    const h = ipv6Hextets(x);
    const v4 = (i: number) => `${h[i] >> 8}.${h[i] & 255}.${h[i + 1] >> 8}.${h[i + 1] & 255}`;
    // IPv4 carried inside IPv6 reaches that IPv4 host (URL parsing writes [::ffff:127.0.0.1] as [::ffff:7f00:1]):
    // ::/96 (compatible, :: and ::1 included), ::ffff:0:0/96 (mapped), 64:ff9b::/96 (NAT64), 2002::/16 (6to4).
    if (h.slice(0, 5).every((n) => n === 0) && (h[5] === 0 || h[5] === 0xffff)) return h[6] === 0 && h[7] <= 1 ? true : isPrivateAddress(v4(6));
    if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((n) => n === 0)) return isPrivateAddress(v4(6));
    if (h[0] === 0x2002) return isPrivateAddress(v4(1));
    // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast.
    return (h[0] & 0xfe00) === 0xfc00 || (h[0] & 0xffc0) === 0xfe80 || (h[0] & 0xffc0) === 0xfec0 || (h[0] & 0xff00) === 0xff00;
  }
  return false;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 becomes the last two). */
function ipv6Hextets(x: string): number[] {
  let s = x.replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    s = s.slice(0, dotted.index) + ((a << 8) | b).toString(16) + ":" + ((c << 8) | d).toString(16);
  }
  const [head, tail] = s.includes("::") ? s.split("::") : [s, undefined];
  const part = (p: string | undefined) => (p ? p.split(":").map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

/** Returns a reason when the URL is not acceptable as a callback target. */
export function notifyUrlProblem(raw: string, allowPrivate: boolean): string | null {
  if (!raw.isWellFormed()) return "must be well-formed Unicode";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "must be an absolute http(s) URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "must use http or https";
  if (!u.hostname || /^\.+$/.test(u.hostname)) return "must have a host";
  if (u.username || u.password) return "must not carry credentials";
  if (allowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host === "metadata.google.internal") return "must be a public address";
  if (isIP(host) && isPrivateAddress(host)) return "must be a public address";
  return null;
}
