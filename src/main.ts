#!/usr/bin/env bun
import { main } from "./cli/main";
import { createLogger } from "./lib/logger";
import { handleUnhandledRejections } from "./lib/unhandled";

// A promise nobody awaits that rejects is logged and counted, never the end of the process
// (lib/unhandled.ts); `serve` logs it through the gateway's logger once that exists.
handleUnhandledRejections(createLogger());

const code = await main(process.argv.slice(2));
// A failure exits now, whatever still holds the event loop (a listener, a chain's timers): an
// error must never leave a half-started gateway answering /healthz.
if (code !== 0) process.exit(code);
process.exitCode = 0;
