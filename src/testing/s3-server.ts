// A real S3-compatible server on 127.0.0.1 for backup upload tests: s3rver (npm), which
// stores objects on disk and speaks the S3 REST API Bun's S3 client uses (PUT, multipart,
// HEAD, ListObjectsV2, DELETE). Its limit: it checks that the access key id exists but
// does not verify SigV4 signatures, so a wrong secret is not refused (docs/testing.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./wait";

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverInstance;

export interface TestS3 {
  /** Path-style bucket URL with a key prefix, as `backup.s3_url` takes it. */
  url: (prefix?: string) => string;
  bucket: string;
  accessKey: string;
  secretKey: string;
  port: number;
  /** Stops answering (connection refused) until start() again; objects stay. */
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

export async function startTestS3(bucket = "backups"): Promise<TestS3> {
  const S3rver = require("s3rver") as S3rverCtor;
  const dir = mkdtempSync(join(tmpdir(), "stablegate-s3-"));
  const port = await freePort();
  let srv: S3rverInstance | null = null;
  const start = async () => {
    srv = new S3rver({ address: "127.0.0.1", port, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
    await srv.run();
  };
  await start();
  return {
    url: (prefix = "") => `http://127.0.0.1:${port}/${bucket}${prefix ? "/" + prefix : ""}`,
    bucket,
    // s3rver's built-in account.
    accessKey: "S3RVER",
    secretKey: "S3RVER",
    port,
    async stop() {
      await srv?.close();
      srv = null;
    },
    start,
    async dispose() {
      await srv?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
