// The files an operator installs: the systemd unit passes `systemd-analyze verify`
// (when systemd is on this machine) and carries the hardening DESIGN 14 asks for.
import { expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const unit = readFileSync(join(root, "config/stablegate.service"), "utf8");
const analyze = Bun.which("systemd-analyze");

test("the unit runs as its own user with ProtectSystem=strict, a writable data folder, NoNewPrivileges, a restart policy and a stop timeout", () => {
  for (const line of ["User=stablegate", "ProtectSystem=strict", "ReadWritePaths=/var/lib/stablegate", "NoNewPrivileges=yes", "Restart=on-failure", "TimeoutStopSec=10s", "UMask=0077"]) {
    expect(unit.split("\n")).toContain(line);
  }
});

test("systemd-analyze verify accepts the unit without a warning", () => {
  if (!analyze) {
    console.log("skipped: systemd-analyze is not installed on this machine");
    return;
  }
  // verify also checks that ExecStart's binary exists: point it at a stand-in, nothing else changes.
  const dir = mkdtempSync(join(tmpdir(), "stablegate-unit-"));
  try {
    const bin = join(dir, "stablegate");
    writeFileSync(bin, "#!/bin/sh\n");
    chmodSync(bin, 0o755);
    const file = join(dir, "stablegate.service");
    writeFileSync(file, unit.replaceAll("/opt/stablegate/stablegate", bin));
    const r = Bun.spawnSync([analyze, "verify", "--man=no", file], { stdout: "pipe", stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the Caddyfile proxies to the loopback listener and documents the matching trusted_proxies", () => {
  const caddy = readFileSync(join(root, "config/Caddyfile"), "utf8");
  expect(caddy).toContain("reverse_proxy 127.0.0.1:8080");
  expect(caddy).toContain('trusted_proxies = ["127.0.0.1/32", "::1/128"]');
});

test("the unit, `make run` and the test harness's gateways size JavaScriptCore's heap alike (src/lib/jsc-heap.ts)", async () => {
  const { JSC_RAM_ENV } = await import("../lib/jsc-heap");
  const ram = JSC_RAM_ENV.BUN_JSC_forceRAMSize;
  expect(unit.split("\n")).toContain(`Environment=BUN_JSC_forceRAMSize=${ram}`);
  const make = readFileSync(join(root, "Makefile"), "utf8");
  expect(make).toContain(`BUN_JSC_forceRAMSize="$\${BUN_JSC_forceRAMSize:-${ram}}"`);
  const harness = readFileSync(join(root, "src/testing/process.ts"), "utf8");
  expect(harness).toContain("env: { ...JSC_RAM_ENV, ...s.env");
});
