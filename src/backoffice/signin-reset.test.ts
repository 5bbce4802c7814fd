// A sign-in whose password is checked while the operator changes the user (review R12): a
// password reset revokes every session, and a sign-in verified against the old password must not
// create a fresh one after it; the same for a user or a merchant disabled during the check. The
// argon2 check is held open (it takes ~50-100 ms for real) while the change commits.
import { afterEach, expect, spyOn, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { openTestDb } from "../testing/engines";
import { rawGet } from "../db/raw";
import { Cipher } from "../secrets/cipher";
import { CLI_ACTOR } from "../audit/log";
import { createMerchant, setMerchantStatus } from "../merchants/service";
import { signIn } from "./sessions";
import { createUser, resetPassword, setUserStatus, type UserDeps } from "./users";

const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore();
});

/** Bun.password.verify answers only once `release()` is called. */
function holdVerify(): { started: () => boolean; release: () => void } {
  const real = Bun.password.verify.bind(Bun.password);
  let go!: () => void;
  const gate = new Promise<void>((r) => (go = r));
  let started = false;
  spies.push(
    spyOn(Bun.password, "verify").mockImplementation(async (...a: Parameters<typeof real>) => {
      started = true;
      const ok = await real(...a);
      await gate;
      return ok;
    }),
  );
  return { started: () => started, release: () => go() };
}

const cases: { name: string; change(d: UserDeps, username: string, merchantUid: string): Promise<unknown> }[] = [
  { name: "the password is reset", change: (d, u) => resetPassword(d, u, CLI_ACTOR) },
  { name: "the user is disabled", change: (d, u) => setUserStatus(d, u, "disabled", CLI_ACTOR) },
  { name: "the user's merchant is disabled", change: (d, _u, m) => setMerchantStatus(d, m, "disabled") },
];

for (const c of cases) {
  test(`R12: a sign-in checked while ${c.name} creates no session`, async () => {
    const t = await openTestDb();
    const db = t.db;
    const d = { db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() };
    const { merchant } = await createMerchant(d, { name: "shop" });
    const { user, password } = await createUser(d, { username: "clerk", role: "merchant", merchantUid: merchant.uid }, CLI_ACTOR);
    const verify = holdVerify();
    const signing = signIn(d, { username: "clerk", password, ip: null, userAgent: null });
    while (!verify.started()) await Bun.sleep(1);
    await c.change(d, "clerk", merchant.uid); // commits while the old password is being checked
    verify.release();
    expect(await signing).toEqual({ ok: false, reason: "invalid" });
    expect(Number((await rawGet<{ n: number | string }>(db, "SELECT count(*) AS n FROM backoffice_sessions WHERE user_id = ? AND revoked_at IS NULL", [user.id]))!.n)).toBe(0);
    await t.close();
  });
}

test("R12: with nothing changed during the check, the sign-in creates its session", async () => {
  const t = await openTestDb();
  const d = { db: t.db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() };
  const { password } = await createUser(d, { username: "admin", role: "operator" }, CLI_ACTOR);
  const r = await signIn(d, { username: "admin", password, ip: null, userAgent: null });
  expect(r.ok && r.session.stage).toBe("full");
  await t.close();
});
