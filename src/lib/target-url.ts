// Target URLs of callbacks, alerts and refund pages (DESIGN 7, 10): notifyUrl is checked at order
// creation (10001); the delivery worker checks the resolved address again (DNS may change).
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The IANA special-purpose range an address belongs to (DESIGN 10: callback, alert and refund-page
 * targets refuse every one, not only private ones), or null for an ordinary unicast address. The
 * ranges are ipaddr.js's tables of the IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890
 * and successors: 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, the TEST-NETs,
 * 198.18/15, 240/4, multicast, broadcast, AS112, AMT; ::, ::1, ::ffff:0:0/96, 64:ff9b::/96,
 * 64:ff9b:1::/48, 100::/64, 2001::/23, 2001:db8::/32, 2002::/16, 3fff::/20, 5f00::/16, fc00::/7,
 * fe80::/10, ff00::/8…), plus the deprecated IPv4-compatible ::/96, which embeds an IPv4 host.
 */
export function specialPurposeRange(ip: string): string | null {
  const x = ip.toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!isIP(x)) return null;
  const a = ipaddr.parse(x);
  const range = a.range();
  if (range !== "unicast") return range;
  if (a.kind() === "ipv6" && (a as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return "ipv4Compatible";
  return null;
}

export const isSpecialPurposeAddress = (ip: string): boolean => specialPurposeRange(ip) !== null;

/** What is wrong with a target URL, by kind (a settings form translates it by code, src/errors.ts "callback_url.*"). */
export const URL_PROBLEMS = {
  not_unicode: "must be well-formed Unicode",
  not_absolute: "must be an absolute http(s) URL",
  scheme: "must use http or https",
  characters: "must not contain spaces, control characters or backslashes",
  no_host: "must have a host",
  credentials: "must not carry credentials",
  not_public: "must be a public address",
} as const;
export type UrlProblem = keyof typeof URL_PROBLEMS;

/**
 * Why the raw text of an http(s) URL is not acceptable before any parsing, by kind, or null. The
 * WHATWG parser is lenient where a target must not be: "http:///x" and "http:/x" become host "x",
 * backslashes count as slashes, tabs and newlines vanish. The text must say what it means.
 */
export function rawUrlProblemKind(raw: string): UrlProblem | null {
  if (/[\u0000-\u0020\u007f\\]/.test(raw)) return "characters";
  const m = /^https?:\/\/([^/?#]*)/i.exec(raw);
  if (!m) return "not_absolute";
  if (!m[1] || m[1].startsWith(":")) return "no_host";
  return null;
}

/** The raw text's problem in words, or null. */
export function rawUrlProblem(raw: string): string | null {
  const k = rawUrlProblemKind(raw);
  return k && URL_PROBLEMS[k];
}

/**
 * Verdicts of notifyUrlProblemKind by URL text, one table per allowPrivate: a pure function of
 * its two arguments, asked on every create with the few URLs a merchant uses (the parse and its
 * regexps are ~1 µs and a URL plus four RegExp objects of garbage per create). Bounded: cleared
 * when full.
 */
const VERDICTS = [new Map<string, UrlProblem | null>(), new Map<string, UrlProblem | null>()] as const;
const MAX_VERDICTS = 1000;

/** Why the URL is not acceptable as a callback target, by kind, or null. */
export function notifyUrlProblemKind(raw: string, allowPrivate: boolean): UrlProblem | null {
  const verdicts = VERDICTS[allowPrivate ? 1 : 0];
  const known = verdicts.get(raw);
  if (known !== undefined) return known;
  const kind = urlProblemKind(raw, allowPrivate);
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(raw, kind);
  return kind;
}

function urlProblemKind(raw: string, allowPrivate: boolean): UrlProblem | null {
  if (!raw.isWellFormed()) return "not_unicode";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "not_absolute";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "scheme";
  const rawProblem = rawUrlProblemKind(raw);
  if (rawProblem) return rawProblem;
  if (!u.hostname || /^\.+$/.test(u.hostname)) return "no_host";
  if (u.username || u.password) return "credentials";
  if (allowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host === "metadata.google.internal") return "not_public";
  if (isIP(host) && isSpecialPurposeAddress(host)) return "not_public";
  return null;
}

/** Returns a reason when the URL is not acceptable as a callback target. */
export function notifyUrlProblem(raw: string, allowPrivate: boolean): string | null {
  const k = notifyUrlProblemKind(raw, allowPrivate);
  return k && URL_PROBLEMS[k];
}
