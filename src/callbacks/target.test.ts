import { describe, expect, test } from "bun:test";
import { cachedLookup, DNS_CACHE_MS, DNS_FAILURE_CACHE_MS, resolveTarget, TargetRefused } from "./target";
import { notifyUrlProblem } from "../lib/target-url";

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
    ["loopback literal", "http://127.0.0.1:9000/cb", /special-purpose address \(127\.0\.0\.1/],
    ["v6 loopback literal", "http://[::1]/cb", /special-purpose address/],
    ["localhost name", "http://localhost/cb", /not a public host/],
    ["metadata name", "http://metadata.google.internal/computeMetadata", /not a public host/],
    ["private resolution", "https://inner.example/cb", /resolves to a special-purpose address \(10\.1\.2\.3/],
    ["any private among several", "https://rebind.example/cb", /special-purpose address \(127\.0\.0\.1/],
    ["link-local metadata", "http://meta.example/", /169\.254\.169\.254/],
    ["unique-local v6", "http://ula.example/", /fd00::1/],
    ["v4-mapped private", "http://mapped.example/", /special-purpose address/],
    // URL parsing rewrites [::ffff:127.0.0.1] to [::ffff:7f00:1]; all of these reach an IPv4 host that is not public.
    ["v4-mapped loopback literal (hex form)", "http://[::ffff:127.0.0.1]:9000/cb", /special-purpose address/],
    ["v4-mapped metadata literal", "http://[::ffff:169.254.169.254]/latest/meta-data", /special-purpose address/],
    ["v4-compatible loopback literal", "http://[::127.0.0.1]/cb", /special-purpose address/],
    ["NAT64 private literal", "http://[64:ff9b::10.0.0.1]/cb", /special-purpose address/],
    ["6to4 loopback literal", "http://[2002:7f00:1::]/cb", /special-purpose address/],
    ["v6 link-local literal", "http://[fe80::1]/cb", /special-purpose address/],
    ["v6 multicast literal", "http://[ff02::1]/cb", /special-purpose address/],
    ["unresolvable", "https://nowhere.example/cb", /cannot resolve callback host nowhere\.example/],
    // DESIGN 10 "Hardening": every IANA special-purpose range, not only private ones.
    ["IETF protocol assignments 192.0.0.0/24", "http://192.0.0.170/cb", /special-purpose/],
    ["TEST-NET-1", "http://192.0.2.1/cb", /special-purpose/],
    ["TEST-NET-2", "http://198.51.100.7/cb", /special-purpose/],
    ["TEST-NET-3", "http://203.0.113.9/cb", /special-purpose/],
    ["benchmarking 198.18/15", "http://198.19.1.1/cb", /special-purpose/],
    ["reserved 240/4", "http://240.0.0.1/cb", /special-purpose/],
    ["shared 100.64/10", "http://100.100.100.100/cb", /special-purpose/],
    ["documentation 2001:db8::/32", "http://[2001:db8::1]/cb", /special-purpose/],
    ["NAT64 64:ff9b::/96 of a public address", "http://[64:ff9b::808:808]/cb", /special-purpose/],
    ["local NAT64 64:ff9b:1::/48", "http://[64:ff9b:1::1]/cb", /special-purpose/],
    ["IETF protocol assignments 2001::/23", "http://[2001:2::1]/cb", /special-purpose/],
    ["Teredo 2001::/32", "http://[2001:0:4136:e378::1]/cb", /special-purpose/],
    ["6to4 of a public address", "http://[2002:808:808::1]/cb", /special-purpose/],
    ["v4-mapped public address", "http://[::ffff:93.184.216.34]/cb", /special-purpose/],
    ["an empty authority (http:///x)", "http:///x", /must have a host/],
    ["a single slash (http:/x)", "http:/x", /absolute http\(s\) URL/],
    ["a backslash", "http:\\\\shop.example/cb", /backslash/],
    ["a tab inside", "http://shop.ex\tample/cb", /control characters/],
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
    for (const ok of ["http://[2606:2800:220:1:248:1893:25c8:1946]/cb", "https://shop.example/cb", "http://93.184.216.34:8080/cb"]) {
      expect(notifyUrlProblem(ok, false)).toBeNull();
    }
  });
  test.each(["http://192.0.0.8/", "http://192.0.2.1/", "http://198.51.100.1/", "http://203.0.113.1/", "http://198.18.0.1/", "http://240.1.2.3/", "http://100.64.0.1/", "http://[2001:db8::1]/", "http://[64:ff9b::1]/", "http://[64:ff9b:1::1]/", "http://[fc00::1]/", "http://[fe80::1]/", "http://[::ffff:93.184.216.34]/"])("special-purpose %s is refused", (url) => {
    expect(notifyUrlProblem(url, false)).toBe("must be a public address");
    expect(notifyUrlProblem(url, true)).toBeNull();
  });
  test.each([
    ["http:///x", "must have a host"],
    ["https:///shop.example/cb", "must have a host"],
    ["http:/shop.example/cb", "must be an absolute http(s) URL"],
    ["http://:80/x", "must be an absolute http(s) URL"],
  ])("%s is refused even when private targets are allowed: %s", (url, why) => {
    expect(notifyUrlProblem(url, true)).toBe(why);
  });
  test("a remembered verdict is the one for its own allowPrivate, asked again or after 1,000 other URLs", () => {
    const url = "http://10.0.0.7/cb";
    for (let round = 0; round < 2; round++) {
      expect(notifyUrlProblem(url, false)).toBe("must be a public address");
      expect(notifyUrlProblem(url, true)).toBeNull();
      expect(notifyUrlProblem("https://shop.example/cb", false)).toBeNull();
      expect(notifyUrlProblem("http:///x", true)).toBe("must have a host");
    }
    for (let i = 0; i < 1500; i++) expect(notifyUrlProblem(`https://shop${i}.example/cb`, false)).toBeNull();
    expect(notifyUrlProblem(url, false)).toBe("must be a public address");
    expect(notifyUrlProblem(url, true)).toBeNull();
  });
});

