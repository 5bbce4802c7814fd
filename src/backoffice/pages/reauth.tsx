/** @jsxImportSource @kitajs/html */
// Re-authentication on the form itself (DESIGN 13: the confirming form carries a
// "Password" or "Authentication code" field). Routes with `reauth: "always"`
// check the entered secret every time (src/backoffice/guard.ts); a form without
// this field gets the guard's "Confirm it is you" step instead.
import type { Viewer } from "../guard";
import { tr } from "../i18n";

export function ReauthField({ viewer }: { viewer: Viewer }): JSX.Element {
  const label = tr(viewer.totp ? "Authentication code" : "Password");
  return (
    <>
      <label for="reauth" safe>
        {label}
      </label>
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

