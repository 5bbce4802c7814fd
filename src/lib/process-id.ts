// Who this process is, for claims other processes sharing the database can see (issue 37:
// a callback's lease names its owner). host:pid:random — the random part tells apart a pid
// reused after a restart; the host and pid let a process on the same machine tell a dead
// owner's claims from a live one's.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { processAlive } from "./pid";

/** This process's id: `host:pid:random`. */
export const PROCESS_ID = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;

/**
 * Whether the process that wrote `owner` is known to be gone: it ran on this host and its pid
 * is no longer alive, or is this process's pid under another id (a container's pid 1 restarted).
 * A pid reused by another process counts as alive: its claims wait for their lease. An owner on
 * another host is never known gone. No owner (a claim written before owners were recorded)
 * counts as gone.
 */
export function ownerGone(owner: string | null, host = hostname()): boolean {
  if (owner === null) return true;
  const m = /^(.*):(\d+):[0-9a-f]+$/.exec(owner);
  if (!m || m[1] !== host) return false;
  const pid = Number(m[2]);
  if (pid === process.pid) return owner !== PROCESS_ID;
  return !processAlive(pid);
}
