#!/usr/bin/env node
// Drive the real ghostlight-mcp binary with the official MCP TypeScript SDK (the client most MCP
// hosts are built on), over stdio and over streamable HTTP, through all 24 tools on the
// conformance page, and validate every result with Ajv in draft-07 and in 2020-12 mode.
//
//     node ts_sdk.mjs --server PATH/ghostlight-mcp --base-url http://127.0.0.1:PORT \
//         --config MAIN.toml [--browser chromium|firefox] [--transport stdio|http|both]
//
// The SDK validates each result's structuredContent against the tool's outputSchema itself
// (draft-07 Ajv with ajv-formats) and throws when it does not fit: that is the failure this test
// exists for. On top of it every outputSchema and inputSchema is compiled by Ajv in draft-07 and
// in 2020-12 mode, strict (unknown keywords, positional forms and type confusions are errors),
// every result's structuredContent is validated by both, and every tool's example is validated
// against its inputSchema by both. Refusals and decode errors are validated too: they are
// envelopes like any other.
//
// Prints one JSON report on stdout ({"ok", "runs": [{transport, calls: [...]}], "failed"}) and
// exits 0 only when every check passed.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const ERROR_STATUSES = new Set(["failed", "blocked", "attention_required", "cancelled", "unknown"]);
const TOKEN = "ts-sdk-interop-token-8f3a1c2e9b7d";

/** Calls an engine answers differently, by label: what it cannot do over WebDriver. */
const ENGINE_LIMITS = {
  firefox: { "window zoom": "failed" },
};

class Failure extends Error {}

function check(condition, message) {
  if (!condition) throw new Failure(message);
}

function parseArgs(argv) {
  const args = { browser: "chromium", transport: "both" };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "").replace(/-/g, "_");
    args[key] = argv[i + 1];
  }
  for (const required of ["server", "base_url", "config"]) {
    check(args[required], `--${required.replace(/_/g, "-")} is required`);
  }
  return args;
}

/** Both validators, strict: a keyword either draft does not know is a compile error. */
function validators() {
  const draft07 = new Ajv({ strict: true, allErrors: true });
  const draft2020 = new Ajv2020({ strict: true, allErrors: true });
  addFormats(draft07);
  addFormats(draft2020);
  return { "draft-07": draft07, "2020-12": draft2020 };
}

/** Compile every tool's input and output schema in both drafts; check each example. */
function compileCatalog(tools) {
  const compiled = {};
  for (const [draft, ajv] of Object.entries(validators())) {
    for (const tool of tools) {
      let input;
      let output;
      try {
        input = ajv.compile(tool.inputSchema);
        output = ajv.compile(tool.outputSchema);
      } catch (error) {
        throw new Failure(`${tool.name}: ${draft} cannot compile its schemas: ${error.message}`);
      }
      for (const example of tool.inputSchema.examples ?? []) {
        check(input(example), `${tool.name}: its example fails its inputSchema in ${draft}: ${ajv.errorsText(input.errors)}`);
      }
      compiled[tool.name] ??= {};
      compiled[tool.name][draft] = { output, ajv };
    }
  }
  return compiled;
}

/** Check both renderings of a result and validate its envelope in both drafts. */
function checkResult(name, result, compiled) {
  const envelope = result.structuredContent;
  check(envelope && typeof envelope === "object", `${name}: no structuredContent`);
  check(result.content?.[0]?.type === "text", `${name}: the first block is not text`);
  const text = result.content[0].text;
  const at = text.indexOf("\n\n");
  check(at >= 0, `${name}: no blank line before the JSON in the text block`);
  check(JSON.stringify(JSON.parse(text.slice(at + 2))) === JSON.stringify(envelope), `${name}: the text block's JSON differs`);
  check(text.startsWith(envelope.summary), `${name}: the text does not start with the summary`);
  check(Boolean(result.isError) === ERROR_STATUSES.has(envelope.status), `${name}: isError ${result.isError} for ${envelope.status}`);
  for (const [draft, { output, ajv }] of Object.entries(compiled[name])) {
    check(output(envelope), `${name}: ${draft} refuses the result: ${ajv.errorsText(output.errors)}`);
  }
  return envelope;
}

/** The target in `rows` (with `columns`) whose role and name are these. */
function targetOf(facts, rowsKey, role, name) {
  const rows = facts[rowsKey].map((row) => Object.fromEntries(facts.columns.map((c, i) => [c, row[i]])));
  const found = rows.find((row) => row.role === role && row.name === name);
  check(found, `no ${role} named ${JSON.stringify(name)} among ${JSON.stringify(rows.map((r) => [r.role, r.name]))}`);
  return found.target;
}

