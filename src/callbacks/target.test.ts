import { describe, expect, test } from "bun:test";
import { resolveTarget, TargetRefused } from "./target";
import { notifyUrlProblem } from "../orders/notify-url";

// DNS answers injected per host so no test touches a real resolver.
const dns: Record<string, string[]> = {
  "shop.example": ["93.184.216.34"],
  "v6.example": ["2606:2800:220:1:248:1893:25c8:1946"],
  "rebind.example": ["93.184.216.34", "127.0.0.1"],
  "inner.example": ["10.1.2.3"],
  "meta.example": ["169.254.169.254"],
  "ula.example": ["fd00::1"],
  "mapped.example": ["::ffff:192.168.1.1"],
};
const lookup = async (h: string) => {
  const a = dns[h];
  if (!a) throw new Error("ENOTFOUND");
  return a;
};

describe("resolveTarget refuses", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["ftp scheme", "ftp://shop.example/cb", /http or https/],
    ["not a URL", "shop.example/cb", /not a valid absolute URL/],
    ["credentials", "https://u:p@shop.example/cb", /credentials/],
    ["loopback literal", "http://127.0.0.1:9000/cb", /private address \(127\.0\.0\.1\)/],
    ["v6 loopback literal", "http://[::1]/cb", /private address/],
    ["localhost name", "http://localhost/cb", /not a public host/],
    ["metadata name", "http://metadata.google.internal/computeMetadata", /not a public host/],
    ["private resolution", "https://inner.example/cb", /resolves to a private address \(10\.1\.2\.3\)/],
    ["any private among several", "https://rebind.example/cb", /private address \(127\.0\.0\.1\)/],
    ["link-local metadata", "http://meta.example/", /169\.254\.169\.254/],
    ["unique-local v6", "http://ula.example/", /fd00::1/],
    ["v4-mapped private", "http://mapped.example/", /private address/],
    // URL parsing rewrites [::ffff:127.0.0.1] to [::ffff:7f00:1]; all of these reach an IPv4 host that is not public.
    ["v4-mapped loopback literal (hex form)", "http://[::ffff:127.0.0.1]:9000/cb", /private address/],
    ["v4-mapped metadata literal", "http://[::ffff:169.254.169.254]/latest/meta-data", /private address/],
    ["v4-compatible loopback literal", "http://[::127.0.0.1]/cb", /private address/],
    ["NAT64 private literal", "http://[64:ff9b::10.0.0.1]/cb", /private address/],
    ["6to4 loopback literal", "http://[2002:7f00:1::]/cb", /private address/],
    ["v6 link-local literal", "http://[fe80::1]/cb", /private address/],
    ["v6 multicast literal", "http://[ff02::1]/cb", /private address/],
    ["unresolvable", "https://nowhere.example/cb", /cannot resolve callback host nowhere\.example/],
  ];
  for (const [name, url, msg] of cases) {
    test(name, async () => {
      const p = resolveTarget(url, false, lookup);
      await expect(p).rejects.toBeInstanceOf(TargetRefused);
      await expect(p).rejects.toThrow(msg);
    });
  }
});

describe("resolveTarget connects to the checked address", () => {
  test("https keeps the name for SNI and Host", async () => {
    const t = await resolveTarget("https://shop.example:8443/cb?x=1", false, lookup);
    expect(t).toMatchObject({ connectUrl: "https://93.184.216.34:8443/cb?x=1", host: "shop.example:8443", serverName: "shop.example", address: "93.184.216.34" });
  });
  test("http to an IPv6 host", async () => {
    const t = await resolveTarget("http://v6.example/cb", false, lookup);
    expect(t.connectUrl).toBe("http://[2606:2800:220:1:248:1893:25c8:1946]/cb");
    expect(t.host).toBe("v6.example");
    expect(t.serverName).toBeUndefined();
  });
  test("private targets pass when allowed", async () => {
    const t = await resolveTarget("http://inner.example:81/cb", true, lookup);
    expect(t.connectUrl).toBe("http://10.1.2.3:81/cb");
    expect((await resolveTarget("http://127.0.0.1:9/x", true, lookup)).address).toBe("127.0.0.1");
  });
  test("scheme is still checked when private targets are allowed", async () => {
    await expect(resolveTarget("file:///etc/passwd", true, lookup)).rejects.toThrow(/http or https/);
  });
});

describe("notifyUrl check at order creation (10001)", () => {
  test("IPv4 hidden in an IPv6 literal is judged by the IPv4 it reaches", () => {
    for (const bad of ["http://[::ffff:127.0.0.1]:9000/cb", "http://[::ffff:7f00:1]/cb", "http://[::ffff:a9fe:a9fe]/", "http://[::ffff:10.0.0.1]/"]) {
      expect(notifyUrlProblem(bad, false)).toBe("must be a public address");
    }
    for (const ok of ["http://[::ffff:93.184.216.34]/cb", "http://[2606:2800:220:1:248:1893:25c8:1946]/cb", "https://shop.example/cb"]) {
      expect(notifyUrlProblem(ok, false)).toBeNull();
    }
  });
});
