// What changed, and whether a report still holds, on the page (issue
// 33), in headless Chromium on a server of its own over the web double
// (e2e/webdouble: a SearXNG API and three pages about repairing submarine
// cables): a question (with markup in it) is run, a cited page
// changes, the same question is run again; under the second run's report
// "Compare with…" offers the first (the same question, first) and shows
// the page that changed. Then a page is removed, and "Re-check sources"
// under the first run's report reads its pages again: each citation
// unchanged, changed or gone, the claims that lost their support, and
// that the report no longer holds; the run keeps the re-check, and after
// a reload its status says so. The question's markup stays text. Screenshots
// at 1280 and 390 px go to e2e/out/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BASE, OUT, askOnPage, authHeaders, launchChromium, sideways, start, stop, watch } from "./lib.js";

// QUESTION has markup in it, which the page must show as text.
const QUESTION = "How does a repair ship fix a submarine cable: grapnel, spare cable tanks and <b>repair costs</b>?";

// runOnPage asks QUESTION on the page and returns the run's ID once its
// report is shown.
async function runOnPage(page, base) {
  await page.goto(base + "/");
  await page.fill("#question", QUESTION);
  await page.click("#go");
  await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15000 });
  await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 60000 });
  await page.waitForSelector("#checks:not([hidden])", { timeout: 15000 });
  return decodeURIComponent(page.url().split("/runs/")[1]);
}

// control changes the web double's pages.
async function control(url, what) {
  const res = await fetch(url + what.path, { method: "POST", body: what.body || "" });
  assert.equal(res.status, 204, what.path + ": " + await res.text());
}

