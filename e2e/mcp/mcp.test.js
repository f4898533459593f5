// End-to-end test of `deepresearch mcp` with a client we did not write: the
// official MCP TypeScript SDK spawns the built binary over stdio, lists its
// tools, calls each one and checks the answers.
//
// DEEPRESEARCH_BIN names the binary (run.sh builds it); the research tool
// runs over the repository's test corpus with a fresh index.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const bin = process.env.DEEPRESEARCH_BIN;
const corpus = join(repo, "testdata", "corpus");

let client;
let transport;
let tmp;
let stderr = "";

before(async () => {
  assert.ok(bin, "DEEPRESEARCH_BIN must name the built deepresearch binary (see run.sh)");
  tmp = mkdtempSync(join(tmpdir(), "deepresearch-mcp-"));
  // Only the variables the binary needs: no DEEPRESEARCH_* settings from the
  // caller's environment, a private home and cache.
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: tmp,
    XDG_CONFIG_HOME: join(tmp, "config"),
    XDG_CACHE_HOME: join(tmp, "cache"),
  };
  transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--corpus", corpus, "--index", join(tmp, "index.db"), "--log-level", "warn"],
    env,
    cwd: tmp,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (b) => { stderr += b.toString(); });
  client = new Client({ name: "deepresearch-e2e", version: "0.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// call calls a tool, fails on a tool error, and returns its structured
// content.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}\nserver stderr:\n${stderr}`);
  assert.ok(res.structuredContent, `${name}: no structured content`);
  return res;
}

test("the server identifies itself and lists every tool with a schema", async () => {
  assert.equal(client.getServerVersion()?.name, "deepresearch");
  // The version the binary was built as: a module version, a commit, or dev.
  assert.match(client.getServerVersion()?.version || "", /^(v\d\S*|[0-9a-f]{12}(-dirty)?|dev)$/);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["ask", "citation_add", "citation_create", "citation_export", "citation_list", "citation_merge", "research", "verify"]);
  for (const t of tools) {
    assert.ok(t.description.length > 20, `${t.name}: description`);
    assert.equal(t.inputSchema.type, "object", `${t.name}: input schema`);
    assert.ok(t.outputSchema, `${t.name}: output schema`);
  }
  const add = tools.find((t) => t.name === "citation_add");
  assert.deepEqual([...add.inputSchema.required].sort(), ["index_id", "url"]);
});

