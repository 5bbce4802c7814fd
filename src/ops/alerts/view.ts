// An alert incident as the back office, the CLI and the notifications show it (no database: both
// engines' stores, ops/alerts/store.ts and store.pg.ts, share it).
import { iso } from "../../lib/clock";
import type { AlertRow } from "./store";

export interface AlertView {
  id: string;
  condition: string;
  subject: string;
  status: "firing" | "resolved";
  message: string;
  lastMessage: string;
  firedAt: string;
  resolvedAt: string | null;
}

export function viewAlert(a: AlertRow): AlertView {
  return { id: a.id, condition: a.condition, subject: a.subject, status: a.status, message: a.message, lastMessage: a.lastMessage, firedAt: iso(a.firedAt)!, resolvedAt: iso(a.resolvedAt) };
}
