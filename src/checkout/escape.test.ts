import { describe, expect, test } from "bun:test";
import { escapeHtml, jsonForScript } from "./escape";

describe("escapeHtml", () => {
  test.each([
    ["plain", "plain"],
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [`"onmouseover="x`, "&quot;onmouseover=&quot;x"],
    ["it's `x` & y", "it&#39;s &#96;x&#96; &amp; y"],
    ["&amp;", "&amp;amp;"],
    [null, ""],
    [undefined, ""],
    [42, "42"],
  ])("%p", (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });
});

describe("jsonForScript", () => {
  test("cannot close the script element or open a comment, and still parses back", () => {
    const value = { a: "</script><script>alert(1)</script>", b: "<!-- & -->", c: "\u2028\u2029" };
    const out = jsonForScript(value);
    expect(out).not.toContain("</script");
    expect(out).not.toContain("<!--");
    expect(out).not.toContain("\u2028");
    expect(JSON.parse(out)).toEqual(value);
  });
});
