// Follow-up questions on the page (issue 33), in headless Chromium on the
// shared server (the test corpus, a token): under a finished run's
// report, a follow-up asked from the keyboard that the run's sources
// answer is answered without a search, its citations in the report's
// numbering, each linking to the report's reference and opening the
// source's text with the checked passage marked; a follow-up they do not
// answer is researched, its new source numbered after the report's and
// listed under its answer, its question (with markup in it) shown as
// text. A reload shows the thread again; the runs list marks the
// follow-ups, and a follow-up's own page links to the run it follows. Screenshots at 1280 and 390 px
// go to e2e/out/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { BASE, OUT, askOnPage, authHeaders, launchChromium, sideways } from "./lib.js";

const QUESTION = "How were transatlantic telegraph cables laid and repaired?";
const ANSWERED = "What material insulated the core of the cable?";
const RESEARCHED = "How did the capacity of submarine cables grow in <b>terabits</b> per second?";

// eventTypes returns the types of run id's events, read as NDJSON.
async function eventTypes(id) {
  const res = await fetch(BASE + "/v1/research/" + encodeURIComponent(id) + "/events", {
    headers: { Accept: "application/x-ndjson", ...authHeaders() },
  });
  assert.equal(res.status, 200);
  return (await res.text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l).type);
}

// thread reads the page's thread: each follow-up's run, question (and
// whether its heading holds only text), status, citations (number and
// link) and the sources listed under it.
function thread(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll("#thread li.followup"), (li) => ({
    run: li.dataset.run,
    question: li.querySelector(".fquestion").textContent,
    questionMarkup: li.querySelector(".fquestion").children.length,
    status: li.querySelector(".fstatus").textContent,
    text: li.querySelector(".answer").textContent,
    cites: Array.from(li.querySelectorAll(".answer sup.cite a"), (a) => ({ n: Number(a.closest("sup").dataset.sids), href: a.getAttribute("href") })),
    added: Array.from(li.querySelectorAll(".added li[id]"), (r) => ({ id: r.id, text: r.textContent })),
  })));
}

// answered waits until the thread holds n answered follow-ups.
async function answered(page, n) {
  await page.waitForFunction((n) => {
    const items = document.querySelectorAll("#thread li.followup");
    return items.length === n && Array.from(items).every((li) => /^Answered/.test(li.querySelector(".fstatus").textContent));
  }, n, { timeout: 60000 });
}

