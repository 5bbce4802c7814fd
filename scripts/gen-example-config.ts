import { writeFileSync } from "node:fs";
import { renderExampleConfig } from "../src/cli/example-config";

writeFileSync("config/stablegate.example.toml", renderExampleConfig());
console.log("wrote config/stablegate.example.toml");
