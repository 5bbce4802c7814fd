// DESIGN 10 "Hardening": every sign-in, second-factor and re-authentication attempt counts
// toward one per-user limit, which holds for attempts made in parallel (at most 5 secrets
// checked per user per window); a password reset or the setup link ends a lock; loopback-looking
// X-Forwarded-For values from a trusted proxy do not skip the per-address throttle.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { seedRows } from "../testing/seed";
import { backofficeSignIn, postLogin } from "../testing/backoffice-client";
import { TestClock } from "../lib/clock";
import { CLI_ACTOR } from "../audit/log";
import { completeSecondFactor, LOCKOUT, reauthenticate, signIn } from "./sessions";
import { enableTotp, newTotpSecret } from "./totp";
import { findUser, resetPassword, type UserDeps } from "./users";
import { completeSetup, issueSetupToken } from "./setup";
import { failuresSince, insertLoginFailure } from "./store";
import { addUser } from "../testing/backoffice-browser";
import { INVALID_FORWARDED } from "../lib/client-ip";

const clock = new TestClock(Date.parse("2026-11-24T08:00:00Z"));
let gw: TestGateway;
let deps: UserDeps;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { server: { trusted_proxies: ["127.0.0.1/32", "::1/128"] } } });
  deps = { db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() };
});
afterAll(() => gw.stop());

const client = { ip: "203.0.113.10", direct: false };
const signInAs = (username: string, password: string, ip = client) => signIn(deps, { username, password, ...ip, userAgent: null });

test("20 wrong passwords in flight at once and the right one behind them: the right one is refused and at most 5 passwords are checked", async () => {
  const who = await addUser(gw, "parallel", "operator");
  const verify = spyOn(Bun.password, "verify");
  try {
    const wrong = Array.from({ length: 20 }, (_, i) => signInAs(who.username, `wrong-password-${i}`));
    // The right one arrives once the first wrong ones hold the 5 reservations (on PostgreSQL the
    // attempts reach the database in any order over the pool; on SQLite in call order anyway).
    while ((await failuresSince(gw.ctx.db, { username: who.username }, 0)) < LOCKOUT.failures) await Bun.sleep(1);
    const results = await Promise.all([...wrong, signInAs(who.username, who.password)]);
    expect(verify.mock.calls.length).toBeLessThanOrEqual(LOCKOUT.failures);
    expect(results.at(-1)).toEqual({ ok: false, reason: "locked" });
    expect(results.filter((r) => r.ok)).toHaveLength(0);
  } finally {
    verify.mockRestore();
  }
  // Over HTTP too: the lock holds, and it is the same lock.
  expect((await postLogin(gw.url, who)).status).toBe(429);
});

test("second-factor codes count toward the same limit, in parallel too", async () => {
  const who = await addUser(gw, "twofactor", "operator");
  const secret = newTotpSecret();
  await enableTotp(deps, (await findUser(gw.ctx.db, who.username))!.id, secret, [], 0);
  const first = await signInAs(who.username, who.password);
  if (!first.ok) throw new Error("sign-in failed");
  // Two wrong passwords, then wrong codes in parallel: only three more are checked.
  await signInAs(who.username, "wrong-password-a");
  await signInAs(who.username, "wrong-password-b");
  const codes = await Promise.all(Array.from({ length: 10 }, () => completeSecondFactor(deps, first.session, "000000", client)));
  // Three codes were checked (each a failure row), the other seven refused unchecked.
  expect(await failuresSince(gw.ctx.db, { username: who.username }, 0)).toBe(LOCKOUT.failures);
  expect(codes.every((r) => r === "locked" || r === "invalid")).toBe(true);
  // Locked: the right password is refused now.
  expect(await signInAs(who.username, who.password)).toEqual({ ok: false, reason: "locked" });
});

