// `tsc --noEmit` and `eslint src` on ONE TypeScript program (docs/testing.md "Lint"): the promise
// rules need type information, and building it a second time cost as much CPU as the typecheck.
// Builds the program of tsconfig.json once, prints its diagnostics as tsc does, then lints with
// eslint.config.js, handing typescript-eslint that program (`parserOptions.programs`) instead of
// its project service. Runs under node (as `bun x tsc` and `bun x eslint` do).
//   node scripts/typecheck-lint.mjs     exit 1: type errors; 2: lint errors; 0: clean
import { ESLint } from "eslint";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
if (!config) process.exit(1);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences, configFileParsingDiagnostics: config.errors });
const diagnostics = ts.getPreEmitDiagnostics(program);
report(diagnostics);
if (diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error)) process.exit(1);
console.error("typecheck: clean; lint: eslint src on the same program");

const eslint = new ESLint({
  cwd: root,
  overrideConfig: { files: ["src/**/*.ts", "src/**/*.tsx"], languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
});
const results = await eslint.lintFiles(["src"]);
const formatter = await eslint.loadFormatter("stylish");
const text = await formatter.format(results);
if (text) console.log(text);
process.exit(results.some((r) => r.errorCount > 0) ? 2 : 0);

function report(list) {
  if (list.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  process.stdout.write(ts.formatDiagnosticsWithColorAndContext(list, host));
  const errors = list.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (errors) process.stdout.write(`\nFound ${errors} error${errors === 1 ? "" : "s"}.\n`);
}
