// A group flushed after its connection closed (shutdown past its deadline) answers its jobs with
// the error; the flush itself (started with `void` from setImmediate) never rejects: Bun would
// exit on that (review R11).
import { expect, test } from "bun:test";
import { openDb } from "./client";
import { groupCommit } from "./group-commit";

test("R11: jobs queued on a closed connection are rejected, not left pending", async () => {
  const db = openDb(":memory:");
  const g = groupCommit(db);
  db.$client.close();
  const job = g.run({ work: async () => 1 }).then(
    () => "resolved",
    (e: unknown) => `rejected: ${(e as Error).message}`,
  );
  const answer = await Promise.race([job, Bun.sleep(500).then(() => "pending")]);
  expect(answer).toMatch(/^rejected: .*clos/i);
});
