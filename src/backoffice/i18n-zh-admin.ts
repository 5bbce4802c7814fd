// English → Chinese for the administration pages: merchants, users, security, developer settings, callbacks, alerts, audit log, payment links, re-authentication, console. Merged into ZH by i18n.ts.
export const ZH_ADMIN: Readonly<Record<string, string>> = {
};
