// English → Chinese for the money pages: dashboard, pay-in/payout/deposit lists, order pages, exceptions, refunds, batches, collection, balances, wallets, fees. Merged into ZH by i18n.ts.
export const ZH_MONEY: Readonly<Record<string, string>> = {
};
