// PostgreSQL's own tools (DESIGN 22: backup and restore use pg_dump / pg_restore, custom format):
// where the binaries are, how they are run (the password never on a command line), and a reader
// of a custom-format archive's data (pg_restore's COPY text, streamed) for the checks a backup
// and a restore make before anything is trusted.
import { existsSync, readdirSync, openSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";

/** A tool is missing or failed; the message says which and why. */
export class PgToolError extends Error {
  override name = "PgToolError";
}

/** A custom-format archive (pg_dump -Fc) starts with these bytes. */
export const PG_ARCHIVE_MAGIC = "PGDMP";

/** Whether the file at `path` is a pg_dump custom-format archive (its first bytes). */
export function isPgArchive(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(5);
    return readSync(fd, b, 0, 5, 0) === 5 && b.toString("latin1") === PG_ARCHIVE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/**
 * The path of a PostgreSQL client binary: STABLEGATE_PG_BIN's folder, else the newest Debian
 * /usr/lib/postgresql/N/bin that has it (as scripts/ensure-postgres.sh finds the server), else PATH.
 */
export function pgTool(name: "pg_dump" | "pg_restore", env: NodeJS.ProcessEnv = process.env): string {
  if (env.STABLEGATE_PG_BIN) {
    const p = join(env.STABLEGATE_PG_BIN, name);
    if (existsSync(p)) return p;
    throw new PgToolError(`${name} not found in STABLEGATE_PG_BIN (${env.STABLEGATE_PG_BIN})`);
  }
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", name))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(root, newest, "bin", name);
  const onPath = Bun.which(name);
  if (onPath) return onPath;
  throw new PgToolError(
    `${name} not found (looked in STABLEGATE_PG_BIN, /usr/lib/postgresql/*/bin and PATH): install PostgreSQL's client tools of the server's major version or newer (Debian: apt-get install postgresql-client)`,
  );
}

/**
 * libpq's connection for a tool: the URL without its password, the password in PGPASSWORD (a
 * command line is visible to every user of the machine in ps).
 */
export function toolConnection(url: string, env: NodeJS.ProcessEnv = process.env): { dbname: string; env: Record<string, string> } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  const m = /^(postgres(?:ql)?:\/\/)([^:@/?#]*)(?::([^@/?#]*))?@/.exec(url);
  if (!m || m[3] === undefined) return { dbname: url, env: out };
  out.PGPASSWORD = decodeURIComponent(m[3]);
  return { dbname: url.replace(m[0], `${m[1]}${m[2]}@`), env: out };
}

/** Runs a tool to the end; throws PgToolError with its stderr when it fails. */
export async function runPgTool(name: "pg_dump" | "pg_restore", args: string[], url: string | null, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const exe = pgTool(name, env);
  const conn = url ? toolConnection(url, env) : { dbname: null, env: toolConnection("", env).env };
  const argv = conn.dbname ? [...args, `--dbname=${conn.dbname}`] : args;
  const p = Bun.spawn([exe, ...argv], { env: conn.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new PgToolError(`${name} failed (exit ${code}): ${stderr.trim().split("\n").slice(0, 3).join(" ") || "no message"}`);
  return stdout;
}

/** One value of COPY's text format: \N is null, backslash escapes decoded. */
export function copyValue(s: string): string | null {
  if (s === "\\N") return null;
  if (!s.includes("\\")) return s;
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" } as Record<string, string>)[e] ?? e;
  });
}

const COPY_HEAD = /^COPY (?:[\w"]+\.)?"?([\w]+)"? \(([^)]*)\) FROM stdin;$/;

/**
 * Streams the data of a custom-format archive (pg_restore's COPY text, nothing written anywhere):
 * `onRow(table, row)` for each row of the tables in `tables` (null: every table); the other rows
 * are only counted. Returns the row count of every table. Throws PgToolError for a file
 * pg_restore cannot read (not an archive, truncated, corrupt).
 */
export async function readArchiveData(path: string, tables: ReadonlySet<string> | null, onRow: (table: string, row: Record<string, string | null>) => void, env: NodeJS.ProcessEnv = process.env): Promise<Map<string, number>> {
  const p = Bun.spawn([pgTool("pg_restore", env), "--data-only", "--file=-", path], { env: toolConnection("", env).env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const errText = new Response(p.stderr).text();
  const counts = new Map<string, number>();
  let table: string | null = null;
  let columns: string[] = [];
  let wanted = false;
  let carry = "";
  const line = (l: string) => {
    if (table === null) {
      const m = COPY_HEAD.exec(l);
      if (!m) return;
      table = m[1]!;
      columns = m[2]!.split(",").map((c) => c.trim().replace(/^"|"$/g, ""));
      wanted = !tables || tables.has(table);
      counts.set(table, counts.get(table) ?? 0);
      return;
    }
    if (l === "\\.") {
      table = null;
      return;
    }
    counts.set(table, counts.get(table)! + 1);
    if (!wanted) return;
    const cells = l.split("\t");
    const row: Record<string, string | null> = {};
    columns.forEach((c, i) => (row[c] = copyValue(cells[i] ?? "\\N")));
    onRow(table, row);
  };
  const decoder = new TextDecoder();
  const reader = p.stdout.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = carry + decoder.decode(value, { stream: true });
    const lines = text.split("\n");
    carry = lines.pop()!;
    for (const l of lines) line(l);
  }
  if (carry) line(carry);
  const code = await p.exited;
  if (code !== 0) throw new PgToolError(`pg_restore cannot read ${path} (exit ${code}): ${(await errText).trim().split("\n").slice(0, 2).join(" ")}`);
  return counts;
}