/** The HTTP server: the binary on a free loopback port, behind the token; its URL. */
async function startHttpServer(args) {
  const child = spawn(
    args.server,
    ["--transport", "http", "--listen", "127.0.0.1:0", "--config", args.config, "--browser", args.browser],
    { env: { ...process.env, GHOSTLIGHT_MCP_TOKEN: TOKEN, GHOSTLIGHT_MCP_LOG: "info" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const lines = createInterface({ input: child.stderr });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Failure("the HTTP server logged no address in 20 s")), 20_000);
    lines.on("line", (line) => {
      process.stderr.write(`[http server] ${line}\n`);
      const found = line.match(/http:\/\/\S+\/mcp/);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    child.on("exit", (code) => reject(new Failure(`the HTTP server exited (${code}) before serving`)));
  });
  return { child, url };
}

/** One session through all 24 tools; every call recorded in `calls`. */
async function session(client, args, calls) {
  const listed = await client.listTools();
  check(listed.tools.length === 24, `${listed.tools.length} tools listed`);
  const compiled = compileCatalog(listed.tools);

  const call = async (label, name, argumentsObject, expected = "succeeded") => {
    // What an engine cannot do over WebDriver answers `failed` (reason `unsupported`): still an
    // envelope the schemas must accept.
    const expect = ENGINE_LIMITS[args.browser]?.[label] ?? expected;
    calls.push({ call: label, tool: name });
    // The SDK validates structuredContent against the listed outputSchema here and throws on
    // a mismatch.
    const result = await client.callTool({ name, arguments: argumentsObject });
    const envelope = checkResult(name, result, compiled);
    calls[calls.length - 1].status = envelope.status;
    check(
      envelope.status === expect,
      `${label}: expected ${expect}, got ${envelope.status}: ${envelope.summary} ${JSON.stringify(envelope.facts).slice(0, 600)}`,
    );
    calls[calls.length - 1].ok = true;
    return { result, envelope };
  };

  await call("policy_explain", "policy_explain", {});
  const main = `${args.base_url}/conf/main`;
  const { envelope: opened } = await call("navigate", "browser_navigate", { url: main });
  const tab = opened.facts.tab;
  await call("tabs list", "browser_tabs", { action: "list" });
  await call("tabs focus", "browser_tabs", { action: "focus", tab });
  await call("window zoom", "browser_window", { action: "zoom", percent: 100 });
  await call("read", "browser_read", {});
  await call("read visible", "browser_read", { mode: "visible", max_chars: 500 });

  const { envelope: inspected } = await call("inspect", "browser_inspect", {});
  check(inspected.facts.items.length > 0, "inspect returned no items");
  const f = inspected.facts;
  const nameField = targetOf(f, "items", "textbox", "Full name");
  const password = targetOf(f, "items", "textbox", "Password");
  const agree = targetOf(f, "items", "checkbox", "I agree");
  const color = targetOf(f, "items", "combobox", "Color");
  const counter = targetOf(f, "items", "button", "Count clicks");
  const hover = targetOf(f, "items", "button", "Hover target");
  const source = targetOf(f, "items", "button", "Drag source");
  const zone = targetOf(f, "items", "button", "Drop zone");
  const alertButton = targetOf(f, "items", "button", "Show alert");
  const submit = targetOf(f, "items", "button", "Submit form");
  const { envelope: tree } = await call("inspect document", "browser_inspect", { scope: "document", max_depth: 4 });
  check(tree.facts.items.length > 0 && tree.facts.items.every((row) => Number.isInteger(row[3])), "document rows without depths");
  await call("inspect again (diff)", "browser_inspect", { scope: "document", max_depth: 4 });
  await call("inspect structure", "browser_inspect", { scope: "structure", max_items: 5 });

  const { envelope: found } = await call("find", "browser_find", { text: "Submit form" });
  check(found.facts.matches.length > 0, "find matched nothing");
  await call("find text", "browser_find", { text: "conformance page", scope: "text" });

  const { result: shot, envelope: shotEnvelope } = await call("screenshot", "browser_screenshot", {});
  check(shot.content.filter((b) => b.type === "image").length === 1, "no image block");
  const view = shotEnvelope.facts.view;
  await call("screenshot region", "browser_screenshot", { view, x: 0, y: 0, width: 100, height: 80 });
  await call("click by view", "browser_click", { view, x: 5, y: 5 });
  await call("click", "browser_click", { target: counter });
  await call("hover", "browser_hover", { target: hover });
  await call("scroll", "browser_scroll", {});
  await call("scroll reveal", "browser_scroll", { target: submit });
  await call("fill_form", "browser_fill_form", {
    fields: [
      { target: nameField, value: "Ada" },
      { target: agree, value: true },
      { target: color, value: "Green" },
      { selector: { name: "Count" }, value: 3 },
    ],
  });
  await call("fill a password (handoff)", "browser_fill_form", { fields: [{ target: password, value: "x" }] }, "attention_required");
  await call("type_text", "browser_type_text", { target: nameField, text: "Lovelace", clear_first: true });
  await call("press_key", "browser_press_key", { key: "Tab" });
  await call("press_key strokes", "browser_press_key", { strokes: ["ArrowDown", "ArrowUp"], repeat: 2 });
  await call("drag", "browser_drag", { source_target: source, destination_target: zone });
  await call("wait text", "browser_wait", { condition: "text_present", value: "dropped on zone" });
  await call("wait duration", "browser_wait", { condition: "duration", value: 100 });
  await call("wait timeout", "browser_wait", { condition: "text_present", value: "never on this page", timeout_ms: 300 }, "failed");

  await call("dialog status", "browser_dialog", { action: "status" });
  await call("click alert", "browser_click", { target: alertButton });
  await call("dialog accept", "browser_dialog", { action: "accept" });

  await call("upload", "browser_upload", { selector: { name: "Attachment" }, files: [{ name: "a.txt", data_base64: "aGVsbG8=" }] });
  await call("execute", "browser_execute", { script: "({title: document.title, n: 1, list: [1, 'a', null]})" });
  await call("execute error", "browser_execute", { script: "throw new TypeError('no')" }, "unknown");
  await call("sequence", "browser_sequence", {
    steps: [
      { action: "click", target: counter },
      { action: "wait", condition: "load_ready" },
    ],
  });
  await call("flow", "browser_flow", {
    steps: [
      { id: "look", tool: "browser_find", arguments: { text: "Count clicks" } },
      { id: "press", tool: "browser_click", arguments: { target: { flow_ref: { step: "look", pointer: "/facts/matches/0/0" } } } },
    ],
  });
  await call("flow dry run", "browser_flow", { dry_run: true, steps: [{ id: "r", tool: "browser_read" }] });

  await call("record start", "browser_record", { action: "start" });
  await call("record status", "browser_record", { action: "status" });
  await call("click while recording", "browser_click", { target: counter });
  const { result: saved } = await call("record save", "browser_record", { action: "save" });
  check(saved.content.some((b) => b.type === "image" && b.mimeType === "image/gif"), "no GIF block");
  await call("record discard", "browser_record", { action: "discard" });

  await call("diagnose", "browser_diagnose", {});
  await call("diagnose all", "browser_diagnose", { detail: "all", limit: 5 });
  await call("history reload", "browser_history", { action: "reload" });
  await call("navigate hello", "browser_navigate", { url: `${args.base_url}/hello` });
  await call("history back", "browser_history", { action: "back" });
  await call("window resize", "browser_window", { action: "resize", width: 1024, height: 768 });

  // Refusals and failures are envelopes too, and must fit the same schemas.
  await call("stale target", "browser_click", { target: counter }, "failed");
  await call("ambiguous selector", "browser_click", { selector: { name: "Show" } }, "failed");
  await call("restricted", "browser_read", { restrict_capabilities: [] }, "blocked");
  await call("decode error", "browser_navigate", { url: "ftp://example.com" }, "failed");
  await call("denied host", "browser_navigate", { url: "http://127.0.0.2:9/" }, "blocked");
  await call("tabs close", "browser_tabs", { action: "close", tab });
  await call("read without a tab", "browser_read", {}, "failed");

  let unknown = null;
  try {
    await client.callTool({ name: "browser_teleport", arguments: {} });
  } catch (error) {
    unknown = error;
  }
  check(unknown && unknown.code === -32602, `an unknown tool is not a -32602 protocol error: ${unknown}`);
  calls.push({ call: "unknown tool", ok: true });
}

async function run(args, transport) {
  const calls = [];
  const client = new Client({ name: "ghostlight-ts-sdk-test", version: "1.0.0" });
  let server = null;
  try {
    if (transport === "stdio") {
      await client.connect(
        new StdioClientTransport({
          command: args.server,
          args: ["--config", args.config, "--browser", args.browser],
          env: { ...process.env, GHOSTLIGHT_MCP_LOG: "info" },
          stderr: "inherit",
        }),
      );
    } else {
      server = await startHttpServer(args);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
    }
    check(client.getServerVersion()?.name === "ghostlight-mcp", "the server is not ghostlight-mcp");
    await session(client, args, calls);
    return { transport, browser: args.browser, calls };
  } catch (error) {
    error.calls = calls;
    error.transport = transport;
    throw error;
  } finally {
    await client.close().catch(() => {});
    if (server) server.child.kill("SIGTERM");
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const transports = args.transport === "both" ? ["stdio", "http"] : [args.transport];
  const report = { ok: false, runs: [] };
  try {
    for (const transport of transports) {
      report.runs.push(await run(args, transport));
    }
    report.ok = true;
  } catch (error) {
    const last = error.calls?.[error.calls.length - 1];
    report.failed = { transport: error.transport, call: last?.call ?? null, message: `${error.name}: ${error.message}` };
    if (error.calls) report.runs.push({ transport: error.transport, browser: args.browser, calls: error.calls });
  }
  process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
  process.exit(report.ok ? 0 : 1);
}

const deadline = setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ ok: false, failed: { message: "timed out after 300 s" } })}\n`);
  process.exit(1);
}, 300_000);
deadline.unref();
await main();
