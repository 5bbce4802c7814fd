// The exceptions page renders from its props alone: its route handlers load the data
// (loadExceptions), the page runs no query (it is handed no database here).
import { expect, test } from "bun:test";
import { ExceptionsPage, type ExceptionsData } from "./pages/exceptions";
import type { Viewer } from "./guard";

const viewer = { user: { username: "op" }, session: {}, role: "operator", merchantId: null, ip: null, csrf: "t", totp: false } as unknown as Viewer;
const empty: ExceptionsData = { unrecorded: [], unmatched: [], frozen: [], denied: [] };

test("an empty queue renders from props, with no database in reach", () => {
  const html = ExceptionsPage({ v: viewer, data: empty, display: { chains: new Map() }, notice: "Sender added to the deny list." });
  expect(html).toContain("Unmatched deposits");
  expect(html).toContain("No sender is denied.");
  expect(html).toContain("Sender added to the deny list.");
  expect(html).not.toContain("Unrecorded outgoing transfers");
});

test("what it is handed is what it shows", () => {
  const data: ExceptionsData = {
    ...empty,
    denied: [{ chainCode: "TRON", address: "TXdenied", reason: "fraud", createdAt: new Date(0).toISOString() }] as ExceptionsData["denied"],
  };
  const html = ExceptionsPage({ v: viewer, data, display: { chains: new Map() } });
  expect(html).toContain("TXdenied");
  expect(html).toContain("Remove TXdenied from the deny list");
});
