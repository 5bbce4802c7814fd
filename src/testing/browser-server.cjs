// Runs Chromium's Playwright server under Node for the Bun test process, which connects over a
// WebSocket. In-process (chromium.launch under Bun) the client now and then received a protocol
// object before its parent ("Cannot find parent object request@…"), which broke the whole file.
// Exits (closing Chromium) when its stdin closes, so a killed test run leaves no browser behind.
const { chromium } = require("playwright-core");

(async () => {
  const [executablePath, args] = process.argv.slice(2);
  const server = await chromium.launchServer({ executablePath, headless: true, args: JSON.parse(args) });
  process.stdout.write(server.wsEndpoint() + "\n");
  const stop = () => server.close().finally(() => process.exit(0));
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
  process.on("SIGTERM", stop);
})().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + "\n");
  process.exit(1);
});
