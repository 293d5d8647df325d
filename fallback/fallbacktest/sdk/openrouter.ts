// The openrouter form, checked by @openrouter/sdk's type of the request
// body as it goes over the wire (snake_case: allow_fallbacks), its
// provider.order held to the SDK's provider slugs (BYOKProviderSlug, less
// its open string: the SDK's own order type takes any string, which would
// let a display name like "Amazon Bedrock" through).
import type { ChatRequest$Outbound } from "@openrouter/sdk/models";
import { BYOKProviderSlug } from "@openrouter/sdk/models";

type Slug = (typeof BYOKProviderSlug)[keyof typeof BYOKProviderSlug];

const fragment = CONFIG satisfies Partial<ChatRequest$Outbound> & { provider: { order: Slug[] } };

export const request: ChatRequest$Outbound = { ...fragment, messages: [{ role: "user", content: "ping" }], stream: false };
