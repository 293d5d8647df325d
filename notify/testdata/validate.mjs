// Validates chat messages aistatus renders with each chat service's own
// library, as TestChatLibraries (notify/chat_test.go) runs it:
//
//   node validate.mjs NODE_MODULES FILE...
//
// NODE_MODULES holds the packages pinned by .ci/chat; each FILE is a
// message body whose kind is its name's first part (slack.json,
// discord.flood.json, teams-example.json). One line per file: "ok FILE", or "FAIL FILE: why"
// with every reason found. The exit status is 0 once every file is judged,
// whatever the verdicts; anything else is a failure of the script.
//
// - Teams (Workflows): the card is parsed by the Adaptive Cards SDK
//   (adaptivecards), for the card's own version; any parse or validation
//   event fails it, as does a property the SDK drops when it serializes
//   the card back (one it does not know). The envelope is the message
//   with one attachment of contentType application/vnd.microsoft.card.
//   adaptive, at most 28 KB (testdata/README.md).
// - Discord: the body is compiled against discord-api-types'
//   RESTPostAPIWebhookWithTokenJSONBody (Execute Webhook's JSON params);
//   each embed is rebuilt with @discordjs/builders' EmbedBuilder, whose
//   setters validate each field (shapeshift), and the embeds' total
//   measured with its embedLength (at most 6000); content at most 2000.
// - Slack: the blocks are compiled against @slack/types' KnownBlock, and
//   held to Block Kit's documented limits (at most 50 blocks; a section's
//   text 1 to 3000 characters, its fields up to 10 of up to 2000; a
//   header's plain_text up to 150; a block_id up to 255) and the webhook's
//   text fallback present.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
  console.error("usage: node validate.mjs NODE_MODULES FILE...");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
// The package's main (lib/) is ES modules with extensionless imports,
// which Node does not resolve; dist/ is the same code as one UMD bundle.
// Parsing and validating need no DOM: only rendering does.
const AC = require("adaptivecards/dist/adaptivecards.js");
const { EmbedBuilder, embedLength } = require("@discordjs/builders");
const ts = require("typescript");

// chars counts what Block Kit's limits count: characters, not UTF-16
// units.
const chars = (s) => [...(s ?? "")].length;

// firstDiff is where JSON values a and b first differ ("card.body[2].
// inlines[0].colour: "red" → undefined"), "" where they do not.
function firstDiff(a, b, at) {
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDiff(a[k], b[k], Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`);
      if (d) return d;
    }
    return "";
  }
  return a === b ? "" : `${at}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`;
}

function checkTeams(body, raw) {
  const errs = [];
  if (Buffer.byteLength(raw) > 28 << 10) errs.push(`${Buffer.byteLength(raw)} bytes, over 28 KB`);
  const atts = body.attachments ?? [];
  if (body.type !== "message" || atts.length !== 1) {
    errs.push(`type ${body.type} with ${atts.length} attachments, want a message with one`);
  }
  for (const att of atts) {
    if (att.contentType !== "application/vnd.microsoft.card.adaptive") errs.push(`contentType ${att.contentType}`);
    const version = AC.Version.parse(att.content?.version, new AC.SerializationContext());
    if (!version?.isValid) {
      errs.push(`card version ${att.content?.version}`);
      continue;
    }
    const ctx = new AC.SerializationContext(version);
    const card = new AC.AdaptiveCard();
    card.parse(att.content, ctx);
    for (let i = 0; i < ctx.eventCount; i++) errs.push(`parse: ${ctx.getEventAt(i).message}`);
    for (const e of card.validateProperties().validationEvents) errs.push(`validate: ${e.message}`);
    const diff = firstDiff(att.content, card.toJSON(new AC.SerializationContext(version)), "card");
    if (diff) errs.push(`the SDK serializes the card back otherwise (a property it does not know?): ${diff}`);
  }
  return errs;
}

// why is a shapeshift error in short: its constraints' messages and
// expectations ("Invalid string length (expected.length <= 256)"), the
// alternatives of a nullable value left out.
function why(err) {
  const parts = (err.errors ?? [err])
    .filter((e) => e.constraint)
    .map((e) => (e.expected ? `${e.message} (${e.expected})` : e.message));
  return parts.join(", ") || String(err.message ?? err);
}

function checkDiscord(body) {
  const errs = [];
  if ((body.content ?? "").length > 2000) errs.push(`content of ${body.content.length} characters, over 2000`);
  const embeds = body.embeds ?? [];
  if (embeds.length > 10) errs.push(`${embeds.length} embeds, over 10`);
  let total = 0;
  for (const [i, e] of embeds.entries()) {
    const b = new EmbedBuilder();
    const setters = { title: "setTitle", description: "setDescription", url: "setURL", color: "setColor" };
    for (const [k, v] of Object.entries(e)) {
      if (!setters[k]) {
        errs.push(`embed ${i}: ${k} is not checked here`);
        continue;
      }
      try {
        b[setters[k]](v);
      } catch (err) {
        errs.push(`embed ${i}: ${k}: ${why(err)}`);
      }
    }
    total += embedLength(b.toJSON());
  }
  if (total > 6000) errs.push(`embeds of ${total} characters, over 6000`);
  return errs;
}

function checkSlack(body) {
  const errs = [];
  const blocks = body.blocks ?? [];
  if (!body.text) errs.push("no text fallback");
  if (blocks.length === 0 || blocks.length > 50) errs.push(`${blocks.length} blocks, want 1 to 50`);
  for (const [i, b] of blocks.entries()) {
    if (chars(b.block_id) > 255) errs.push(`block ${i}: block_id over 255 characters`);
    if (b.type === "section") {
      if (b.text && (chars(b.text.text) < 1 || chars(b.text.text) > 3000)) {
        errs.push(`block ${i}: section text of ${chars(b.text.text)} characters, want 1 to 3000`);
      }
      if ((b.fields ?? []).length > 10 || (b.fields ?? []).some((f) => chars(f.text) > 2000)) {
        errs.push(`block ${i}: over 10 fields, or one over 2000 characters`);
      }
    }
    if (b.type === "header" && (b.text?.type !== "plain_text" || chars(b.text.text) > 150)) {
      errs.push(`block ${i}: a header's text is plain_text of up to 150 characters`);
    }
  }
  return errs;
}

