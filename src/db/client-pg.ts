// PostgreSQL connections (DESIGN 22): Bun's built-in SQL client, one pool per process of at most
// [database] pool_size connections. The stores that use it come with the async storage seam.
//
// Several hosts (libpq's failover URL, `postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`):
// Bun's SQL client (1.4) takes one host: `new SQL(url)` rejects such a URL ("Invalid URL", the WHATWG
// parser reads `5432,h2` as a port), and it does not interpret target_session_attrs. So a URL with
// more than one host gets the small piece below, written here rather than taken from a package
// (DESIGN 22: Bun's client, no new dependency; no JS client does this for Bun's SQL):
// - the hosts are tried in the URL's order, each with a one-connection probe
//   (`pg_is_in_recovery()`, `transaction_read_only`) against target_session_attrs (libpq's values;
//   default `any`); the pool is then a plain Bun pool on the host that fits;
// - a query that fails because the connection was lost or refused, or because the server is read
//   only (SQLSTATE 25006: a primary that was demoted), or a pool connection that closes, makes the
//   choice again: the next queries wait for it (one pass over the hosts, connectionTimeout each) and
//   go to the host that fits then (the promoted standby), on a new pool; the old pool is closed;
// - the failed query itself is never re-sent (its effect is unknown): the caller answers 10003 and
//   its client retries, as for any outage;
// - `listen` subscriptions move to the new host, and their `onlisten` runs again (a reconnect: the
//   cluster bus drops its caches).
// A URL with one host is Bun's own client, unchanged.
import { SQL } from "bun";
import { isHostLost } from "./storage-fault";

export interface PgOpenOptions {
  /** Seconds to wait for a connection (each host's probe too). Default 10. */
  connectionTimeout?: number;
  /** Seconds an idle pooled connection stays open; 0 keeps it. Default 60. */
  idleTimeout?: number;
  /** Called for each connection that closes or fails to connect (Bun's `onclose`). */
  onclose?: (err: Error | null) => void;
}

/** A pool over `url` (one host or several); connecting is lazy, so a wrong host shows at the first query. */
export function openPg(url: string, poolSize = 10, options: PgOpenOptions = {}): SQL {
  const opts = { max: poolSize, connectionTimeout: options.connectionTimeout ?? 10, idleTimeout: options.idleTimeout ?? 60, ...(options.onclose ? { onclose: options.onclose } : {}) };
  const target = parsePgUrl(url);
  if (target.hosts.length === 1 && target.sessionAttrs === "any") return new SQL({ url, ...opts });
  return new HostSwitch(target, opts).client;
}

/** The URL to show (logs, messages): scheme, hosts and database; never the user or password. */
export function displayPgUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/)[^@/?#]*@/, "$1").replace(/\?.*$/, "");
}

export const SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

export interface PgHost {
  host: string;
  port: number;
}

export interface PgTarget {
  hosts: PgHost[];
  sessionAttrs: SessionAttrs;
  /** The URL for one of the hosts (no target_session_attrs), as Bun's client takes it. */
  urlFor(host: PgHost): string;
}

/** Splits a libpq URL's host list (`h1:p1,h2,[::1]:p3`); every other part is kept for each host's URL. */
export function parsePgUrl(url: string): PgTarget {
  const m = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(url);
  if (!m) throw new Error(`not a PostgreSQL URL: ${displayPgUrl(url)}`);
  const [, scheme, auth = "", hostList = "", rest = ""] = m;
  const hosts = hostList.split(",").map((h) => parseHost(h, url));
  const q = rest.indexOf("?");
  const params = new URLSearchParams(q >= 0 ? rest.slice(q + 1) : "");
  const attrs = params.get("target_session_attrs") ?? "any";
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs)) throw new Error(`target_session_attrs must be one of ${SESSION_ATTRS.join(", ")}; got ${JSON.stringify(attrs)}`);
  params.delete("target_session_attrs");
  const query = params.toString();
  const path = q >= 0 ? rest.slice(0, q) : rest;
  const urlFor = (h: PgHost) => `${scheme}${auth}${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}${path}${query ? `?${query}` : ""}`;
  return { hosts, sessionAttrs: attrs as SessionAttrs, urlFor };
}

