// List filters of DESIGN 12 (merchant, chain, token, status, date range),
// parsed from a query string once and applied by every list and its CSV.
import { hasChainModule, tokenSymbols } from "../../chains/registry";

export interface ListFilter {
  /** Merchant UID (operators only; a merchant user is always scoped to its own). */
  merchant?: string;
  chain?: string;
  token?: string;
  status?: string;
  /** Inclusive UTC day bounds as ms: [from 00:00, to 24:00). */
  fromMs?: number;
  toMs?: number;
  /** The raw form values, to fill the form again. */
  raw: Record<string, string>;
}

/** Who asks: null = operator (every merchant). */
export interface Scope {
  merchantId: number | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FIELDS = ["merchant", "chain", "token", "status", "from", "to"] as const;

export function parseFilter(q: Record<string, string | undefined>, statuses: readonly string[]): ListFilter {
  const raw: Record<string, string> = {};
  for (const k of FIELDS) {
    const v = (q[k] ?? "").trim();
    if (v) raw[k] = v.slice(0, 64);
  }
  const f: ListFilter = { raw };
  if (raw.merchant && /^[A-Za-z0-9]{1,32}$/.test(raw.merchant)) f.merchant = raw.merchant;
  if (raw.chain && hasChainModule(raw.chain)) f.chain = raw.chain;
  if (raw.token && (tokenSymbols() as readonly string[]).includes(raw.token)) f.token = raw.token;
  if (raw.status && statuses.includes(raw.status)) f.status = raw.status;
  if (raw.from && DAY.test(raw.from) && !Number.isNaN(Date.parse(raw.from + "T00:00:00Z"))) f.fromMs = Date.parse(raw.from + "T00:00:00Z");
  if (raw.to && DAY.test(raw.to) && !Number.isNaN(Date.parse(raw.to + "T00:00:00Z"))) f.toMs = Date.parse(raw.to + "T00:00:00Z") + 86_400_000;
  return f;
}

/** The filter as a query string (for CSV links and paging). */
export function filterQuery(f: Pick<ListFilter, "raw">, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams({ ...f.raw, ...extra });
  const s = p.toString();
  return s ? "?" + s : "";
}
