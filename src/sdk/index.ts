// The merchant SDK: the signing client and callback verification.
export { ApiError, StablegateClient, type ClientOptions, type Query } from "./client";
export { CALLBACK_HEADERS, verifyCallback, type HeadersLike, type VerifyCallbackOptions } from "./callback";
export type * from "./types";
