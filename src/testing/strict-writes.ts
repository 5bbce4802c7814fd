// Preloaded into every `bun test` process (bunfig.toml [test] preload): the strict write check
// (issue 37, docs/transactions.md "The strict write check") is on in tests. Every SQLite
// connection openDb makes in the test process refuses a store's write outside writeTx, and so do
// the gateways a test runs as child processes (they inherit the environment). A test's fixtures
// seed through src/testing/seed.ts (`seedRows`), in a transaction of their own.
// SG_STRICT_WRITES=0 turns it off for one run (to tell whether a failure is the check's).
process.env.SG_STRICT_WRITES ??= "1";
