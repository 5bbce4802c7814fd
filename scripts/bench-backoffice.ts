// Back-office probes for `make bench` section "growth" (DESIGN 11, issue 23):
// every back-office page and filter, search, the order page and a month's CSV
// export (per row), timed over HTTP against a running gateway, as an operator
// and as a merchant user. The growth section runs them on the small and on the
// large database and prints each ratio:
//
//   const small = await backofficeFigures(smallSetup);   // gateway serving it
//   const large = await backofficeFigures(largeSetup);
//   for (const line of backofficeRatioLines(small, large)) console.log(line);
//
// Standalone, against any config whose gateway is running:
//   bun scripts/bench-backoffice.ts --config path/to/stablegate.toml
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { httpSession } from "../src/testing/backoffice-browser";
import { runCli } from "../src/testing/process";

/** What a probe needs of a gateway: where it answers, its config and database (CLI and sample). */
export interface BackofficeSetup {
  url: string;
  configPath: string;
  dbPath: string;
  env: Record<string, string>;
}

/** Real values picked from the middle of the database's history. */
export interface BackofficeSample {
  merchantUid: string;
  orderNo: string;
  orderId: number;
  merchantOrderNo: string;
  txHash: string | null;
  poolAddress: string;
  fromAddress: string | null;
  depositId: number | null;
  payoutOrderNo: string | null;
  /** The UTC month of the sampled order, as the filter's from/to days. */
  month: { from: string; to: string };
}

export interface Figure {
  /** Median milliseconds of one request. */
  ms: number;
  /** Data rows answered (CSV probes): the ratio is then per row. */
  rows?: number;
}
export type BackofficeFigures = Map<string, Figure>;

/** One back-office request: a page (timed per request) or a CSV export (per row). */
export interface BackofficeProbe {
  name: string;
  who: "operator" | "merchant";
  path: string;
  csv?: boolean;
}

export function backofficeSample(dbPath: string): BackofficeSample {
  const db = new Database(dbPath, { readonly: true });
  try {
    return sampleOf(db);
  } finally {
    db.close();
  }
}

/** The sample from an open connection (e.g. an in-process gateway's). */
export function sampleOf(db: Database): BackofficeSample {
  {
    const max = db.query<{ v: number }, []>("SELECT max(id) AS v FROM payin_orders").get()?.v ?? 0;
    type O = { id: number; order_no: string; merchant_order_no: string; tx_hash: string | null; address: string; from_address: string | null; merchant_id: number; created_at: number };
    const mid = (extra: string) => db.query<O, [number]>(`SELECT * FROM payin_orders WHERE id >= ? ${extra} ORDER BY id LIMIT 1`).get(Math.floor(max / 2));
    const o = mid("AND tx_hash IS NOT NULL") ?? mid("");
    if (!o) throw new Error("no pay-in in the database");
    const uid = db.query<{ uid: string }, [number]>("SELECT uid FROM merchants WHERE id = ?").get(o.merchant_id)!.uid;
    const tmax = db.query<{ v: number | null }, []>("SELECT max(id) AS v FROM transfers").get()?.v ?? null;
    const deposit = tmax === null ? null : (db.query<{ id: number }, [number]>("SELECT id FROM transfers WHERE id >= ? ORDER BY id LIMIT 1").get(Math.floor(tmax / 2))?.id ?? null);
    const pmax = db.query<{ v: number | null }, []>("SELECT max(id) AS v FROM payout_orders").get()?.v ?? null;
    const payout = pmax === null ? null : (db.query<{ order_no: string }, [number]>("SELECT order_no FROM payout_orders WHERE id >= ? ORDER BY id LIMIT 1").get(Math.floor(pmax / 2))?.order_no ?? null);
    const d = new Date(o.created_at);
    const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
    return {
      merchantUid: uid,
      orderNo: o.order_no,
      orderId: o.id,
      merchantOrderNo: o.merchant_order_no,
      txHash: o.tx_hash,
      poolAddress: o.address,
      fromAddress: o.from_address,
      depositId: deposit,
      payoutOrderNo: payout,
      month: { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) },
    };
  }
}

