// Headless Chromium on the live page with a model that asks: the page
// shows the clarifying questions (as text: one has markup in it), the
// person answers one, the page shows the plan for review, the person
// removes a task and accepts, and the report follows the accepted plan.
// The model is a real model's clarifier as a double over the OpenAI wire
// format (e2e/askingmodel); this test starts it and a server of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { OUT, start, stop } from "./lib.js";

test("the live page answers a clarifying question and accepts an edited plan", async () => {
  const bin = process.env.E2E_BIN, asker = process.env.E2E_ASKER, corpus = process.env.E2E_CORPUS;
  assert.ok(bin && asker && corpus, "E2E_BIN, E2E_ASKER and E2E_CORPUS are not set: run the tests with e2e/run.sh");
  const tmp = mkdtempSync(path.join(tmpdir(), "e2e-people-"));
  let model, server, browser;
  try {
    model = await start(asker, [], {}, /askingmodel: listening on (\S+)/);
    server = await start(bin, ["serve", "--addr", "127.0.0.1:0", "--provider", "openai", "--model", "scripted",
      "--base-url", model.url + "/v1", "--corpus", corpus, "--index", path.join(tmp, "index.db"),
      "--store", path.join(tmp, "runs.db"), "--max-cycles", "1"],
    { OPENAI_API_KEY: "test-key", DEEPRESEARCH_SERVE_TOKEN: "" }, /deepresearch: listening on (\S+)/);

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
    const problems = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(server.url + "/");
    await page.fill("#question", "How were undersea cables laid?");
    await page.check("#reviewplan");
    await page.click("#go");

    // The questions, as text.
    await page.waitForSelector("#answers:not([hidden]) #questions li", { timeout: 30000 });
    const labels = await page.locator("#questions label").allTextContents();
    assert.deepEqual(labels, ["Which cables: <b>telegraph</b> or fibre?", "Which ocean?"]);
    assert.equal(await page.locator("#questions b").count(), 0, "a question's markup was rendered");
    assert.equal(await page.locator("#answer1").getAttribute("placeholder"), "the Atlantic");
    await page.fill("#answer0", "fibre, laid since 1988");
    await page.click("#answer");

    // The plan: remove all but the first task, accept.
    await page.waitForSelector("#planreview:not([hidden])", { timeout: 30000 });
    await page.waitForFunction(() => document.getElementById("plan").value.includes("tasks"));
    const plan = JSON.parse(await page.inputValue("#plan"));
    assert.ok(plan.tasks.length >= 1, "the plan has no task");
    const kept = { tasks: [plan.tasks[0], { title: "Cable ships", question: "Which ships lay undersea cables?" }] };
    await page.fill("#plan", JSON.stringify(kept, null, 2));
    await page.click("#accept");

    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 60000 });
    assert.equal(await page.locator("#answers").isHidden(), true);
    assert.equal(await page.locator("#planreview").isHidden(), true);

    // The run, over the API: the answer reached it, and it researched the
    // accepted plan.
    const id = await page.evaluate(() => document.body.dataset.run);
    const events = await (await fetch(`${server.url}/v1/research/${id}/events`, { headers: { Accept: "application/x-ndjson" } })).text();
    const evs = events.trim().split("\n").map((l) => JSON.parse(l));
    const answered = evs.find((e) => e.type === "clarification.answered");
    assert.ok(answered && answered.data.answered, "no clarification.answered event");
    assert.equal(answered.data.questions[0].answer, "fibre, laid since 1988");
    assert.equal(answered.data.questions[1].answer || "", "", "an empty answer keeps the assumption");
    const accepted = evs.find((e) => e.type === "plan.accepted");
    assert.ok(accepted, "no plan.accepted event");
    assert.deepEqual(accepted.data.tasks.map((t) => t.title), [plan.tasks[0].title, "Cable ships"]);
    assert.deepEqual(accepted.data.added, ["Cable ships"]);
    // The planner's prompt holds the answer (the double prints it).
    assert.match(model.out(), /planner: .*→ fibre, laid since 1988/);
    const run = await (await fetch(`${server.url}/v1/research/${id}`)).json();
    assert.equal(run.status, "finished");
    assert.match(run.report, /Cable ships/);

    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, "people.png"), fullPage: true });
    assert.deepEqual(problems, [], "the page logged errors");
  } catch (e) {
    if (server) console.error("--- server log\n" + server.log());
    throw e;
  } finally {
    if (browser) await browser.close();
    await stop(server);
    await stop(model);
    rmSync(tmp, { recursive: true, force: true });
  }
});