function parseHost(text: string, url: string): PgHost {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(text);
  if (!m) throw new Error(`a host of ${displayPgUrl(url)} is not host[:port]: ${JSON.stringify(text)}`);
  const port = m[3] ? Number(m[3]) : 5432;
  if (!(port >= 1 && port <= 65535)) throw new Error(`a port of ${displayPgUrl(url)} is out of range: ${m[3]}`);
  return { host: decodeURIComponent(m[1] ?? m[2] ?? "") || "localhost", port };
}

/** What a probe found on a host. */
export interface HostState {
  inRecovery: boolean;
  readOnly: boolean;
}

/** Whether a host in `state` fits target_session_attrs (`prefer-standby` is two passes: standby, then any). */
export function fits(attrs: SessionAttrs, state: HostState, pass: 1 | 2 = 1): boolean {
  switch (attrs) {
    case "any":
      return true;
    case "read-write":
      return !state.readOnly;
    case "read-only":
      return state.readOnly;
    case "primary":
      return !state.inRecovery;
    case "standby":
      return state.inRecovery;
    case "prefer-standby":
      return pass === 2 || state.inRecovery;
  }
}

type PoolOptions = { max: number; connectionTimeout: number; idleTimeout: number; onclose?: (err: Error | null) => void };
type Subscription = { channel: string; onnotify: (payload: string) => void; onlisten?: () => void; current: SQL.ListenSubscription | null; pool: SQL | null };

/** The pool on the host that fits, chosen again when that host is lost; `client` is the SQL the callers hold. */
class HostSwitch {
  readonly client: SQL;
  private pool: SQL | null = null;
  private host: PgHost | null = null;
  private choosing: Promise<SQL> | null = null;
  private failed: { at: number; error: Error } | null = null;
  private closed = false;
  private readonly subs = new Set<Subscription>();
  /** Never queried: builds helpers (`sql(obj)`, `sql.array`) that need no connection. */
  private readonly helper: SQL;

  constructor(
    private readonly target: PgTarget,
    private readonly opts: PoolOptions,
  ) {
    this.helper = new SQL({ url: target.urlFor(target.hosts[0]!), max: 1 });
    this.client = this.makeClient();
  }

  /** The host queries go to now (null until the first choice, or while none fits). */
  current(): PgHost | null {
    return this.host;
  }

  private ready(): Promise<SQL> {
    if (this.closed) return Promise.reject(closedError());
    if (this.choosing) return this.choosing;
    if (this.pool) return Promise.resolve(this.pool);
    // Every host just failed: answer at once for a moment rather than probe them for each query.
    if (this.failed && performance.now() - this.failed.at < 250) return Promise.reject(this.failed.error);
    return this.choose();
  }

  private choose(): Promise<SQL> {
    this.choosing ??= this.findHost()
      .then((host) => {
        if (this.closed) throw closedError();
        this.failed = null;
        if (this.pool && this.host && sameHost(this.host, host)) return this.pool;
        this.retire();
        this.host = host;
        const pool = new SQL({ url: this.target.urlFor(host), ...this.opts, onclose: (err) => this.onPoolClose(pool, err) });
        this.pool = pool;
        void this.moveSubscriptions(pool);
        return pool;
      })
      .catch((e: unknown) => {
        this.retire();
        this.failed = { at: performance.now(), error: e as Error };
        throw e;
      })
      .finally(() => (this.choosing = null));
    return this.choosing;
  }