// The TypeScript check: each Slack and Discord body, as an object literal
// of its library's type, compiled in one program of in-memory files
// beside NODE_MODULES (so that the packages resolve from them); excess
// property checks make an unknown field an error, as a wrong type is.
const programs = {
  slack: (json) => `import type { KnownBlock } from "@slack/types";
// IncomingWebhookSendArguments (@slack/webhook): text, and Block Kit blocks.
export const body: { text: string; blocks: KnownBlock[] } = ${json};\n`,
  discord: (json) => `import type { RESTPostAPIWebhookWithTokenJSONBody } from "discord-api-types/v10";
export const body: RESTPostAPIWebhookWithTokenJSONBody = ${json};\n`,
};

function typeCheck(sources) {
  const errs = new Map();
  if (sources.size === 0) return errs;
  const options = {
    strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ["lib.es2022.d.ts"],
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, lang, ...rest) =>
    sources.has(f) ? ts.createSourceFile(f, sources.get(f).source, lang) : getSourceFile.call(host, f, lang, ...rest);
  host.fileExists = (f) => sources.has(f) || fileExists.call(host, f);
  host.readFile = (f) => (sources.has(f) ? sources.get(f).source : readFile.call(host, f));
  const program = ts.createProgram([...sources.keys()], options, host);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    const file = d.file && sources.get(d.file.fileName)?.file;
    if (!file) throw new Error(`TypeScript: ${text}`);
    if (!errs.has(file)) errs.set(file, []);
    errs.get(file).push(`${sources.get(d.file.fileName).lib}: ${text}`);
  }
  return errs;
}

const checks = { teams: checkTeams, discord: checkDiscord, slack: checkSlack };
const verdicts = new Map();
const sources = new Map();
for (const [i, file] of files.entries()) {
  const kind = path.basename(file).split(/[.-]/)[0];
  const raw = readFileSync(file, "utf8");
  let body;
  try {
    body = JSON.parse(raw);
  } catch (err) {
    verdicts.set(file, [`not JSON: ${err.message}`]);
    continue;
  }
  if (!checks[kind]) {
    verdicts.set(file, [`no check for kind ${kind}`]);
    continue;
  }
  verdicts.set(file, checks[kind](body, raw));
  if (programs[kind]) {
    const lib = kind === "slack" ? "@slack/types" : "discord-api-types";
    sources.set(path.join(path.dirname(path.resolve(modules)), `aistatus-check-${i}.ts`),
      { file, lib, source: programs[kind](JSON.stringify(body, null, 1)) });
  }
}
for (const [file, errs] of typeCheck(sources)) verdicts.get(file).push(...errs);
for (const [file, errs] of verdicts) {
  console.log(errs.length === 0 ? `ok ${file}` : `FAIL ${file}: ${errs.join("; ")}`);
}
