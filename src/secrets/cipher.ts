// AES-256-GCM with a random 96-bit IV; stored as "v1:<iv>:<tag>:<ciphertext>" (base64url).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

export class Cipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("master key must be 32 bytes");
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
    return ["v1", iv.toString("base64url"), c.getAuthTag().toString("base64url"), ct.toString("base64url")].join(":");
  }

  decrypt(stored: string): string {
    const [v, iv, tag, ct] = stored.split(":");
    if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("unknown ciphertext format");
    const d = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    d.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([d.update(Buffer.from(ct, "base64url")), d.final()]).toString("utf8");
  }

  /** Keyed lookup hash: finds an API key by value without storing it in clear. */
  lookupHash(value: string): string {
    return createHmac("sha256", this.key).update("lookup:" + value).digest("hex");
  }
}
