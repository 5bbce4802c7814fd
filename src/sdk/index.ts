// @stablegate/sdk: the signing client, callback verification and the API's types.
export { ApiError, StablegateClient, type ClientOptions, type FetchInit, type FetchLike, type FetchResponse, type Query, type QueryValue } from "./client.js";
export { CALLBACK_HEADERS, verifyCallback, type HeadersLike, type VerifyCallbackOptions } from "./callback.js";
export { canonicalBody, canonicalQuery, signCallback, signRequest, signedText, type SignInput } from "./signing.js";
export type * from "./types.js";
