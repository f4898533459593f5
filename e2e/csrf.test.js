// Issue 18, #1: a web page the user visits cannot start runs on the
// default server (no token, loopback). Headless Chromium loads a page from
// another loopback port that tries both forms of cross-site fetch — a
// no-cors POST with a Blob body (no preflight, so the browser sends it)
// and a normal one with application/json (preflighted) — against both
// endpoints that start runs; none may start one. The server's own page
// still can (the control).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const BIN = process.env.E2E_BIN;
const CORPUS = process.env.E2E_CORPUS;

// serve starts `deepresearch serve` with no token on a free loopback port
// and returns its URL and a function that stops it.
async function serve(dir) {
  const env = { ...process.env, DEEPRESEARCH_SERVE_TOKEN: "" };
  const proc = spawn(BIN, ["serve", "--addr", "127.0.0.1:0", "--corpus", CORPUS,
    "--index", path.join(dir, "index.db"), "--store", path.join(dir, "runs.db")], { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (b) => {
      out += b;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error("serve exited " + code)));
  });
  const stop = () => new Promise((resolve) => { proc.on("exit", resolve); proc.kill("SIGTERM"); });
  return { url, stop };
}

// attackPage is a page of another origin that tries to start runs.
function attackPage(target) {
  return `<!DOCTYPE html><title>loading</title><script>
(async () => {
  const tries = [
    ["/v1/research", JSON.stringify({ question: "How are undersea cables repaired?" })],
    ["/v1/chat/completions", JSON.stringify({ messages: [{ role: "user", content: "How are undersea cables repaired?" }] })],
  ];
  const results = [];
  for (const base of [${JSON.stringify(target)}, ${JSON.stringify(target.replace("127.0.0.1", "localhost"))}]) {
    for (const [path, body] of tries) {
      try {
        await fetch(base + path, { method: "POST", mode: "no-cors", body: new Blob([body]) });
        results.push("no-cors " + path + ": sent");
      } catch (e) { results.push("no-cors " + path + ": " + e); }
      try {
        await fetch(base + path, { method: "POST", mode: "no-cors", body });
        results.push("no-cors text " + path + ": sent");
      } catch (e) { results.push("no-cors text " + path + ": " + e); }
      try {
        const r = await fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        results.push("cors " + path + ": " + r.status);
      } catch (e) { results.push("cors " + path + ": " + e); }
    }
  }
  window.results = results;
  document.title = "done";
})();
</script>`;
}

test("a page of another origin starts no run on the default server", { skip: !BIN && "E2E_BIN is not set (run.sh sets it)" }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "csrf-"));
  const target = await serve(dir);
  const attacker = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(attackPage(target.url));
  });
  await new Promise((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${attacker.address().port}/`);
    await page.waitForFunction(() => document.title === "done", null, { timeout: 30000 });
    const results = await page.evaluate(() => window.results);
    console.log("the attack page's fetches: " + results.join("; "));
    // The browser sent the no-cors requests; the server must have refused them.
    assert.ok(results.some((r) => r.endsWith(": sent")), "the browser sent no request at all: " + results);

    // The control: the server's own page starts a run.
    await page.goto(target.url + "/");
    const status = await page.evaluate(async () => (await fetch("/v1/research", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question: "How are undersea cables repaired?" }),
    })).status);
    assert.equal(status, 202, "the server's own page could not start a run");
  } finally {
    await browser.close();
    attacker.close();
    await target.stop();
  }
  const runs = JSON.parse(execFileSync(BIN, ["runs", "--json", "--store", path.join(dir, "runs.db")], { encoding: "utf8" }));
  rmSync(dir, { recursive: true, force: true });
  assert.equal(runs.length, 1, "runs started: " + JSON.stringify(runs.map((r) => r.question)));
});
