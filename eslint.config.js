// Promise hygiene (DESIGN 22, issue #37): stores return promises, and a promise nobody awaits
// is a write that may land after its transaction, or an error nobody sees. Only these rules
// run (no style rules); scripts/test.sh runs them after tsc. docs/testing.md "Lint".
import tseslint from "typescript-eslint";

export default [
  { ignores: ["src/sdk/dist/**", "node_modules/**", "src/vendor/**"] },
  {
    files: ["src/**/*.ts", "src/**/*.tsx"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: {
      // The test clock's advance()/set() fire due timers at once; their promise only lets
      // pending chains run, so a test may leave it (docs/testing.md "Lint").
      "@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: true, allowForKnownSafeCalls: [{ from: "file", name: ["advance", "set"], path: "src/lib/clock.ts" }] }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: true, attributes: false, properties: true, returns: true, variables: true, inheritedMethods: true } }],
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // bun:test types `expect(p).rejects.toThrow()` / `.resolves` as returning void, so the
    // `await` they need reads as awaiting a non-promise: await-thenable is off in tests only.
    files: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    // A describe() body may await the stores that set its cases up (bun runs async describe
    // bodies before the cases): only that argument position is allowed a promise.
    rules: {
      "@typescript-eslint/await-thenable": "off",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
    },
  },
];
