// The navigation of each role. A new page adds its entry here (docs/backoffice.md).
import type { Role } from "../users";

export interface NavItem {
  href: string;
  label: string;
  roles: Role[];
}

export const NAV: NavItem[] = [
  { href: "/backoffice", label: "Dashboard", roles: ["operator", "merchant"] },
  { href: "/backoffice/payins", label: "Pay-ins", roles: ["operator", "merchant"] },
  { href: "/backoffice/payouts", label: "Payouts", roles: ["operator", "merchant"] },
  { href: "/backoffice/deposits", label: "Deposits", roles: ["operator", "merchant"] },
  { href: "/backoffice/payment-links", label: "Payment links", roles: ["operator", "merchant"] },
  { href: "/backoffice/exceptions", label: "Exceptions", roles: ["operator", "merchant"] },
  { href: "/backoffice/lookup", label: "Look up a transaction", roles: ["operator", "merchant"] },
  { href: "/backoffice/merchants", label: "Merchants", roles: ["operator"] },
  { href: "/backoffice/callbacks", label: "Callbacks", roles: ["operator", "merchant"] },
  { href: "/backoffice/wallets", label: "Wallets", roles: ["operator", "merchant"] },
  { href: "/backoffice/balances", label: "Balances", roles: ["operator", "merchant"] },
  { href: "/backoffice/fees", label: "Fees", roles: ["operator", "merchant"] },
  { href: "/backoffice/batches", label: "Batch payouts", roles: ["merchant"] },
  { href: "/backoffice/collection", label: "Collection", roles: ["merchant"] },
  { href: "/backoffice/developer", label: "Developer", roles: ["merchant"] },
  { href: "/backoffice/alerts", label: "Alerts", roles: ["operator"] },
  { href: "/backoffice/users", label: "Users", roles: ["operator"] },
  { href: "/backoffice/audit", label: "Audit log", roles: ["operator"] },
  { href: "/backoffice/security", label: "Security", roles: ["operator", "merchant"] },
];

export function navFor(role: Role): NavItem[] {
  return NAV.filter((n) => n.roles.includes(role));
}
