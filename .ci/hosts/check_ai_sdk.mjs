// Feeds each listed tool to the Vercel AI SDK the way its MCP client does (`jsonSchema()` of
// the inputSchema, in a `dynamicTool`), and checks that the schema the SDK then hands to a
// provider (`asSchema(...).jsonSchema`) is the listed one: every property, required argument
// and enum value kept, nothing added, and it survives a JSON round trip.
//
// Usage: node check_ai_sdk.mjs TOOLS_JSON EXEMPT_JSON. Exits 1 on any failure.
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { asSchema, dynamicTool, jsonSchema } from "ai";

const tools = JSON.parse(readFileSync(process.argv[2], "utf8"));
const exempt = JSON.parse(readFileSync(process.argv[3], "utf8"));

function check(tool) {
  const listed = tool.inputSchema;
  const wrapped = dynamicTool({
    description: tool.description ?? "",
    inputSchema: jsonSchema(structuredClone(listed)),
    execute: async () => ({ content: [] }),
  });
  const handed = asSchema(wrapped.inputSchema).jsonSchema;
  if (!isDeepStrictEqual(handed, listed)) {
    return `the SDK's schema differs: ${JSON.stringify(handed).slice(0, 300)}`;
  }
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(handed)), listed)) {
    return "the schema does not survive a JSON round trip";
  }
  return null;
}

let passed = 0;
let failed = 0;
let exempted = 0;
for (const tool of tools) {
  const key = `${tool.example}/${tool.name}`;
  let problem;
  try {
    problem = check(tool);
  } catch (e) {
    problem = `refused: ${e}`;
  }
  if (problem === null) {
    passed++;
  } else if (key in exempt) {
    exempted++;
    console.log(`  exempt  ai-sdk: ${key}: ${problem} [${exempt[key]}]`);
  } else {
    failed++;
    console.log(`  FAILED  ai-sdk: ${key}: ${problem}`);
  }
}
const version = JSON.parse(readFileSync(new URL("./node_modules/ai/package.json", import.meta.url), "utf8")).version;
console.log(
  `ai-sdk (ai ${version}): ${passed} of ${tools.length} tools accepted without loss` +
    (exempted ? `, ${exempted} exempt` : ""),
);
process.exit(failed ? 1 : 0);
