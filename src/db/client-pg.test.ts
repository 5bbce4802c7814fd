// The failover URL's parts (src/db/client-pg.ts): libpq's host list and target_session_attrs,
// and which probed host fits which attribute. The reconnection itself runs on real servers in
// src/cluster/failover.e2e.test.ts.
import { describe, expect, test } from "bun:test";
import { fits, parsePgUrl, type HostState } from "./client-pg";
import { isHostLost } from "./storage-fault";

describe("parsePgUrl", () => {
  test.each([
    ["postgres://u:p@h1:5433,h2:5434/db?target_session_attrs=read-write&sslmode=disable", [["h1", 5433], ["h2", 5434]], "read-write", "postgres://u:p@h2:5434/db?sslmode=disable"],
    ["postgresql://h1,h2/db", [["h1", 5432], ["h2", 5432]], "any", "postgresql://h2:5432/db"],
    ["postgres://u@[::1]:5433,10.0.0.2/db?target_session_attrs=primary", [["::1", 5433], ["10.0.0.2", 5432]], "primary", "postgres://u@10.0.0.2:5432/db"],
  ] as const)("%s", (url, hosts, attrs, second) => {
    const t = parsePgUrl(url);
    expect(t.hosts.map((h) => [h.host, h.port])).toEqual(hosts.map((h) => [...h]));
    expect(t.sessionAttrs).toBe(attrs);
    expect(t.urlFor(t.hosts[1]!)).toBe(second);
  });

  test("an unknown target_session_attrs or a bad port is refused with the reason", () => {
    expect(() => parsePgUrl("postgres://h1,h2/db?target_session_attrs=writable")).toThrow(/target_session_attrs must be one of/);
    expect(() => parsePgUrl("postgres://h1:99999,h2/db")).toThrow(/out of range/);
    expect(() => parsePgUrl("mysql://h1/db")).toThrow(/not a PostgreSQL URL/);
  });
});

describe("fits", () => {
  const primary: HostState = { inRecovery: false, readOnly: false };
  const standby: HostState = { inRecovery: true, readOnly: true };
  const readOnlyPrimary: HostState = { inRecovery: false, readOnly: true };
  test.each([
    ["any", [true, true, true]],
    ["read-write", [true, false, false]],
    ["read-only", [false, true, true]],
    ["primary", [true, false, true]],
    ["standby", [false, true, false]],
    ["prefer-standby", [false, true, false]],
  ] as const)("%s: primary, standby, read-only primary", (attrs, expected) => {
    expect([primary, standby, readOnlyPrimary].map((s) => fits(attrs, s))).toEqual([...expected]);
  });
  test("prefer-standby's second pass takes any host", () => expect(fits("prefer-standby", primary, 2)).toBe(true));
});

test("isHostLost: lost or refused connections and a read-only server, not a query's own error", () => {
  expect(isHostLost({ code: "ERR_POSTGRES_CONNECTION_CLOSED" })).toBe(true);
  expect(isHostLost({ code: "ERR_POSTGRES_CONNECTION_REFUSED" })).toBe(true);
  expect(isHostLost({ code: "ERR_POSTGRES_SERVER_ERROR", errno: "25006" })).toBe(true);
  expect(isHostLost({ code: "ERR_POSTGRES_SERVER_ERROR", errno: "23505" })).toBe(false);
  expect(isHostLost(null)).toBe(false);
});
