// Sends the openrouter form (the file named by argv[3], the members of
// OpenRouter's HTTP request body) to a recorder at argv[2], the way a
// client sends it, through each SDK (fallback/fallbacktest/wire.go reads
// what arrived):
//
//   /openai      the openai SDK, the form spread into create()'s params,
//                which the SDK sends as they are ("undocumented request
//                params" in its README);
//   /sdk         @openrouter/sdk, the form in the SDK's own input shape
//                (provider.allowFallbacks; docs/api.md says so);
//   /sdk-as-body @openrouter/sdk given the HTTP body's shape unchanged,
//                to show what the SDK does with allow_fallbacks.
//
// It prints the SDK's provider slugs (BYOKProviderSlug), one JSON array,
// for the test to hold provider.order to.
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { OpenRouter } from "@openrouter/sdk";
import { BYOKProviderSlug } from "@openrouter/sdk/models";

const [base, file] = process.argv.slice(2);
const form = JSON.parse(readFileSync(file, "utf8"));
const messages = [{ role: "user", content: "ping" }];
// No retries and a short timeout: the recorder answers at once, and a
// test must not wait on a client's back-off.
const openai = new OpenAI({ baseURL: `${base}/openai`, apiKey: "recorder", maxRetries: 0, timeout: 10_000 });
await openai.chat.completions.create({ model: form.models[0], messages, ...form });

const sdk = (path) => new OpenRouter({ apiKey: "recorder", serverURL: `${base}${path}`, retryConfig: { strategy: "none" }, timeoutMs: 10_000 });
const { allow_fallbacks, ...provider } = form.provider;
await sdk("/sdk").chat.send({ chatRequest: { ...form, provider: { ...provider, allowFallbacks: allow_fallbacks }, messages } });
await sdk("/sdk-as-body").chat.send({ chatRequest: { ...form, messages } });

console.log(JSON.stringify(Object.values(BYOKProviderSlug)));
