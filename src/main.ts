#!/usr/bin/env bun
import { main } from "./cli/main";

const code = await main(process.argv.slice(2));
// A failure exits now, whatever still holds the event loop (a listener, a chain's timers): an
// error must never leave a half-started gateway answering /healthz.
if (code !== 0) process.exit(code);
process.exitCode = 0;