/** A probe's page answered: 200, or a search with one record found sending the browser to it (303, issue 30). */
export function probeAnswered(res: Response): boolean {
  return res.status === 200 || (res.status === 303 && (res.headers.get("location") ?? "").startsWith("/backoffice/"));
}

export function backofficeProbes(s: BackofficeSample): BackofficeProbe[] {
  const op = (name: string, path: string, csv = false): BackofficeProbe => ({ name, who: "operator", path: `/backoffice${path}`, csv });
  const mine = (name: string, path: string): BackofficeProbe => ({ name: `merchant user: ${name}`, who: "merchant", path: `/backoffice${path}` });
  const q = (v: string) => `/search?q=${encodeURIComponent(v)}`;
  const month = `from=${s.month.from}&to=${s.month.to}`;
  return [
    op("dashboard", ""),
    op("dashboard counters (counts.json)", "/counts.json"),
    op("pay-ins", "/payins"),
    op("pay-ins, status completed", "/payins?status=completed"),
    op("pay-ins, status waiting_payment", "/payins?status=waiting_payment"),
    op("pay-ins, status cancelled (rare)", "/payins?status=cancelled"),
    op("pay-ins, merchant", `/payins?merchant=${s.merchantUid}`),
    op("pay-ins, merchant + status expired", `/payins?merchant=${s.merchantUid}&status=expired`),
    op("pay-ins, chain + token", "/payins?chain=TRON&token=USDT"),
    op("pay-ins, a month", `/payins?${month}`),
    op("pay-ins, a page mid-history", `/payins?before=${s.orderId}`),
    op("pay-ins, merchant + status, a page mid-history", `/payins?merchant=${s.merchantUid}&status=completed&before=${s.orderId}`),
    op("payouts", "/payouts"),
    op("payouts, status failed", "/payouts?status=failed"),
    op("payouts, merchant", `/payouts?merchant=${s.merchantUid}`),
    op("deposits", "/deposits"),
    op("deposits, unmatched", "/deposits?status=unmatched"),
    op("deposits, merchant", `/deposits?merchant=${s.merchantUid}`),
    op("deposits, a month", `/deposits?${month}`),
    op("search: orderNo", q(s.orderNo)),
    op("search: merchantOrderNo", q(s.merchantOrderNo)),
    ...(s.txHash ? [op("search: txHash", q(s.txHash))] : []),
    op("search: a pool address", q(s.poolAddress)),
    ...(s.fromAddress ? [op("search: a payer address", q(s.fromAddress))] : []),
    op("search: nothing found", q("no-such-thing")),
    op("order page (pay-in)", `/orders/${s.orderNo}`),
    ...(s.payoutOrderNo ? [op("order page (payout)", `/orders/${s.payoutOrderNo}`)] : []),
    ...(s.depositId !== null ? [op("deposit page", `/deposits/${s.depositId}`)] : []),
    op("failed callbacks", "/callbacks"),
    op("exceptions", "/exceptions"),
    op("balances", "/balances"),
    op("wallets", "/wallets"),
    op("alerts", "/alerts"),
    op("audit log", "/audit"),
    op("merchants", "/merchants"),
    mine("dashboard", ""),
    mine("pay-ins", "/payins"),
    mine("pay-ins, status completed", "/payins?status=completed"),
    mine("search: orderNo", q(s.orderNo)),
    mine("developer", "/developer"),
    op("CSV: pay-ins of a month (per row)", `/payins.csv?${month}`, true),
    op("CSV: completed pay-ins of a month (per row)", `/payins.csv?status=completed&${month}`, true),
    op("CSV: a merchant's pay-ins of a month (per row)", `/payins.csv?merchant=${s.merchantUid}&${month}`, true),
    op("CSV: deposits of a month (per row)", `/deposits.csv?${month}`, true),
  ];
}