test("follow-up questions under the report: the report's numbers, new sources after them, after a reload", async () => {
  const browser = await launchChromium();
  try {
    const { page, problems } = await askOnPage(browser, QUESTION);
    await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15000 });
    const runPath = new URL(page.url()).pathname;
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 60000 });
    await page.waitForSelector("#followups:not([hidden]) #followupform:not([hidden])", { timeout: 15000 });
    const refs = await page.locator("#references > li").evaluateAll((lis) => lis.map((li) => ({ id: li.id, text: li.textContent })));
    const construction = refs.find((r) => r.text.includes("engineering/cable-construction.rst"));
    assert.ok(construction, "the report does not cite the cable's construction: " + JSON.stringify(refs));
    const parentNumbers = new Set(refs.map((r) => Number(r.id.slice(4))));

    // Asked from the keyboard: the label names the field, Enter asks.
    assert.equal(await page.locator("label[for=followupq]").textContent(), "Ask a follow-up");
    await page.focus("#followupq");
    await page.keyboard.type(ANSWERED);
    await page.keyboard.press("Enter");
    await answered(page, 1);
    let [first] = await thread(page);
    assert.equal(first.question, ANSWERED);
    assert.match(first.status, /^Answered: (\d+) of \1 citations supported by their sources\.$/);
    assert.match(first.text, /gutta-percha/, "the answer does not say what insulated the core");
    assert.ok(first.cites.length > 0, "the answer cites nothing");
    for (const c of first.cites) {
      assert.ok(parentNumbers.has(c.n), `the answer cites [${c.n}], which the report does not number`);
      assert.equal(c.href, "#ref-" + c.n, "a citation does not link to the report's reference");
    }
    assert.ok(first.cites.some((c) => "ref-" + c.n === construction.id), "the answer does not cite the construction page by the report's number");
    assert.deepEqual(first.added, [], "an answer from the report's sources lists new sources");
    assert.ok(!(await eventTypes(first.run)).includes("agent.search"), "a follow-up the run's sources answer searched");
    assert.equal(await page.locator("#followupq").inputValue(), "", "the asked question stays in the field");
    assert.equal(await page.locator("#followupstatus").textContent(), first.status, "the form's live status does not say the answer came");

    // Its citation goes to the report's reference and opens the source's
    // text, the passage it was checked against marked.
    const n = Number(construction.id.slice(4));
    await page.locator(`#thread li.followup .answer sup.cite[data-sids="${n}"] a`).first().click();
    await page.waitForSelector("#source:not([hidden]) #sourcetext mark", { timeout: 15000 });
    assert.match(await page.locator("#sourcetitle").textContent(), new RegExp("^\\[" + n + "\\] "));
    const marks = await page.locator("#sourcetext mark").allTextContents();
    assert.ok(marks.some((m) => m.includes("gutta-percha")), "no marked passage holds the answer: " + marks.join(" | ").slice(0, 400));
    assert.equal(new URL(page.url()).hash, "#ref-" + n);
    assert.equal(await page.evaluate(() => document.querySelector("#references li:target").id), "ref-" + n);
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#source").isHidden(), true);

    // A question the run's sources do not answer is researched: its new
    // source is numbered after the report's and listed under the answer.
    await page.fill("#followupq", RESEARCHED);
    await page.click("#followupgo");
    await answered(page, 2);
    let [, second] = await thread(page);
    assert.equal(second.question, RESEARCHED, "the question's markup is not shown as text");
    assert.equal(second.questionMarkup, 0, "the question became markup");
    assert.ok((await eventTypes(second.run)).includes("agent.search"), "the follow-up was not researched");
    const added = second.added.find((r) => r.text.includes("capacity/capacity-growth.html"));
    assert.ok(added, "the new source is not listed under the answer: " + JSON.stringify(second.added));
    const k = Number(added.id.replace(/^.*ref-/, ""));
    assert.ok(second.cites.some((c) => c.n === k && c.href === "#" + added.id), "no citation links to the new source");
    const max = Math.max(...parentNumbers);
    for (const r of second.added) assert.ok(Number(r.id.replace(/^.*ref-/, "")) > max, `the new source ${r.id} is not numbered after the report's`);
    for (const c of second.cites) {
      const own = second.added.find((r) => r.id.endsWith("-ref-" + c.n));
      assert.ok(own ? c.href === "#" + own.id : parentNumbers.has(c.n) && c.href === "#ref-" + c.n, `[${c.n}] links to ${c.href}: neither the report's nor a new source`);
    }
    await page.locator(`#thread li.followup .answer sup.cite[data-sids="${k}"] a`).first().click();
    await page.waitForSelector("#source:not([hidden]) #sourcetext pre", { timeout: 15000 });
    assert.match(await page.locator("#sourcetitle").textContent(), new RegExp("^\\[" + k + "\\] "));
    await page.keyboard.press("Escape");

    mkdirSync(OUT, { recursive: true });
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.evaluate(() => document.getElementById("followups-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "followups-1280.png") });
    await page.screenshot({ path: path.join(OUT, "followups-1280-full.png"), fullPage: true });

    // A reload shows the thread again, the same answers.
    const before = await thread(page);
    await page.reload();
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    await answered(page, 2);
    assert.deepEqual(await thread(page), before, "the thread differs after a reload");

    // At a phone's width nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await sideways(page), [], "the page scrolls sideways at 390 px");
    await page.evaluate(() => document.getElementById("followups-h").scrollIntoView());
    await page.screenshot({ path: path.join(OUT, "followups-390.png") });
    await page.evaluate(() => document.getElementById("followupform").scrollIntoView({ block: "end" }));
    await page.screenshot({ path: path.join(OUT, "followups-390-form.png") });

    // The runs list marks the follow-ups; a follow-up's own page names
    // the run whose thread it is in.
    const listed = page.locator("#runs li", { hasText: ANSWERED });
    assert.match(await listed.locator(".meta").textContent(), /^follow-up · finished/);
    await page.goto(BASE + "/runs/" + encodeURIComponent(first.run));
    await page.waitForFunction(() => document.getElementById("followupof").textContent.includes("“"), null, { timeout: 15000 });
    assert.equal(await page.locator("#followupof a").textContent(), "run “" + QUESTION + "”");
    assert.equal(new URL(await page.locator("#followupof a").evaluate((a) => a.href)).pathname, runPath);
    assert.equal(await page.locator("#followupform").isHidden(), true, "a follow-up's page offers to ask a follow-up of it");

    const api = await fetch(BASE + "/v1/research/" + encodeURIComponent(before[0].run) + "/asks", { headers: authHeaders() });
    const body = await api.json();
    assert.deepEqual(body.follow_ups.map((f) => [f.id, f.status]), before.map((f) => [f.run, "finished"]));
    assert.deepEqual(problems, [], "the page logged errors");
  } finally {
    await browser.close();
  }
});
