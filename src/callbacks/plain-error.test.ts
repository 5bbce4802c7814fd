import { expect, test } from "bun:test";
import { plainError } from "./plain-error";

test("network, HTTP and timeout errors read as one short plain sentence", () => {
  const cases: [string | null, number | null, string | null][] = [
    [null, 200, null],
    [null, null, null],
    ["ECONNREFUSED: ECONNREFUSED: Unable to connect. Is the computer able to access the url?", null, "The server refused the connection: nothing is listening at that address and port."],
    ["timed out after 10000ms", null, "No answer within 10 s (the callback timeout)."],
    ["timed out after 2500ms", null, "No answer within 2.5 s (the callback timeout)."],
    ["HTTP 500", 500, "The server answered HTTP 500 (internal server error); only a 2xx answer counts."],
    ["HTTP 404", 404, "The server answered HTTP 404 (not found); only a 2xx answer counts."],
    ["redirect 302 not followed (to https://x.test/cb)", 302, "The server answered with a redirect (302 to https://x.test/cb); redirects are not followed, so set the final URL."],
    ["cannot resolve callback host shop.invalid: getaddrinfo ENOTFOUND shop.invalid", null, "The host name could not be found (DNS)."],
    ["callback target 10.0.0.1 is not a public host", null, "The URL points to a private or local address, which callbacks may not reach."],
    ["ECONNRESET: The socket connection was closed unexpectedly.", null, "The connection was closed before the server answered."],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate", null, "The server's HTTPS certificate was not accepted."],
    ["API key k_1 not found; cannot sign the callback", null, "The API key that signs this order's callbacks is missing or unreadable."],
    ["WEIRD: WEIRD: something odd happened. And more.", null, "WEIRD: something odd happened."],
  ];
  for (const [error, status, words] of cases) expect(plainError(error, status), String(error)).toBe(words);
  // Never the runtime's question back at the operator.
  expect(plainError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?")).not.toContain("Is the computer");
});
