// `user create|list|disable|enable|reset-password|reset-2fa` (DESIGN 2): back-office users.
// Generated passwords are printed once; every change is audited with actor `cli`.
import { CLI_ACTOR } from "../audit/log";
import type { Db } from "../db/client";
import { listMerchants } from "../merchants/service";
import type { Cipher } from "../secrets/cipher";
import { createUser, describeUser, listUsers, resetPassword, resetTotp, setUserStatus, UserError, type Role } from "../backoffice/users";
import { CliUsageError, type CliFlags, printTable } from "./common";

export interface UserCliEnv {
  db: Db;
  cipher: Cipher;
  now: () => number;
}

export { USER_USAGE } from "./help-text";

export async function userCommand(env: UserCliEnv, sub: string | undefined, arg: string | undefined, flags: CliFlags): Promise<number> {
  try {
    switch (sub) {
      case "create": {
        const username = flags.username;
        const role = flags.role;
        if (typeof username !== "string" || (role !== "operator" && role !== "merchant")) {
          throw new CliUsageError("usage: user create --username U --role operator|merchant [--merchant UID] [--json]");
        }
        const merchant = typeof flags.merchant === "string" ? flags.merchant : undefined;
        const { user, password } = await createUser(env, { username, role: role as Role, merchantUid: merchant }, CLI_ACTOR);
        if (flags.json) console.log(JSON.stringify({ username: user.username, password }));
        else console.log(`user ${user.username} (${user.role}${merchant ? ` of ${merchant}` : ""})\npassword: ${password}\n(store it now: it is not shown again)`);
        return 0;
      }
      case "list": {
        const uids = new Map((await listMerchants(env.db)).map((m) => [m.id, m.uid]));
        const rows = (await listUsers(env.db)).map((u) => describeUser(u, u.merchantId ? (uids.get(u.merchantId) ?? null) : null));
        if (flags.json) console.log(JSON.stringify(rows));
        else printTable(["username", "role", "merchant", "status", "2fa"], rows.map((r) => [r.username, r.role, r.merchantUid, r.status, r.totp ? "on" : "off"]), "no users");
        return 0;
      }
      case "disable":
      case "enable": {
        if (!arg) throw new CliUsageError(`usage: user ${sub} U`);
        const u = await setUserStatus(env, arg, sub === "disable" ? "disabled" : "active", CLI_ACTOR);
        console.log(`${u.username} ${u.status}`);
        return 0;
      }
      case "reset-password": {
        if (!arg) throw new CliUsageError("usage: user reset-password U [--json]");
        const { user, password } = await resetPassword(env, arg, CLI_ACTOR);
        if (flags.json) console.log(JSON.stringify({ username: user.username, password }));
        else console.log(`user ${user.username}\nnew password: ${password}\n(store it now: it is not shown again)`);
        return 0;
      }
      case "reset-2fa": {
        if (!arg) throw new CliUsageError("usage: user reset-2fa U");
        const u = await resetTotp(env, arg, CLI_ACTOR);
        console.log(`${u.username}: two-factor authentication removed; they sign in with the password and enroll again`);
        return 0;
      }
      default:
        throw new CliUsageError(`unknown user command: ${sub ?? "(none)"}`);
    }
  } catch (e) {
    if (e instanceof UserError) throw new CliUsageError(`user ${sub}: ${e.message}`);
    throw e;
  }
}