test("compare two runs and re-check a report's sources on the page", async () => {
  const bin = process.env.E2E_BIN, double = process.env.E2E_WEBDOUBLE;
  assert.ok(bin && double, "E2E_BIN or E2E_WEBDOUBLE is not set: run the tests with e2e/run.sh");
  const tmp = mkdtempSync(path.join(tmpdir(), "e2e-compare-"));
  let web, server, browser;
  try {
    web = await start(double, [], {}, /webdouble: control on (\S+)/);
    const webURL = /webdouble: web on (\S+)/.exec(web.out())[1];
    server = await start(bin, ["serve", "--addr", "127.0.0.1:0", "--index", path.join(tmp, "index.db"), "--store", path.join(tmp, "runs.db")], {
      DEEPRESEARCH_SERVE_TOKEN: "", SEARXNG_URL: webURL, DEEPRESEARCH_SEARCH_PROVIDERS: "searxng",
      DEEPRESEARCH_FETCH_ALLOW: new URL(webURL).host, DEEPRESEARCH_RESEARCH_MAX_CYCLES: "1",
    }, /deepresearch: listening on (\S+)/);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems = watch(page);

    const first = await runOnPage(page, server.url);
    const cited = await page.locator("#references > li a[href^='http']").evaluateAll((as) => as.map((a) => a.href));
    for (const p of ["/pages/grapnels", "/pages/tanks", "/pages/costs"]) {
      assert.ok(cited.some((u) => u.endsWith(p)), "the first report does not cite " + p + ": " + cited.join(" | "));
    }
    // There is no other finished run yet.
    await page.waitForSelector("#comparenone:not([hidden])", { timeout: 15000 });
    assert.equal(await page.locator("#compareform").isHidden(), true);

    // A cited page changes; the same question again.
    await control(web.url, { path: "/update/tanks", body: "A repair ship carries its spare cable in containers on deck, not in tanks." });
    const second = await runOnPage(page, server.url);
    assert.notEqual(second, first);

    // Compare with…: the first run, under "The same question", chosen
    // first.
    await page.waitForSelector("#compareform:not([hidden])", { timeout: 15000 });
    assert.equal(await page.locator("label[for=compareto]").textContent(), "Compare with…");
    const groups = await page.locator("#compareto optgroup").evaluateAll((gs) => gs.map((g) => ({ label: g.label, runs: Array.from(g.querySelectorAll("option"), (o) => o.value) })));
    assert.deepEqual(groups, [{ label: "The same question", runs: [first] }]);
    assert.equal(await page.locator("#compareto").inputValue(), first);
    await page.click("#comparego");
    await page.waitForFunction(() => document.getElementById("checksstatus").textContent === "Compared with the other run.", null, { timeout: 15000 });
    const diff = await page.evaluate(() => ({
      heading: document.querySelector("#diff h3").textContent,
      headingMarkup: document.querySelector("#diff h3").children.length,
      options: Array.from(document.querySelectorAll("#compareto option"), (o) => o.textContent),
      summary: document.querySelector("#diff .summary").textContent,
      direction: document.querySelector("#diff .direction").textContent,
      changed: Array.from(document.querySelectorAll("#diff ul.changed li"), (li) => li.textContent),
      claims: Array.from(document.querySelectorAll("#diff ul.claims li"), (li) => li.textContent),
      markup: document.querySelectorAll("#diff li *:not(a):not(q)").length,
    }));
    assert.equal(diff.heading, "Compared with “" + QUESTION + "”");
    assert.equal(diff.headingMarkup, 0, "the question became markup");
    assert.ok(diff.options[0].startsWith(QUESTION + " — "), "the run to compare with is not named by its question: " + diff.options[0]);
    assert.match(diff.summary, /^Sources: \d+ added, \d+ dropped, 1 changed, \d+ the same\./);
    assert.equal(diff.direction, "What changed from the earlier run to this one:");
    assert.equal(diff.changed.length, 1);
    assert.ok(diff.summary.includes(" " + diff.claims.length + (diff.claims.length === 1 ? " claim " : " claims ")), diff.summary);
    assert.match(diff.changed[0], /^\[\d+→\d+\] Cable tanks \(http:\/\/127\.0\.0\.1:\d+\/pages\/tanks\)$/);
    assert.equal(diff.markup, 0, "a diffed source became markup");
    // The page shows what the API says.
    const api = await (await fetch(server.url + "/v1/research/" + first + "/diff/" + second)).json();
    assert.equal(api.sources.changed.length, 1);
    assert.deepEqual(diff.claims.map((c) => c.replace(/^“(.*)” — .*$/, "$1")), api.claims.map((c) => c.sentence));
    assert.ok(api.sources.changed[0].url.endsWith("/pages/tanks"));
    mkdirSync(OUT, { recursive: true });
    await page.evaluate(() => document.getElementById("checks-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "compare-1280.png") });

    // A page goes; the first run's sources re-checked.
    await control(web.url, { path: "/remove/costs?status=410" });
    await page.goto(server.url + "/runs/" + encodeURIComponent(first));
    await page.waitForSelector("#checks:not([hidden])", { timeout: 30000 });
    assert.equal(await page.locator("#recheckstate").isHidden(), true, "a run never re-checked has a re-check status");
    await page.click("#recheckgo");
    await page.waitForFunction(() => /^Re-checked/.test(document.getElementById("checksstatus").textContent), null, { timeout: 30000 });
    const rc = await page.evaluate(() => ({
      verdict: document.querySelector("#recheck .verdict").textContent,
      sources: Object.fromEntries(Array.from(document.querySelectorAll("#recheck ul.rechecked > li"), (li) => [li.querySelector("a").textContent, li.dataset.status])),
      gone: Array.from(document.querySelectorAll("#recheck ul.rechecked > li[data-status=gone]"), (li) => li.textContent),
      passages: Array.from(document.querySelectorAll("#recheck .passages q"), (q) => q.textContent),
      claims: Array.from(document.querySelectorAll("#recheck ul.claims q"), (q) => q.textContent),
      markup: document.querySelectorAll("#recheck li *:not(a):not(q):not(span):not(ul):not(li)").length,
      state: document.getElementById("recheckstate").textContent,
    }));
    assert.match(rc.verdict, /^The report no longer holds: [1-9]\d* claims? lost support\.$/);
    const byPage = {};
    for (const [label, status] of Object.entries(rc.sources)) byPage[label.replace(/^.*\/pages\//, "").replace(/\)$/, "")] = status;
    assert.deepEqual(byPage, { grapnels: "unchanged", tanks: "changed", costs: "gone" }, JSON.stringify(rc.sources));
    assert.ok(rc.gone[0].includes("410 Gone"), rc.gone[0]);
    assert.ok(rc.passages.some((p) => p.includes("circular tanks")), "the passage that went is not shown: " + rc.passages);
    assert.ok(rc.claims.length > 0 && rc.claims.every((c) => !c.includes("grapnel")), "the flagged claims: " + rc.claims);
    assert.equal(rc.markup, 0, "a re-checked source became markup");
    assert.match(rc.state, /^Sources re-checked .+: no longer holds: [1-9]\d* claims? lost support\.$/);
    await page.evaluate(() => document.getElementById("checks-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "recheck-1280.png") });

    // The run keeps its re-check: after a reload the status says it.
    await page.reload();
    await page.waitForSelector("#recheckstate:not([hidden])", { timeout: 30000 });
    assert.equal(await page.locator("#recheckstate").textContent(), rc.state);
    const run = await (await fetch(server.url + "/v1/research/" + first)).json();
    assert.equal(run.recheck.holds, false);
    assert.equal(run.recheck.claims.length, rc.claims.length);

    // At a phone's width nothing scrolls sideways.
    await page.click("#recheckgo");
    await page.waitForFunction(() => /^Re-checked/.test(document.getElementById("checksstatus").textContent), null, { timeout: 30000 });
    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await sideways(page), [], "the page scrolls sideways at 390 px");
    await page.evaluate(() => document.getElementById("checks-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "recheck-390.png") });
    await page.goto(server.url + "/runs/" + encodeURIComponent(second));
    await page.waitForSelector("#checks:not([hidden]) #compareform:not([hidden])", { timeout: 30000 });
    await page.click("#comparego");
    await page.waitForSelector("#diff ul.changed li", { timeout: 15000 });
    assert.deepEqual(await sideways(page), [], "the page scrolls sideways at 390 px with a diff");
    await page.evaluate(() => document.getElementById("checks-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "compare-390.png") });
    assert.deepEqual(problems, [], "the page logged errors");
  } finally {
    if (browser) await browser.close();
    await stop(server);
    await stop(web);
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("re-check of a report that cites no web page: nothing to re-check, no status kept", async () => {
  const browser = await launchChromium();
  try {
    const { page, problems } = await askOnPage(browser, "How were transatlantic telegraph cables laid and repaired?");
    await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15000 });
    await page.waitForSelector("#checks:not([hidden])", { timeout: 60000 });
    await page.click("#recheckgo");
    await page.waitForFunction(() => /^Re-checked/.test(document.getElementById("checksstatus").textContent), null, { timeout: 30000 });
    assert.equal(await page.locator("#checksstatus").textContent(), "Re-checked: the report cites no web page.");
    assert.equal(await page.locator("#recheck .verdict").textContent(), "Nothing to re-check: the report cites no web page.");
    assert.equal(await page.locator("#recheckstate").isHidden(), true);
    const id = decodeURIComponent(page.url().split("/runs/")[1]);
    const run = await (await fetch(BASE + "/v1/research/" + encodeURIComponent(id), { headers: authHeaders() })).json();
    assert.equal(run.recheck, undefined, "a re-check that read no web page was kept");
    assert.deepEqual(problems, [], "the page logged errors");
  } finally {
    await browser.close();
  }
});
