// The live page shows each agent's work as it streams (seed 004's cited
// docs): the text of its report (agent.delta) and the sources it cited
// (agent.cited), under each agent. Headless Chromium runs a question; the
// page's agents must then hold exactly what the run's event log says,
// as text: streamed text is untrusted, so it may only ever be text nodes,
// and a cited source links out only through an http, https or file URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, askOnPage, authHeaders, launchChromium } from "./lib.js";

// agentWork reads the run's events (NDJSON) and returns, by agent, the
// text its deltas stream (after any stream.reset) and its last cited list.
async function agentWork(id) {
  const res = await fetch(BASE + "/v1/research/" + encodeURIComponent(id) + "/events", {
    headers: { Accept: "application/x-ndjson", ...authHeaders() },
  });
  assert.equal(res.status, 200);
  const work = new Map();
  const of = (n) => { if (!work.has(n)) work.set(n, { text: "", cited: [] }); return work.get(n); };
  for (const line of (await res.text()).split("\n")) {
    if (!line.trim()) continue;
    const ev = JSON.parse(line);
    const d = ev.data || {};
    if (ev.type === "agent.delta") of(ev.agent).text += d.text || "";
    if (ev.type === "stream.reset" && ev.agent >= 0) of(ev.agent).text = d.text || "";
    if (ev.type === "agent.cited") of(ev.agent).cited = d.sources || [];
  }
  return work;
}

test("the page shows each agent's streamed text and cited sources, as text", async () => {
  const browser = await launchChromium();
  try {
    const { page, problems } = await askOnPage(browser, "How are undersea cables repaired?");
    // While the run goes on, the agents' work appears under them.
    await page.waitForSelector("#agents li .work:not([hidden]) .cited li", { timeout: 30000 });
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    const id = await page.evaluate(() => document.body.dataset.run);
    const want = await agentWork(id);
    assert.ok([...want.values()].some((w) => w.text !== "" && w.cited.length > 0), "no agent streamed text and cited sources");
    const shown = await page.evaluate(() => Array.from(document.querySelectorAll("#agents li[data-agent]"), (li) => ({
      agent: Number(li.dataset.agent),
      text: li.querySelector(".work .text").textContent,
      textElements: li.querySelector(".work .text").childElementCount,
      cited: Array.from(li.querySelectorAll(".work .cited li"), (c) => ({
        value: c.value,
        label: c.textContent,
        elements: Array.from(c.querySelectorAll("*"), (e) => e.tagName + (e.getAttribute("href") ? " " + e.getAttribute("href") : "")),
      })),
    })));
    for (const [agent, w] of want) {
      const s = shown.find((x) => x.agent === agent);
      assert.ok(s, "agent " + agent + " has no row");
      assert.equal(s.text, w.text, "agent " + agent + ": the page's text is not what the agent streamed");
      assert.equal(s.textElements, 0, "agent " + agent + ": streamed text became markup");
      assert.deepEqual(s.cited.map((c) => c.value), w.cited.map((c) => c.number), "agent " + agent + ": cited numbers");
      w.cited.forEach((c, i) => {
        const src = c.source || {};
        assert.equal(s.cited[i].label, src.title || src.url || src.id, "agent " + agent + ": cited source " + c.number);
        for (const e of s.cited[i].elements) assert.match(e, /^A (https?|file):/, "a cited source holds " + e);
      });
    }
    assert.deepEqual(problems, [], "the page logged errors");
  } finally {
    await browser.close();
  }
});
