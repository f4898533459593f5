// The research tool's clarifying questions with the official MCP
// TypeScript SDK as the client, against `deepresearch mcp` whose model
// asks (e2e/askingmodel, a real model's clarifier as a double over the
// OpenAI wire format): a client that supports elicitation gets the
// questions as a form and its answers reach the planner's prompt; a client
// that does not gets the questions as the tool's result (the documented
// fallback) and answers them by calling again with "answers".
//
// DEEPRESEARCH_BIN and DEEPRESEARCH_ASKER name the binaries (run.sh
// builds them).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const here = dirname(fileURLToPath(import.meta.url));
const corpus = join(resolve(here, "..", ".."), "testdata", "corpus");
const bin = process.env.DEEPRESEARCH_BIN;
const askerBin = process.env.DEEPRESEARCH_ASKER;
const question = "How were undersea cables laid?";

let asker, modelURL, modelOut = "";
let tmp;

before(async () => {
  assert.ok(bin && askerBin, "DEEPRESEARCH_BIN and DEEPRESEARCH_ASKER must name the built binaries (see run.sh)");
  tmp = mkdtempSync(join(tmpdir(), "deepresearch-elicit-"));
  asker = spawn(askerBin, [], { stdio: ["pipe", "pipe", "inherit"] });
  modelURL = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("askingmodel did not start")), 30000);
    asker.stdout.on("data", (b) => {
      modelOut += b;
      const m = modelOut.match(/askingmodel: listening on (\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    asker.on("exit", (code) => reject(new Error("askingmodel exited " + code)));
  });
});

after(async () => {
  if (asker) {
    asker.removeAllListeners("exit");
    const gone = new Promise((r) => asker.on("exit", r));
    asker.kill("SIGTERM");
    await gone;
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// connect starts `deepresearch mcp` on the asking model, in a home of its
// own, and connects client to it.
async function connect(client, name) {
  const home = join(tmp, name);
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--provider", "openai", "--model", "scripted", "--base-url", modelURL + "/v1",
      "--corpus", corpus, "--index", join(home, "index.db"), "--max-cycles", "1", "--log-level", "warn"],
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config"),
      XDG_CACHE_HOME: join(home, "cache"), XDG_DATA_HOME: join(home, "data"), OPENAI_API_KEY: "test-key" },
    cwd: tmp,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (b) => { stderr += b.toString(); });
  await client.connect(transport);
  return () => stderr;
}

// planned returns the planner messages the model has seen since mark.
function plannedSince(mark) {
  return modelOut.slice(mark).split("\n").filter((l) => l.startsWith("planner: ")).map((l) => JSON.parse(l.slice(9)));
}

test("elicitation: the questions come as a form and the answers reach the planner", async () => {
  const client = new Client({ name: "deepresearch-e2e-elicit", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  const forms = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    forms.push(req.params);
    return { action: "accept", content: { q1: "fibre, laid since 1988" } }; // q2 left to its assumption
  });
  const stderr = await connect(client, "elicit");
  try {
    const mark = modelOut.length;
    const res = await client.callTool({ name: "research", arguments: { question } });
    assert.notEqual(res.isError, true, `research: ${JSON.stringify(res.content)}\n${stderr()}`);
    assert.equal(forms.length, 1, "the client was not asked by elicitation");
    const props = forms[0].requestedSchema.properties;
    assert.deepEqual(Object.keys(props).sort(), ["q1", "q2"]);
    assert.equal(props.q1.title, "Which cables: <b>telegraph</b> or fibre?");
    assert.match(props.q2.description, /otherwise: the Atlantic/);
    const md = res.structuredContent.markdown;
    assert.match(md, /## References/, "no report:\n" + md);
    const planned = plannedSince(mark);
    assert.equal(planned.length, 1, "the planner was called " + planned.length + " times");
    assert.match(planned[0], /Which cables: <b>telegraph<\/b> or fibre\? → fibre, laid since 1988/);
    assert.doesNotMatch(planned[0], /Which ocean\? →/);
  } finally {
    await client.close();
  }
});

test("no elicitation: the questions are the result, and a second call answers them", async () => {
  const client = new Client({ name: "deepresearch-e2e-noelicit", version: "0.0.0" });
  const stderr = await connect(client, "fallback");
  try {
    const first = await client.callTool({ name: "research", arguments: { question } });
    assert.notEqual(first.isError, true, `research: ${JSON.stringify(first.content)}\n${stderr()}`);
    const qs = first.structuredContent.questions;
    assert.deepEqual(qs.map((q) => q.question), ["Which cables: <b>telegraph</b> or fibre?", "Which ocean?"]);
    assert.match(first.content[0].text, /call research again/);
    const mark = modelOut.length;
    const second = await client.callTool({ name: "research", arguments: { question,
      answers: [{ question: qs[0].question, answer: "fibre" }, { question: qs[1].question, answer: "the Pacific" }] } });
    assert.notEqual(second.isError, true, `research: ${JSON.stringify(second.content)}\n${stderr()}`);
    assert.match(second.structuredContent.markdown, /## References/);
    const planned = plannedSince(mark);
    assert.equal(planned.length, 1);
    assert.match(planned[0], /→ fibre/);
    assert.match(planned[0], /Which ocean\? → the Pacific/);
  } finally {
    await client.close();
  }
});
