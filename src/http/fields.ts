// Field schemas shared by the merchant API's request bodies.
import { Type as T } from "@sinclair/typebox";

export const AmountField = T.String({
  pattern: "^\\d+(\\.\\d{1,6})?$",
  description: "Decimal string, > 0, at most 6 fractional digits. JSON numbers are rejected.",
  examples: ["100.50"],
  errorMessage: "must be a decimal string with at most 6 fractional digits",
});
export const ChainCodeField = T.String({ description: "TRON, BSC or SOL", examples: ["TRON"], errorMessage: "must be a string" });
export const TokenSymbolField = T.String({ description: "USDT or USDC, matching chainCode", examples: ["USDT"], errorMessage: "must be a string" });
export const OrderNoField = T.String({ minLength: 1, maxLength: 128, description: "Merchant order number, at most 128 characters", errorMessage: "must be a string of 1-128 characters" });
export const UrlField = T.String({ minLength: 1, maxLength: 2048, description: "http(s) URL that receives callbacks", errorMessage: "must be an http(s) URL" });
