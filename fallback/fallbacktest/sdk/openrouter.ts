// The openrouter form, checked by @openrouter/sdk's type of the request
// body as it goes over the wire (snake_case: allow_fallbacks).
import type { ChatRequest$Outbound } from "@openrouter/sdk/models";

const fragment = CONFIG satisfies Partial<ChatRequest$Outbound>;

export const request: ChatRequest$Outbound = { ...fragment, messages: [{ role: "user", content: "ping" }], stream: false };
