// Delivery-time target checks (DESIGN 7, 10). notifyUrl was checked when the
// order was created, but DNS can change since: the host is resolved here, every
// address it resolves to must be public (unless allowed), and the request is
// then sent to that checked address so a second lookup cannot rebind it.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { rawUrlProblem, specialPurposeRange } from "../lib/target-url";

export type Lookup = (host: string) => Promise<string[]>;

/** The system resolver, uncached. */
export const resolverLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** A name's addresses are reused this long (ms): a burst of callbacks to one shop costs one lookup. */
export const DNS_CACHE_MS = 5_000;
/** A name that did not resolve is not asked again for this long (ms): its deliveries fail (and retry later) at once. */
export const DNS_FAILURE_CACHE_MS = 1_000;
/** A bound on memory: more distinct names than this (many merchants) just start over. */
const DNS_CACHE_NAMES = 1_000;

/**
 * A lookup shared by concurrent deliveries to one host and kept a few seconds (DNS_CACHE_MS;
 * DNS_FAILURE_CACHE_MS for a failure). A lookup costs ~30 µs of CPU when it answers and up to
 * ~400 µs when the name does not resolve (getaddrinfo asks every configured server), once per
 * delivery before. Every caller still checks the addresses it gets (resolveTarget), and the
 * request goes to the address checked, so caching neither skips nor weakens the check.
 */
export function cachedLookup(resolve: Lookup, now: () => number = () => performance.now()): Lookup {
  const names = new Map<string, { until: number; addresses: Promise<string[]> }>();
  return (host) => {
    const t = now();
    const hit = names.get(host);
    if (hit && hit.until > t) return hit.addresses;
    if (names.size >= DNS_CACHE_NAMES) names.clear();
    const entry = { until: Infinity, addresses: resolve(host) };
    names.set(host, entry);
    void entry.addresses.then(
      () => (entry.until = now() + DNS_CACHE_MS),
      () => (entry.until = now() + DNS_FAILURE_CACHE_MS),
    );
    return entry.addresses;
  };
}

export const systemLookup: Lookup = cachedLookup(resolverLookup);

let defaultLookup: Lookup = systemLookup;

/** The resolver deliveries use unless given one; the test harness installs an offline one. */
export function useDefaultLookup(l: Lookup | null): void {
  defaultLookup = l ?? systemLookup;
}

/** Resolves only localhost names, so no test delivery can leave the machine. */
export const offlineLookup: Lookup = async (host) => {
  if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1"];
  throw new Error(`ENOTFOUND ${host} (offline resolver: tests never reach the internet)`);
};

/** Where to connect: `connectUrl` names the checked IP; `host` and `serverName` keep the original name. */
export interface ResolvedTarget {
  url: URL;
  connectUrl: string;
  /** Host header value (hostname plus a non-default port). */
  host: string;
  /** SNI and certificate name for https; undefined for http or an IP literal. */
  serverName?: string;
  address: string;
}

/**
 * An attempt that cannot go out (a refused or unresolvable target): its message is the attempt's
 * error, never its stack, so none is captured. A stack trace is ~500 bytes of native memory per
 * error, kept until the error's collection: under a shop whose name does not resolve, every
 * attempt made one (docs/performance.md "RSS under the bench's load").
 */
export class TargetRefused extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data"]);

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "");
}

/** Refuses non-http(s) URLs and (unless allowPrivate) special-purpose (private, loopback, link-local, documentation, NAT64…) and metadata targets. */
export async function resolveTarget(raw: string, allowPrivate: boolean, lookup?: Lookup): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused(`callback URL is not a valid absolute URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TargetRefused(`callback URL must use http or https, not ${url.protocol}`);
  const rawProblem = rawUrlProblem(raw);
  if (rawProblem) throw new TargetRefused(`callback URL ${rawProblem}`);
  if (url.username || url.password) throw new TargetRefused("callback URL must not carry credentials");
  const name = bare(url.hostname).toLowerCase();
  if (!allowPrivate && (name === "localhost" || name.endsWith(".localhost") || name.endsWith(".internal") || METADATA_HOSTS.has(name))) {
    throw new TargetRefused(`callback target ${name} is not a public host`);
  }
  let addresses: string[];
  if (isIP(name)) addresses = [name];
  else {
    try {
      addresses = await (lookup ?? defaultLookup)(name);
    } catch (e) {
      throw new TargetRefused(`cannot resolve callback host ${name}: ${(e as Error).message}`);
    }
    if (!addresses.length) throw new TargetRefused(`callback host ${name} has no addresses`);
  }
  if (!allowPrivate) {
    const bad = addresses.find((a) => specialPurposeRange(a) !== null);
    if (bad) throw new TargetRefused(`callback host ${name} resolves to a special-purpose address (${bad}, ${specialPurposeRange(bad)}); refused`);
  }
  const address = addresses[0];
  const connect = new URL(url.href);
  connect.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return {
    url,
    connectUrl: connect.href,
    host: url.host,
    serverName: url.protocol === "https:" && !isIP(name) ? name : undefined,
    address,
  };
}
