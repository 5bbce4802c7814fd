// Login throttling per client address (beside DESIGN 12's per-username lockout): one
// address spraying many usernames is stopped; behind a trusted proxy the address is the
// client's from X-Forwarded-For, so one attacker does not lock out everyone else.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { postLogin } from "../testing/backoffice-client";
import { TestClock } from "../lib/clock";
import { listAudit } from "../audit/log";
import { LOCKOUT } from "./sessions";
import { addUser } from "../testing/backoffice-browser";
import { rawAll } from "../db/raw";
import { TEST_ENGINE } from "../testing/engines";
import { writeTx } from "../db/client";
import { insertLoginFailure } from "./store";

const clock = new TestClock(Date.parse("2026-11-21T08:00:00Z"));
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { server: { trusted_proxies: ["127.0.0.1/32", "::1/128"] } } });
});
afterAll(() => gw.stop());

const from = (ip: string) => ({ "x-forwarded-for": ip });

/**
 * The failures over HTTP in each case: the rest of the 50 are stored first, as the sign-in stores
 * them (username, address, time). Each failure over HTTP costs an argon2id check (about 0.15-0.5
 * CPU-s); these few show the HTTP layer records and counts them, the stored ones the threshold.
 */
const OVER_HTTP = 5;
async function storeFailures(g: TestGateway, n: number, username: (i: number) => string, ip: string): Promise<void> {
  await writeTx(g.ctx.db, async (tx) => {
    for (let i = 0; i < n; i++) await insertLoginFailure(tx, { username: username(i), ip, at: clock.now() });
  });
}

test("50 failures from one address lock that address for 15 minutes, not the others", async () => {
  const real = await addUser(gw, "throttled", "operator");
  const attacker = "203.0.113.7";
  // Each username fails fewer than 5 times: only the address limit can stop this spray. The
  // failures over HTTP are the last ones: the one that reaches the limit is among them.
  const stored = LOCKOUT.ipFailures - OVER_HTTP;
  await storeFailures(gw, stored, (i) => `guess${i % 25}`, attacker);
  for (let i = stored; i < LOCKOUT.ipFailures; i++) {
    const res = await postLogin(gw.url, { username: `guess${i % 25}`, password: `wrong-${i}-xxxxxxx` }, from(attacker));
    // The failure that reaches the limit is already answered as locked.
    expect(res.status).toBe(i < LOCKOUT.ipFailures - 1 ? 401 : 429);
  }
  const blocked = await postLogin(gw.url, real, from(attacker));
  expect(blocked.status).toBe(429);
  expect(await blocked.text()).toContain("Too many failed sign-ins from your network address.");
  expect(blocked.headers.getSetCookie().some((c) => c.startsWith("sg_session="))).toBe(false);
  expect((await listAudit(gw.ctx.db, {})).entries.some((e) => e.action === "address.locked_out" && e.target === `ip:${attacker}` && e.ip === attacker)).toBe(true);

  // Another client behind the same proxy signs in, and the real user is not locked by name.
  const other = await postLogin(gw.url, real, from("198.51.100.9"));
  expect(other.status).toBe(303);
  expect(other.headers.getSetCookie().some((c) => c.startsWith("sg_session="))).toBe(true);

  clock.advance(LOCKOUT.windowMs + 1000);
  expect((await postLogin(gw.url, real, from(attacker))).status).toBe(303);
}, 120_000);

// SQLite only: which address counts is the HTTP layer's choice (trusted proxies), the same on either
// engine; the first test proves the PostgreSQL store counts and locks per address.
test.skipIf(TEST_ENGINE === "pg")("an untrusted X-Forwarded-For is ignored, and a loopback client only meets the username limit", async () => {
  // No trusted proxies: the client is the socket peer, 127.0.0.1. That is the host itself or an
  // undeclared reverse proxy, so counting it would let one guesser lock every operator out.
  const gw2 = await startTestGateway({ clock, jobs: false });
  try {
    const real = await addUser(gw2, "direct", "operator");
    // The loopback client past the address limit already (as the failures over HTTP store them),
    // then more failures with forged addresses: none is locked, none records a forged address.
    await storeFailures(gw2, LOCKOUT.ipFailures, (i) => `g${i % 25}`, "127.0.0.1");
    for (let i = 0; i < OVER_HTTP; i++) {
      const res = await postLogin(gw2.url, { username: `g${i % 25}`, password: `wrong-${i}-xxxxxxx` }, from(`192.0.2.${i}`));
      expect(res.status).toBe(401);
    }
    expect((await postLogin(gw2.url, real, from("192.0.2.200"))).status).toBe(303);
    // The forged addresses never reached the record: the failures and the audit carry the peer.
    const ips = await rawAll<{ ip: string }>(gw2.ctx.db, "SELECT DISTINCT ip FROM login_failures");
    expect(ips.map((r) => r.ip)).toEqual(["127.0.0.1"]);
    expect((await listAudit(gw2.ctx.db, { actor: real.username })).entries.find((e) => e.action === "user.sign_in")?.ip).toBe("127.0.0.1");
  } finally {
    await gw2.stop();
  }
}, 120_000);
