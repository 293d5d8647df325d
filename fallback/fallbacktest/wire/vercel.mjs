// Sends the vercel form (the file named by argv[3]: model and
// providerOptions, as a caller passes them to the AI SDK) to a recorder at
// argv[2] standing in for the AI Gateway, through the AI SDK's
// generateText and @ai-sdk/gateway's provider, the way a client sends it
// (fallback/fallbacktest/wire.go reads what arrived: the provider posts
// the call, providerOptions included, to {baseURL}/language-model, the
// model in its ai-language-model-id header).
import { readFileSync } from "node:fs";
import { generateText } from "ai";
import { createGateway } from "@ai-sdk/gateway";

const [base, file] = process.argv.slice(2);
const form = JSON.parse(readFileSync(file, "utf8"));
const gateway = createGateway({ baseURL: base, apiKey: "recorder" });
try {
  await generateText({ model: gateway(form.model), prompt: "ping", providerOptions: form.providerOptions, maxRetries: 0 });
} catch {
  // The recorder's answer need not satisfy the SDK: what matters is what
  // arrived, which the test reads.
}
