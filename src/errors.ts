// The one error catalog: code -> HTTP status and public message (spec 7, DESIGN 4).
export const ERRORS = {
  10000: { status: 500, message: "Internal error" },
  10001: { status: 400, message: "Request parameters invalid" },
  10002: { status: 404, message: "Not found" },
  10003: { status: 503, message: "Storage unavailable" },
  10029: { status: 429, message: "Too many requests" },
  20005: { status: 401, message: "API Key invalid" },
  20011: { status: 401, message: "Request signature invalid" },
  20012: { status: 401, message: "Signature timestamp outside the allowed window" },
  20016: { status: 401, message: "Nonce already used" },
  20020: { status: 403, message: "IP address not allowed" },
  31001: { status: 400, message: "Chain not supported" },
  31002: { status: 400, message: "Token not supported" },
  31003: { status: 400, message: "Chain and token do not match" },
  40002: { status: 404, message: "Exclusive wallet binding does not exist" },
  40105: { status: 409, message: "Shared receiving amount already occupied" },
  40108: { status: 404, message: "Pay-in order does not exist" },
  51002: { status: 403, message: "Operation restricted by merchant status, switch, limit or fee balance" },
  51004: { status: 422, message: "Fee balance insufficient" },
  53001: { status: 422, message: "Source address does not exist" },
  53002: { status: 422, message: "Source address not allowed for this operation" },
  53003: { status: 422, message: "Available balance of the token insufficient" },
  53005: { status: 422, message: "Source address balance insufficient" },
  54001: { status: 404, message: "Payout order does not exist" },
  54002: { status: 409, message: "Payout order status does not allow this operation" },
  54003: { status: 422, message: "Payment to the merchant's own address not allowed" },
  55001: { status: 422, message: "Refund exceeds the refundable amount" },
  55002: { status: 409, message: "Order status does not allow a refund" },
  55003: { status: 409, message: "refundNo reused with another body" },
  56001: { status: 422, message: "No current rate for the currency" },
  56002: { status: 404, message: "Invoice does not exist" },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    public readonly data: Record<string, unknown> | null = null,
    message?: string,
  ) {
    super(message ?? ERRORS[code].message);
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** 10001 naming the offending fields: data = { fields: { name: reason } }. */
export function invalid(fields: Record<string, string>, extra?: Record<string, unknown>): AppError {
  const names = Object.keys(fields);
  return new AppError(10001, { fields, ...extra }, `Request parameters invalid: ${names.join(", ")}`);
}

export interface FailureBody {
  code: number;
  message: string;
  data: Record<string, unknown> | null;
  requestId: string | null;
}

export function failureBody(e: AppError, requestId: string | null): FailureBody {
  return { code: e.code, message: e.message, data: e.data, requestId };
}