  /** Probes the hosts in order (prefer-standby: a second pass takes any); the first that fits. */
  private async findHost(): Promise<PgHost> {
    const why: string[] = [];
    for (const pass of this.target.sessionAttrs === "prefer-standby" ? ([1, 2] as const) : ([1] as const)) {
      for (const host of this.target.hosts) {
        try {
          const state = await probe(this.target.urlFor(host), this.opts.connectionTimeout);
          if (fits(this.target.sessionAttrs, state, pass)) return host;
          why.push(`${host.host}:${host.port} ${state.inRecovery ? "is a standby" : "is a primary"}${state.readOnly ? " (read only)" : ""}`);
        } catch (e) {
          why.push(`${host.host}:${host.port} ${(e as Error).message}`);
        }
      }
    }
    throw Object.assign(new Error(`no PostgreSQL host fits target_session_attrs=${this.target.sessionAttrs}: ${why.join("; ")}`), { code: "ERR_POSTGRES_CONNECTION_REFUSED" });
  }

  /** The pool's host may be gone: choose again (once, whoever notices first). */
  private suspect(pool: SQL): void {
    if (this.pool === pool && !this.closed) void this.choose().catch(() => {});
  }

  private onPoolClose(pool: SQL, err: Error | null): void {
    this.opts.onclose?.(err);
    if (this.pool === pool && isHostLost(err)) this.suspect(pool);
  }

  private retire(): void {
    const old = this.pool;
    this.pool = null;
    this.host = null;
    if (old) void old.close({ timeout: 0 }).catch(() => {});
  }

  private async run<T>(start: (pool: SQL) => PromiseLike<T>): Promise<T> {
    const pool = await this.ready();
    try {
      return await start(pool);
    } catch (e) {
      if (isHostLost(e)) this.suspect(pool);
      throw e;
    }
  }

  private async listen(channel: string, onnotify: (payload: string) => void, onlisten?: () => void): Promise<SQL.ListenSubscription> {
    const sub: Subscription = { channel, onnotify, ...(onlisten ? { onlisten } : {}), current: null, pool: null };
    const pool = await this.ready();
    sub.current = await pool.listen(channel, onnotify, onlisten);
    sub.pool = pool;
    this.subs.add(sub);
    const unlisten = async () => {
      this.subs.delete(sub);
      await sub.current?.unlisten().catch(() => {});
      sub.current = null;
    };
    return { channel, unlisten, [Symbol.asyncDispose]: unlisten };
  }

  /** After a new host was chosen: each subscription listens there (its onlisten runs: a reconnect). */
  private async moveSubscriptions(pool: SQL): Promise<void> {
    for (const sub of this.subs) {
      if (sub.pool === pool) continue;
      const old = sub.current;
      sub.current = null;
      sub.pool = pool;
      void old?.unlisten().catch(() => {});
      for (let attempt = 0; this.pool === pool && this.subs.has(sub); attempt++) {
        try {
          sub.current = await pool.listen(sub.channel, sub.onnotify, sub.onlisten);
          break;
        } catch {
          await Bun.sleep(Math.min(2000, 100 * 2 ** attempt));
        }
      }
    }
  }

  private async close(options?: { timeout?: number }): Promise<void> {
    this.closed = true;
    this.subs.clear();
    const pool = this.pool;
    this.pool = null;
    this.host = null;
    await this.choosing?.catch(() => {});
    await Promise.all([pool?.close(options), this.helper.close({ timeout: 0 })]);
  }