test("citation index: stable numbers, merge and export", async () => {
  const a = (await call("citation_create", {})).structuredContent.index_id;
  const b = (await call("citation_create", {})).structuredContent.index_id;
  assert.notEqual(a, b);

  const add = async (id, url, title, source) =>
    (await call("citation_add", { index_id: id, url, title, source })).structuredContent;
  const first = await add(a, "https://arxiv.org/abs/2501.12345v2", "RAG Survey 2026", "arxiv");
  assert.equal(first.citation_number, 1);
  assert.equal(first.new, true);
  assert.equal((await add(a, "https://github.com/user/repo", "rag-toolkit", "github")).citation_number, 2);
  // The same resource under other URL forms: the same number.
  for (const url of [
    "http://www.arxiv.org/abs/2501.12345?utm_source=newsletter",
    "https://arxiv.org/abs/2501.12345v1#intro",
  ]) {
    const again = await add(a, url, "RAG Survey", "arxiv");
    assert.equal(again.citation_number, 1, url);
    assert.equal(again.new, false, url);
  }

  await add(b, "https://example.org/paper", "Another paper", "web");
  await add(b, "https://github.com/user/repo/", "rag-toolkit", "github");
  const merged = (await call("citation_merge", { target_id: a, source_id: b })).structuredContent;
  assert.equal(merged.added, 1);
  assert.deepEqual(merged.renumber, [{ from: 1, to: 3 }, { from: 2, to: 2 }]);

  // The export's line format: "[n] Title — source (URL)".
  const md = (await call("citation_export", { index_id: a })).structuredContent.markdown;
  assert.equal(md,
    "[1] RAG Survey 2026 — arxiv (https://arxiv.org/abs/2501.12345v2)\n" +
    "[2] rag-toolkit — github (https://github.com/user/repo)\n" +
    "[3] Another paper — web (https://example.org/paper)\n");

  const csl = JSON.parse((await call("citation_export", { index_id: a, format: "csl-json" })).structuredContent.csl_json);
  assert.equal(csl.length, 3);
  for (const item of csl) {
    assert.ok(item.id && item.type, "CSL items need id and type");
  }
  const bib = (await call("citation_export", { index_id: a, format: "bibtex" })).structuredContent.bibtex;
  assert.equal(bib.match(/^@misc\{/gm).length, 3);

  // Errors are tool errors, not protocol failures.
  const bad = await client.callTool({ name: "citation_add", arguments: { index_id: a, url: "javascript:alert(1)" } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /malformed URL/);
  const none = await client.callTool({ name: "citation_export", arguments: { index_id: "idx-999" } });
  assert.equal(none.isError, true);
  assert.match(none.content[0].text, /no such citation index/);
});

const sources = [
  { number: 1, title: "The Go Memory Model", url: "https://go.dev/ref/mem",
    text: "Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access." },
  { number: 2, title: "The Go Programming Language Specification", url: "https://go.dev/ref/spec",
    text: "The value of an uninitialized channel is nil." },
  { number: 3, title: "Effective Go", url: "https://go.dev/doc/effective_go" },
  { number: 4, title: "Go memory model (mirror)", url: "https://go.dev/ref/mem?utm_source=feed",
    text: "Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access." },
];

test("verify finds each planted problem on its line", async () => {
  const report = [
    "# Go concurrency",
    "",
    "Programs that modify data accessed by multiple goroutines must serialize such access [1].",
    "Goroutines are preempted every 10 milliseconds [9].",
    "Effective Go says to share memory by communicating [3].",
    "Channels are always buffered and hold exactly 64 values [2].",
    "Data simultaneously accessed by multiple goroutines must be serialized [4].",
    "",
  ].join("\n");
  const res = await call("verify", { text: report, sources, fix: true });
  const out = res.structuredContent;
  assert.equal(out.verdict, "FAIL");
  assert.equal(out.summary.citations, 5);
  assert.equal(out.summary.fabricated, 2);
  assert.equal(out.summary.duplicates, 1);
  const problems = out.problems.map((p) => [p.line, p.kind, p.number]);
  assert.deepEqual(problems, [[4, "no-source", 9], [5, "not-retrieved", 3], [6, "number", 2], [6, "overclaim", undefined], [7, "duplicate", 4]]);
  for (const p of out.problems) assert.ok(p.fix.length > 10, `line ${p.line}: a suggested fix`);
  const supported = out.citations.find((c) => c.line === 3);
  assert.equal(supported.status, "supported");
  assert.equal(sources[0].text.slice(supported.evidence.start, supported.evidence.end), supported.evidence.quote);
  // Removed citations leave a comment saying why; the overclaim is hedged.
  assert.ok(!out.fixed.includes(" [9].") && !out.fixed.includes(" [3].") && out.fixed.includes("[1]"));
  assert.match(out.fixed, /milliseconds<!-- verify: removed \[9\]: no source 9 among the sources -->\./);
  assert.match(out.fixed, /Channels are usually<!-- verify: hedged "always"/);
  assert.match(res.content[0].text, /line 4: error no-source/);

  const ok = (await call("verify", { text: "The value of an uninitialized channel is nil [2].", sources })).structuredContent;
  assert.equal(ok.verdict, "PASS");
});

test("research returns a cited report whose citations all resolve", async () => {
  const res = await call("research", { question: "How are undersea cables repaired?" });
  const rep = res.structuredContent;
  assert.match(rep.markdown, /## References/);
  assert.ok(rep.references.length > 0, "references");
  const cited = [...rep.markdown.matchAll(/\[\[(\d+)\]\]\(/g)].map((m) => Number(m[1]));
  assert.ok(cited.length > 0, "the report cites its sources");
  const numbers = new Set(rep.references.map((r) => r.number));
  for (const n of cited) assert.ok(numbers.has(n), `[${n}] resolves to a reference`);
  for (const r of rep.references) {
    assert.match(r.url, /^file:\/\//);
    assert.ok(r.label, `[${r.number}] has no label`);
  }
  assert.equal(res.content[0].text, rep.markdown);
  // The run is kept: its ID names it; verify takes the report as research gave it.
  assert.match(rep.run_id || "", /^\S+$/, "the result names no run");
  const checked = (await call("verify", { markdown: rep.markdown })).structuredContent;
  assert.ok(checked.summary.citations > 0, "verify found no citation in research's markdown");
});
