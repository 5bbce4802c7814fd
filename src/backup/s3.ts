// Off-box copies (DESIGN 16 "Backups off the box") with Bun's S3 client: any S3-compatible
// service (AWS, R2, Backblaze B2, MinIO, Wasabi...). `backup.s3_url` names the bucket and an
// optional key prefix: "https://ENDPOINT/BUCKET[/PREFIX]" (path style) or "s3://BUCKET[/PREFIX]"
// (AWS's endpoint; region from AWS_REGION).
import { S3Client } from "bun";
import type { Config } from "../config/schema";

export interface S3Target {
  client: S3Client;
  bucket: string;
  /** Key prefix ending in "/", or "". */
  prefix: string;
  /** Where, for messages (no credentials). */
  where: string;
}

export function s3Target(b: Config["backup"]): S3Target | null {
  if (!b.s3_url) return null;
  const u = new URL(b.s3_url);
  const parts = u.pathname.split("/").filter(Boolean);
  const creds = b.s3_access_key && b.s3_secret_key ? { accessKeyId: b.s3_access_key, secretAccessKey: b.s3_secret_key } : {};
  let bucket: string;
  let client: S3Client;
  if (u.protocol === "s3:") {
    bucket = u.hostname;
    client = new S3Client({ ...creds, bucket });
  } else {
    bucket = parts.shift()!;
    // AWS's regional endpoints carry the region the signature needs; others accept the default.
    const region = /(?:^|\.)s3[.-]([a-z0-9-]+)\.amazonaws\.com$/.exec(u.hostname)?.[1];
    client = new S3Client({ ...creds, bucket, endpoint: u.origin, ...(region ? { region } : {}) });
  }
  const prefix = parts.length ? parts.join("/") + "/" : "";
  return { client, bucket, prefix, where: `${u.protocol === "s3:" ? "s3://" : u.origin + "/"}${bucket}/${prefix}` };
}

/** Uploads `file` as `key` and checks the stored size. */
export async function upload(t: S3Target, file: string, key: string): Promise<void> {
  const local = Bun.file(file);
  await t.client.write(key, local);
  const stored = await t.client.size(key);
  if (stored !== local.size) throw new Error(`uploaded ${key} has ${stored} bytes, the backup ${local.size}`);
}

/** Keys under `prefix` the gateway made (`isOurs`), oldest first. */
export async function listBackups(t: S3Target, prefix: string, isOurs: (name: string) => boolean): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await t.client.list({ prefix, ...(token ? { continuationToken: token } : {}) });
    for (const o of page.contents ?? []) if (isOurs(o.key.slice(t.prefix.length))) keys.push(o.key);
    token = page.isTruncated ? page.nextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}
