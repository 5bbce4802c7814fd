/** @jsxImportSource @kitajs/html */
// Re-authentication on the form itself (DESIGN 13: the confirming form carries a
// "Password" or "Authentication code" field). The guard's `reauth: true`
// accepts a recent sign-in; for money-moving confirmations the entered secret
// is checked every time as well.
import type { BackofficeDeps, Viewer } from "../guard";
import { reauthenticate } from "../sessions";

export function ReauthField({ viewer }: { viewer: Viewer }): JSX.Element {
  const label = viewer.totp ? "Authentication code" : "Password";
  return (
    <>
      <label for="reauth">{label}</label>
      <input
        id="reauth"
        name="_reauth"
        type={viewer.totp ? "text" : "password"}
        inputmode={viewer.totp ? "numeric" : undefined}
        autocomplete={viewer.totp ? "one-time-code" : "current-password"}
        required
      />
    </>
  );
}

/** The entered password (or TOTP / recovery code) is right. */
export async function reauthOk(d: BackofficeDeps, v: Viewer, secret: string): Promise<boolean> {
  if (!secret) return false;
  return reauthenticate(d.users, v.session, v.user, secret);
}
