// PostgreSQL connections (DESIGN 22): Bun's built-in SQL client, one pool per process of at most
// [database] pool_size connections. The stores that use it come with the async storage seam.
import { SQL } from "bun";

/** A pool over `url`; connecting is lazy, so a wrong host shows at the first query. */
export function openPg(url: string, poolSize = 10): SQL {
  return new SQL({ url, max: poolSize, connectionTimeout: 10, idleTimeout: 60 });
}

/** The URL to show (logs, messages): scheme, hosts and database; never the user or password. */
export function displayPgUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/)[^@/?#]*@/, "$1").replace(/\?.*$/, "");
}
