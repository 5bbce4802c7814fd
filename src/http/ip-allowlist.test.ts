// IP allowlists on /openapi (DESIGN 10): a refused address is 20020 / HTTP 403
// and writes nothing; X-Forwarded-For counts only through a trusted proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildBlockList, clientAddr, clientAddress, INVALID_FORWARDED } from "../lib/client-ip";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sendSigned } from "../testing/signed-request";
import { updateMerchantSettings } from "../merchants/settings";
import { CLI_ACTOR } from "../audit/log";
import { releaseHeldCallbacks } from "../callbacks/store";
import { sql } from "drizzle-orm";
import { testSql } from "../testing/engine-rows";

describe("client address", () => {
  const trusted = buildBlockList(["10.0.0.0/8", "127.0.0.1"]);
  test.each([
    ["peer not a proxy: header ignored", "198.51.100.7", "203.0.113.5", "198.51.100.7"],
    ["no header", "10.1.1.1", null, "10.1.1.1"],
    ["trusted proxy: right-most entry", "10.1.1.1", "203.0.113.5", "203.0.113.5"],
    ["trusted proxy: spoofed left part ignored", "10.1.1.1", "1.2.3.4, 203.0.113.5", "203.0.113.5"],
    ["chain of trusted proxies skipped", "127.0.0.1", "203.0.113.5, 10.2.2.2, 10.3.3.3", "203.0.113.5"],
    ["IPv4-mapped peer", "::ffff:198.51.100.7", "203.0.113.5", "198.51.100.7"],
    ["IPv6 client", "10.1.1.1", "2001:db8::1", "2001:db8::1"],
  ] as const)("%s", (_name, peer, xff, want) => {
    expect(clientAddress(peer, xff, trusted)).toBe(want);
  });
  // DESIGN 10: an entry that is not a bare IP address is refused and never counts as loopback;
  // a loopback-looking value forwarded by a proxy is not the socket peer (`direct` false).
  test.each([
    ["a name", "not-an-ip", { ip: INVALID_FORWARDED, direct: false }],
    ["ip:port", "203.0.113.5:4711", { ip: INVALID_FORWARDED, direct: false }],
    ["bracketed IPv6", "[2001:db8::1]", { ip: INVALID_FORWARDED, direct: false }],
    ["garbage right of a good entry", "203.0.113.5, x", { ip: INVALID_FORWARDED, direct: false }],
    ["an empty entry", "203.0.113.5,", { ip: INVALID_FORWARDED, direct: false }],
    ["a forwarded 127.0.0.2", "127.0.0.2", { ip: "127.0.0.2", direct: false }],
    ["a forwarded ::1", "::1", { ip: "::1", direct: false }],
  ] as const)("strict X-Forwarded-For: %s", (_name, xff, want) => {
    expect(clientAddr("10.1.1.1", xff, trusted)).toEqual(want);
  });
  test("the socket peer is direct", () => {
    expect(clientAddr("127.0.0.1", null, trusted)).toEqual({ ip: "127.0.0.1", direct: true });
  });
  test("no trusted proxies: always the peer", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.5", null)).toBe("127.0.0.1");
  });
});

describe("allowlist on /openapi", () => {
  let direct: TestGateway; // trusts no proxy
  let proxied: TestGateway; // trusts 127.0.0.1 (the test's own socket) as a proxy
  beforeAll(async () => {
    direct = await startTestGateway({ config: { server: { trusted_proxies: [] } }, jobs: false });
    proxied = await startTestGateway({ config: { server: { trusted_proxies: ["127.0.0.0/8"] } }, jobs: false });
  });
  afterAll(async () => {
    await direct?.stop();
    await proxied?.stop();
  });

  const setAllowlist = async (g: TestGateway, cidrs: string[] | null) =>
    await updateMerchantSettings({ db: g.ctx.db, now: () => Date.now(), allowPrivateTargets: true, releaseHeldCallbacks }, g.merchant.uid, { ipAllowlist: cidrs }, CLI_ACTOR);
  const counts = async (g: TestGateway) =>
    (await testSql(g.ctx.db, sql`SELECT (SELECT count(*) FROM payin_orders) AS orders, (SELECT count(*) FROM nonces) AS nonces, (SELECT count(*) FROM callbacks) AS callbacks`))
      .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])))[0];

  let n = 0;
  const create = (g: TestGateway, xff?: string) =>
    sendSigned({
      baseUrl: g.url,
      uid: g.merchant.uid,
      apiKey: g.merchant.apiKey,
      path: "/openapi/payin/orders",
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `IP-${++n}`, amount: "10", notifyUrl: "https://shop.example/cb" },
      headers: xff ? { "x-forwarded-for": xff } : {},
    });

  test("an address outside the allowlist is 20020 (403) and writes nothing", async () => {
    await setAllowlist(direct, ["203.0.113.0/24"]);
    const before = await counts(direct);
    const r = await create(direct);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 20020, data: { clientIp: "127.0.0.1" } });
    expect(r.body.requestId).toBeString();
    expect(await counts(direct)).toEqual(before);
  });

  test("through an untrusted proxy the forwarded address does not count", async () => {
    await setAllowlist(direct, ["203.0.113.0/24"]);
    const r = await create(direct, "203.0.113.5");
    expect(r.body.code).toBe(20020);
  });

  test("an allowed address passes; an empty allowlist allows every address", async () => {
    await setAllowlist(direct, ["127.0.0.1/32", "2001:db8::/32"]);
    expect((await create(direct)).status).toBe(200);
    await setAllowlist(direct, null);
    expect((await create(direct)).status).toBe(200);
  });

  test("through a trusted proxy the forwarded address counts", async () => {
    await setAllowlist(proxied, ["203.0.113.0/24"]);
    const ok = await create(proxied, "203.0.113.5");
    expect(ok.status).toBe(200);
    expect(ok.body.orderNo).toBeString();
    // The right-most untrusted hop is the client: a spoofed allowed address to its left does not help.
    const spoofed = await create(proxied, "203.0.113.5, 198.51.100.1");
    expect(spoofed.body).toMatchObject({ code: 20020, data: { clientIp: "198.51.100.1" } });
    // No header: the proxy itself is the client, and it is not allowed.
    expect((await create(proxied)).body.code).toBe(20020);
  });
});
