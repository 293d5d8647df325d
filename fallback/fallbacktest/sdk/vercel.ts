// The vercel form, checked by the AI SDK's generateText and the AI
// Gateway's provider options. GatewayProviderOptions has an open index
// signature (options the Gateway adds before the SDK knows them); Declared
// drops it, so that a misspelled option fails here.
import { generateText } from "ai";
import type { GatewayProviderOptions } from "@ai-sdk/gateway";

type Declared<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

const config = CONFIG satisfies { model: string; providerOptions: { gateway: Declared<GatewayProviderOptions> } };

export function call() {
  return generateText({ model: config.model, prompt: "ping", providerOptions: config.providerOptions });
}