describe("cachedLookup (one lookup per host for a burst of deliveries)", () => {
  // A resolver that counts its calls, on a clock the test moves.
  const counting = () => {
    const calls: string[] = [];
    let t = 0;
    const l = cachedLookup(async (h) => {
      calls.push(h);
      return await lookup(h);
    }, () => t);
    return { l, calls, move: (ms: number) => (t += ms) };
  };

  test("concurrent lookups of one host share one resolution; another host has its own", async () => {
    const { l, calls } = counting();
    const got = await Promise.all([l("shop.example"), l("shop.example"), l("v6.example"), l("shop.example")]);
    expect(got[0]).toEqual(["93.184.216.34"]);
    expect(got[3]).toEqual(["93.184.216.34"]);
    expect(calls).toEqual(["shop.example", "v6.example"]);
  });

  test("an answer is reused for DNS_CACHE_MS, then asked again", async () => {
    const { l, calls, move } = counting();
    await l("shop.example");
    move(DNS_CACHE_MS - 1);
    await l("shop.example");
    expect(calls.length).toBe(1);
    move(1);
    await l("shop.example");
    expect(calls.length).toBe(2);
  });

  test("a failure is reused only for DNS_FAILURE_CACHE_MS, and every caller sees it", async () => {
    const { l, calls, move } = counting();
    await expect(l("nowhere.example")).rejects.toThrow("ENOTFOUND");
    move(DNS_FAILURE_CACHE_MS - 1);
    await expect(l("nowhere.example")).rejects.toThrow("ENOTFOUND");
    expect(calls.length).toBe(1);
    move(1);
    await expect(l("nowhere.example")).rejects.toThrow("ENOTFOUND");
    expect(calls.length).toBe(2);
  });

  test("cached addresses are still checked: a private answer is refused every time", async () => {
    const { l, calls } = counting();
    for (let i = 0; i < 3; i++) await expect(resolveTarget("https://inner.example/cb", false, l)).rejects.toThrow(/special-purpose address \(10\.1\.2\.3/);
    expect(calls.length).toBe(1);
  });
});

describe("TargetRefused (an attempt's error: its message, never its stack)", () => {
  test("captures no stack trace and leaves Error.stackTraceLimit as it was", async () => {
    const before = Error.stackTraceLimit;
    const e = await resolveTarget("https://shop.example/cb", false, async () => {
      throw new Error("getaddrinfo ENOTFOUND shop.example");
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TargetRefused);
    expect((e as Error).message).toBe("cannot resolve callback host shop.example: getaddrinfo ENOTFOUND shop.example");
    expect((e as Error).stack ?? "").not.toContain("resolveTarget");
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("x").stack).toContain("target.test");
  });
});
