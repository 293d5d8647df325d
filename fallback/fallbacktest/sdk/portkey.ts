// The portkey form, passed as the Portkey SDK client's config (the client
// reads PORTKEY_API_KEY itself). The SDK types a config loosely (an
// object or a saved config's id); the documented keys are checked in Go
// (fallbacktest.CheckPortkey).
import Portkey from "portkey-ai";

const config = CONFIG;

export const client = new Portkey({ config });