/** An operator and a merchant user of the sampled merchant, made by the CLI, signed in over HTTP. */
export async function backofficeSessions(setup: BackofficeSetup, merchantUid: string): Promise<{ operator: string; merchant: string }> {
  const tag = randomBytes(3).toString("hex");
  const user = (username: string, role: string, merchant?: string) => {
    const r = runCli(["user", "create", "--username", username, "--role", role, ...(merchant ? ["--merchant", merchant] : []), "--json", "--config", setup.configPath], setup.env);
    if (r.code !== 0) throw new Error(`user create: ${r.stderr}`);
    return JSON.parse(r.stdout) as { username: string; password: string };
  };
  return {
    operator: await httpSession(setup.url, user(`bench-op-${tag}`, "operator")),
    merchant: await httpSession(setup.url, user(`bench-shop-${tag}`, "merchant", merchantUid)),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Times every probe (median of `reps`, CSV exports of `csvReps`) after one untimed warm-up request each. */
export async function backofficeFigures(setup: BackofficeSetup, opts: { reps?: number; csvReps?: number; sample?: BackofficeSample } = {}): Promise<BackofficeFigures> {
  const sample = opts.sample ?? backofficeSample(setup.dbPath);
  const cookies = await backofficeSessions(setup, sample.merchantUid);
  const out: BackofficeFigures = new Map();
  for (const p of backofficeProbes(sample)) {
    const once = async () => {
      const t0 = performance.now();
      const res = await fetch(setup.url + p.path, { headers: { cookie: cookies[p.who] }, redirect: "manual" });
      const body = await res.text();
      const ms = performance.now() - t0;
      if (!probeAnswered(res)) throw new Error(`${p.name}: ${p.path} answered ${res.status}`);
      return { ms, rows: p.csv ? body.split("\r\n").length - 2 : undefined };
    };
    await once();
    const runs: { ms: number; rows?: number }[] = [];
    for (let i = 0; i < (p.csv ? (opts.csvReps ?? 3) : (opts.reps ?? 5)); i++) runs.push(await once());
    out.set(p.name, { ms: median(runs.map((r) => r.ms)), rows: runs[0]!.rows });
  }
  return out;
}

/** A CSV figure is per row (µs); a page's is per request (ms). */
const value = (f: Figure) => (f.rows !== undefined ? (f.ms * 1000) / Math.max(1, f.rows) : f.ms);
const unit = (f: Figure) => (f.rows !== undefined ? `µs/row (${f.rows} rows)` : "ms");

/** One line per probe: small, large, ratio large/small (target: within 2x). */
export function backofficeRatioLines(small: BackofficeFigures, large: BackofficeFigures): string[] {
  const lines: string[] = [];
  for (const [name, l] of large) {
    const s = small.get(name);
    if (!s) {
      lines.push(`  ${name.padEnd(52)} large ${value(l).toFixed(2)} ${unit(l)} (no small figure)`);
      continue;
    }
    const ratio = value(l) / value(s);
    lines.push(`  ${name.padEnd(52)} ${value(s).toFixed(2).padStart(9)} → ${value(l).toFixed(2).padStart(9)} ${unit(l).padEnd(24)} ${ratio.toFixed(2)}x${ratio > 2 ? "  OVER 2x" : ""}`);
  }
  return lines;
}

if (import.meta.main) {
  const i = process.argv.indexOf("--config");
  const configPath = i > 0 ? process.argv[i + 1] : process.env.STABLEGATE_CONFIG;
  if (!configPath) throw new Error("usage: bun scripts/bench-backoffice.ts --config stablegate.toml (its gateway running)");
  const toml = await Bun.file(configPath).text();
  const dbPath = /\[database\][^[]*?path\s*=\s*"([^"]+)"/.exec(toml)?.[1];
  const port = /\[server\][^[]*?port\s*=\s*(\d+)/.exec(toml)?.[1] ?? "8080";
  if (!dbPath) throw new Error(`${configPath}: no [database] path`);
  const figures = await backofficeFigures({ url: `http://127.0.0.1:${port}`, configPath, dbPath, env: process.env as Record<string, string> });
  for (const [name, f] of figures) console.log(`  ${name.padEnd(52)} ${value(f).toFixed(2)} ${unit(f)}`);
}