test("re-authentication attempts are counted: wrong passwords in the key-rotation form and the password form lock the user", async () => {
  const op = await addUser(gw, "reauth-op", "operator");
  const bo = await backofficeSignIn(gw.url, op);
  // Three wrong re-authentications (rotate key: "always"), two wrong current passwords.
  for (let i = 0; i < 3; i++) expect((await bo.post(`/backoffice/merchants/${gw.merchant.uid}/rotate`, { _reauth: `wrong-password-${i}` })).status).toBe(401);
  for (let i = 0; i < 2; i++) {
    const t = await (await bo.post("/backoffice/security/password", { current: `wrong-${i}-xxxxxxxx`, new: "a-new-password-123" })).text();
    // The fifth failure is answered as the lock it causes.
    expect(t).toContain(i === 0 ? "not right" : "Too many failed attempts");
  }
  // The sixth attempt is refused even with the right password.
  const locked = await bo.post(`/backoffice/merchants/${gw.merchant.uid}/rotate`, { _reauth: op.password });
  expect(locked.status).toBe(429);
  expect(await locked.text()).toContain("Too many failed attempts");
  expect((await postLogin(gw.url, op)).status).toBe(429);

  // Parallel re-authentications are capped like sign-ins.
  const p2 = await addUser(gw, "reauth-par", "operator");
  const first = await signInAs(p2.username, p2.password);
  if (!first.ok) throw new Error("sign-in failed");
  const verify = spyOn(Bun.password, "verify");
  try {
    const rs = await Promise.all([...Array.from({ length: 20 }, (_, i) => reauthenticate(deps, first.session, first.user, `nope-${i}`, client)), reauthenticate(deps, first.session, first.user, p2.password, client)]);
    expect(verify.mock.calls.length).toBeLessThanOrEqual(LOCKOUT.failures);
    expect(rs.at(-1)).toBe("locked");
  } finally {
    verify.mockRestore();
  }
});

test("a lockout never locks an operator out of recovery: user reset-password and the setup link clear it", async () => {
  const who = await addUser(gw, "recover", "operator");
  for (let i = 0; i < LOCKOUT.failures; i++) await signInAs(who.username, `wrong-password-${i}`);
  expect(await signInAs(who.username, who.password)).toEqual({ ok: false, reason: "locked" });
  const { password } = await resetPassword(deps, who.username, CLI_ACTOR);
  expect((await signInAs(who.username, password)).ok).toBe(true);

  // "admin" guessed before it exists, then created through the setup link: it signs in at once.
  const gw2 = await startTestGateway({ clock, jobs: false });
  try {
    const d2 = { db: gw2.ctx.db, cipher: gw2.ctx.cipher, now: () => clock.now() };
    for (let i = 0; i < LOCKOUT.failures; i++) await signIn(d2, { username: "admin", password: `guess-${i}-xxxxxxxx`, ...client, userAgent: null });
    const token = (await issueSetupToken(d2))!;
    expect(await completeSetup(d2, token, "admin", "the-real-admin-password", { ip: null })).not.toBeNull();
    expect((await signIn(d2, { username: "admin", password: "the-real-admin-password", ...client, userAgent: null })).ok).toBe(true);
  } finally {
    await gw2.stop();
  }
});

test("loopback-looking and malformed X-Forwarded-For values from a trusted proxy are throttled like any address", async () => {
  for (const [forwarded, recorded] of [["127.0.0.2", "127.0.0.2"], ["::1", "::1"], ["not-an-ip", INVALID_FORWARDED]] as const) {
    // A failure through the proxy is recorded under the forwarded value (never left out as loopback)...
    const first = await postLogin(gw.url, { username: `spray-${forwarded}`, password: "wrong-xxxxxxxxxx" }, { "x-forwarded-for": forwarded });
    expect(first.status).toBe(401);
    expect(await failuresSince(gw.ctx.db, { ip: recorded }, 0)).toBe(1);
    // ...so the address limit applies to it: with the rest of the 50 failures on record, it is locked.
    for (let i = 1; i < LOCKOUT.ipFailures; i++) await seedRows(gw.ctx.db, async (tx) => await insertLoginFailure(tx, { username: `spray${i % 20}-${forwarded}`, ip: recorded, at: clock.now() }));
    const res = await postLogin(gw.url, { username: "anyone-else", password: "wrong-xxxxxxxxxx" }, { "x-forwarded-for": forwarded });
    expect(res.status).toBe(429);
    expect(await res.text()).toContain("Too many failed sign-ins from your network address.");
  }
  // ip:port is malformed too: the same refused address, already locked.
  expect((await postLogin(gw.url, { username: "anyone-else", password: "wrong-xxxxxxxxxx" }, { "x-forwarded-for": "203.0.113.9:4711" })).status).toBe(429);
});
