import { expect, test } from "bun:test";
import { AppError, ERRORS, failureBody, invalid } from "./errors";

// DESIGN 4: HTTP status per code, spec 7 codes plus the added ones.
const EXPECTED: Array<[number, number]> = [
  [10000, 500], [10001, 400], [10002, 404], [10003, 503], [10029, 429],
  [20005, 401], [20011, 401], [20012, 401], [20016, 401], [20020, 403],
  [31001, 400], [31002, 400], [31003, 400],
  [40002, 404], [40105, 409], [40108, 404],
  [51002, 403], [51004, 422],
  [53001, 422], [53002, 422], [53003, 422], [53005, 422],
  [54001, 404], [54002, 409], [54003, 422],
  [55001, 422], [55002, 409], [55003, 409],
  [56001, 422], [56002, 404],
];

test.each(EXPECTED)("code %i answers HTTP %i", (code, status) => {
  expect(new AppError(code as keyof typeof ERRORS).status).toBe(status);
});

test("the catalog holds exactly these codes", () => {
  expect(Object.keys(ERRORS).map(Number).sort()).toEqual(EXPECTED.map(([c]) => c).sort());
});

test("invalid() names the offending fields in data and message", () => {
  const e = invalid({ amount: "must be a decimal string", "x-nonce": "bad" });
  expect(failureBody(e, "req_1")).toEqual({
    code: 10001,
    message: "Request parameters invalid: amount, x-nonce",
    data: { fields: { amount: "must be a decimal string", "x-nonce": "bad" } },
    requestId: "req_1",
  });
});
