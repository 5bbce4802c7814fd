import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { MerchantNotFound } from "./service";
import { parseCidr, SettingsError, updateMerchantSettings } from "./settings";
import { releaseHeldCallbacks } from "../callbacks/store";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

describe("parseCidr", () => {
  const cases: Array<[string, string | null]> = [
    ["203.0.113.0/24", "203.0.113.0/24"],
    ["203.0.113.7", "203.0.113.7/32"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::/32", "2001:db8::/32"],
    ["::1", "::1/128"],
    ["2001:db8::/128", "2001:db8::/128"],
    ["203.0.113.0/33", null],
    ["2001:db8::/129", null],
    ["203.0.113.0/024", null],
    ["203.0.113.0/", null],
    ["203.0.113/24", null],
    ["256.0.0.0/8", null],
    ["fe80::1%eth0/64", null],
    ["example.com", null],
    ["10.0.0.0/-1", null],
  ];
  for (const [raw, want] of cases) {
    test(`${raw} → ${want ?? "refused"}`, () => {
      const r = parseCidr(raw);
      if (want === null) expect("problem" in r).toBe(true);
      else expect(r).toEqual({ cidr: want });
    });
  }
});

describe("updateMerchantSettings", () => {
  const deps = (allowPrivateTargets = false) => ({ db: gw.ctx.db, now: () => gw.ctx.clock.now(), allowPrivateTargets, releaseHeldCallbacks });

  test("sets, audits and clears both settings", async () => {
    const m = await gw.newMerchant("Settings Shop");
    const r = await updateMerchantSettings(deps(), m.uid, { defaultNotifyUrl: "https://shop.example/cb", ipAllowlist: ["203.0.113.0/24", " 2001:db8::1 "] }, CLI_ACTOR);
    expect(r.settings).toEqual({ merchantUid: m.uid, defaultNotifyUrl: "https://shop.example/cb", ipAllowlist: ["203.0.113.0/24", "2001:db8::1/128"] });
    const [entry] = (await listAudit(gw.ctx.db, { target: `merchant:${m.uid}` })).entries;
    expect(entry).toMatchObject({
      actor: "cli",
      role: "operator",
      action: "merchant.settings",
      before: { defaultNotifyUrl: null, ipAllowlist: [] },
      after: { defaultNotifyUrl: "https://shop.example/cb", ipAllowlist: ["203.0.113.0/24", "2001:db8::1/128"] },
    });
    const cleared = await updateMerchantSettings(deps(), m.uid, { defaultNotifyUrl: "", ipAllowlist: [] }, { actor: "bob", role: "operator", ip: "198.51.100.1" });
    expect(cleared.settings).toEqual({ merchantUid: m.uid, defaultNotifyUrl: null, ipAllowlist: [] });
    expect((await listAudit(gw.ctx.db, { target: `merchant:${m.uid}` })).entries[0]).toMatchObject({ actor: "bob", ip: "198.51.100.1" });
  });

  const bad: Array<[string, Parameters<typeof updateMerchantSettings>[2], RegExp]> = [
    ["loopback URL", { defaultNotifyUrl: "http://127.0.0.1/cb" }, /public address/],
    ["metadata host", { defaultNotifyUrl: "http://metadata.google.internal/" }, /public address/],
    ["private IPv6 URL", { defaultNotifyUrl: "http://[fd00::1]/cb" }, /public address/],
    ["non-http URL", { defaultNotifyUrl: "ftp://shop.example/cb" }, /http or https/],
    ["relative URL", { defaultNotifyUrl: "/cb" }, /absolute/],
    ["credentials", { defaultNotifyUrl: "https://u:p@shop.example/" }, /credentials/],
    ["bad CIDR", { ipAllowlist: ["10.0.0.0/8", "10.0.0.300/8"] }, /10\.0\.0\.300/],
  ];
  for (const [name, patch, msg] of bad) {
    test(`refuses ${name} with no write and no audit entry`, async () => {
      const m = await gw.newMerchant("Bad " + name);
      await expect((async () => await updateMerchantSettings(deps(), m.uid, patch, CLI_ACTOR))()).rejects.toThrow(msg);
      await expect((async () => await updateMerchantSettings(deps(), m.uid, patch, CLI_ACTOR))()).rejects.toThrow(SettingsError);
      expect((await listAudit(gw.ctx.db, { target: `merchant:${m.uid}` })).total).toBe(0);
    });
  }

  test("private targets are accepted when callbacks.allow_private_targets is on; unknown merchant refused", async () => {
    const m = await gw.newMerchant("Private");
    expect((await updateMerchantSettings(deps(true), m.uid, { defaultNotifyUrl: "http://127.0.0.1:9/cb" }, CLI_ACTOR)).settings.defaultNotifyUrl).toBe("http://127.0.0.1:9/cb");
    await expect((async () => await updateMerchantSettings(deps(), "M0000000", { ipAllowlist: [] }, CLI_ACTOR))()).rejects.toThrow(MerchantNotFound);
  });
});