  /** An SQL-shaped client: tagged queries and unsafe() wait for the host; begin/reserve/listen on it. */
  private makeClient(): SQL {
    const deferred = <T>(start: (pool: SQL) => SQL.Query<T>) => new PendingQuery<T>((mods) => this.run((pool) => mods.reduce<SQL.Query<unknown>>((q, m) => m(q), start(pool)) as SQL.Query<T>));
    const methods: Record<string, unknown> = {
      unsafe: (text: string, values?: unknown[]) => deferred((p) => p.unsafe(text, values)),
      file: (path: string, values?: unknown[]) => deferred((p) => p.file(path, values)),
      begin: (...args: unknown[]) => this.run((p) => (p.begin as (...a: unknown[]) => Promise<unknown>)(...args)),
      transaction: (...args: unknown[]) => this.run((p) => (p.begin as (...a: unknown[]) => Promise<unknown>)(...args)),
      reserve: () => this.run((p) => p.reserve()),
      listen: (channel: string, onnotify: (payload: string) => void, onlisten?: () => void) => this.listen(channel, onnotify, onlisten),
      notify: (channel: string, payload?: string) => this.run((p) => p.notify(channel, payload)),
      close: (o?: { timeout?: number }) => this.close(o),
      end: (o?: { timeout?: number }) => this.close(o),
      flush: () => this.pool?.flush(),
      connect: () => this.run((p) => p.connect()),
      currentHost: () => this.current(),
    };
    const helper = this.helper;
    const call = (...args: unknown[]) => {
      const first = args[0] as { raw?: unknown } | undefined;
      // A tagged query waits for the host; sql(obj), sql(array) build helpers that need no connection.
      if (Array.isArray(first) && first && "raw" in first) return deferred((p) => (p as unknown as (...a: unknown[]) => SQL.Query<unknown>)(...args));
      return (helper as unknown as (...a: unknown[]) => unknown)(...args);
    };
    return new Proxy(call, {
      get: (_t, prop) => {
        if (typeof prop === "string" && prop in methods) return methods[prop];
        const v = Reflect.get(helper, prop) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(helper) : v;
      },
    }) as unknown as SQL;
  }
}

/** The host a client of openPg() queries now, for logs and tests; null for a one-host client or while none fits. */
export function pgCurrentHost(sql: SQL): PgHost | null {
  const f = (sql as unknown as { currentHost?: () => PgHost | null }).currentHost;
  return typeof f === "function" ? f() : null;
}

type Mod = (q: SQL.Query<unknown>) => SQL.Query<unknown>;

/** Bun's lazy query, for a pool not chosen yet: the modifiers are kept and applied when it starts. */
class PendingQuery<T> implements PromiseLike<T> {
  private readonly mods: Mod[] = [];
  private started: Promise<T> | null = null;
  constructor(private readonly begin: (mods: Mod[]) => Promise<T>) {}
  values(): this {
    return this.mod((q) => q.values());
  }
  raw(): this {
    return this.mod((q) => q.raw());
  }
  simple(): this {
    return this.mod((q) => q.simple());
  }
  execute(): this {
    void this.start().catch(() => {});
    return this;
  }
  then<R1 = T, R2 = never>(ok?: ((v: T) => R1 | PromiseLike<R1>) | null, ko?: ((e: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.start().then(ok, ko);
  }
  catch<R = never>(ko?: ((e: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.start().catch(ko);
  }
  finally(fn?: (() => void) | null): Promise<T> {
    return this.start().finally(fn);
  }
  private mod(m: Mod): this {
    this.mods.push(m);
    return this;
  }
  private start(): Promise<T> {
    return (this.started ??= this.begin(this.mods));
  }
}

/** One connection to `url`: whether the server is in recovery and whether a session there is read only. */
export async function probe(url: string, connectionTimeout: number): Promise<HostState> {
  const c = new SQL({ url, max: 1, connectionTimeout, idleTimeout: 0 });
  try {
    const rows = (await c.unsafe(`SELECT pg_is_in_recovery() AS r, current_setting('transaction_read_only') AS ro`)) as { r: boolean; ro: string }[];
    return { inRecovery: rows[0]!.r, readOnly: rows[0]!.ro === "on" };
  } finally {
    await c.close({ timeout: 0 }).catch(() => {});
  }
}

function sameHost(a: PgHost, b: PgHost): boolean {
  return a.host === b.host && a.port === b.port;
}

function closedError(): Error {
  return Object.assign(new Error("the PostgreSQL client was closed"), { code: "ERR_POSTGRES_CONNECTION_CLOSED" });
}
