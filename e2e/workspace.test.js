// The page as a research workspace (issue 32), in headless Chromium on a
// server of its own over a corpus holding a PDF (Debian's shared-mime-info
// specification, whose page 4 alone says what a glob's weight is): a run
// asked on the page gets its own URL, which survives a reload; the runs
// list opens it; its header says what was searched; a "[n, p. 4]"
// citation opens the PDF's stored text at page 4 with the passage the
// citation was checked against highlighted. Screenshots at 1280 and 390
// px go to e2e/out/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { OUT, launchChromium, sideways, start, stop, watch } from "./lib.js";

const PDF = "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf";
const QUESTION = "What is the default weight value of a glob rule, and what is the maximum weight?";
const SENTENCE = "The default weight value is 50, and the maximum is 100.";

// openPageCitation clicks the first citation of page 4 and returns the
// source panel's title, part headings and marked passages.
async function openPageCitation(page) {
  const cite = page.locator('#body sup.cite[data-loc="p. 4"] a').first();
  await cite.click();
  await page.waitForSelector("#source:not([hidden]) #sourcetext mark", { timeout: 15000 });
  return page.evaluate(() => ({
    title: document.getElementById("sourcetitle").textContent,
    focused: document.activeElement.id,
    parts: Array.from(document.querySelectorAll("#sourcetext h3"), (h) => h.textContent),
    marks: Array.from(document.querySelectorAll("#sourcetext mark"), (m) => ({ text: m.textContent, part: m.parentElement.previousElementSibling.textContent })),
    markup: document.querySelectorAll("#sourcetext pre *:not(mark)").length,
  }));
}

test("runs list, a run's URL after a reload, and a page citation's source", async () => {
  const bin = process.env.E2E_BIN;
  assert.ok(bin, "E2E_BIN is not set: run the tests with e2e/run.sh");
  assert.ok(existsSync(PDF), PDF + " is missing: apt-get install shared-mime-info (.ci/run does)");
  const tmp = mkdtempSync(path.join(tmpdir(), "e2e-workspace-"));
  const corpus = path.join(tmp, "corpus");
  mkdirSync(corpus);
  copyFileSync(PDF, path.join(corpus, "mime-spec.pdf"));
  let server, browser;
  try {
    server = await start(bin, ["serve", "--addr", "127.0.0.1:0", "--corpus", corpus, "--index", path.join(tmp, "index.db"),
      "--store", path.join(tmp, "runs.db")], { DEEPRESEARCH_SERVE_TOKEN: "" }, /deepresearch: listening on (\S+)/);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems = watch(page);

    // Ask: the address becomes the run's own.
    await page.goto(server.url + "/");
    await page.fill("#question", QUESTION);
    await page.click("#go");
    await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15000 });
    const runURL = page.url();
    const id = decodeURIComponent(runURL.split("/runs/")[1]);
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 60000 });
    await page.waitForFunction(() => /^Run \S+: finished, started .+, [\d,]+ tokens in \d+ model calls\.$/.test(document.getElementById("runmeta").textContent), null, { timeout: 15000 });

    // Reload: the run opens again from its URL, with its header.
    await page.reload();
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    assert.equal(page.url(), runURL);
    assert.equal(await page.locator("#runquestion").textContent(), QUESTION);
    const searched = await page.locator("#searched").textContent();
    assert.ok(searched.includes(corpus), "the header does not name the corpus: " + searched);
    assert.match(searched, /Models.*extractive/, "the header does not name the models");
    assert.match(await page.locator("#verification").textContent(), /^Verification: \d+ of \d+ citations supported/);

    // The runs list holds it; from the empty page it opens the run.
    await page.click("#newrun");
    await page.waitForURL(server.url + "/");
    assert.equal(await page.locator("#report").isHidden(), true);
    const listed = page.locator("#runs a", { hasText: QUESTION });
    assert.equal(await listed.count(), 1, "the runs list does not hold the run");
    assert.match(await page.locator("#runs li .meta").first().textContent(), /^finished · .+ · [\d,]+ tokens, \d+ calls$/);
    await listed.click();
    await page.waitForURL(runURL);
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    assert.equal(await page.locator("#runs li[aria-current] a").textContent(), QUESTION);

    // The citations carry their verdicts; a page citation opens the PDF's
    // text at page 4 with the sentence it was checked against marked.
    const verdicts = await page.locator("#body sup.cite").evaluateAll((s) => s.map((x) => x.dataset.verdict));
    assert.ok(verdicts.length > 0 && verdicts.every((v) => v), "a citation has no verdict: " + verdicts);
    const src = await openPageCitation(page);
    assert.match(src.title, /^\[\d+\] /);
    assert.equal(src.focused, "sourcetitle", "the source's heading does not take the focus");
    assert.ok(src.parts.includes("Page 4"), "no part is page 4: " + src.parts);
    assert.equal(src.markup, 0, "the source's text became markup");
    assert.ok(src.marks.some((m) => m.part === "Page 4" && m.text.includes(SENTENCE)),
      "page 4's sentence is not marked: " + JSON.stringify(src.marks).slice(0, 600));
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, "workspace-1280.png") });
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#source").isHidden(), true, "Escape does not close the source");

    // The source's own page: the passage marked, no script.
    const n = (await page.locator('#body sup.cite[data-loc="p. 4"]').first().getAttribute("data-sids"));
    const res = await fetch(server.url + "/v1/research/" + encodeURIComponent(id) + "/sources/" + n);
    assert.equal(res.status, 200);
    assert.doesNotMatch(res.headers.get("content-security-policy"), /script/);
    const html = await res.text();
    assert.ok(html.includes("<mark id=\"passage-") && html.includes(SENTENCE), "the source's page marks no passage");

    // At a phone's width: the same, nothing scrolls sideways.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const phoneProblems = watch(phone);
    await phone.goto(runURL);
    await phone.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    assert.deepEqual(await sideways(phone), [], "the page scrolls sideways at 390 px");
    await phone.screenshot({ path: path.join(OUT, "workspace-390-report.png"), fullPage: true });
    const psrc = await openPageCitation(phone);
    assert.ok(psrc.marks.some((m) => m.part === "Page 4" && m.text.includes(SENTENCE)), "at 390 px page 4's sentence is not marked");
    await phone.screenshot({ path: path.join(OUT, "workspace-390.png") });
    assert.deepEqual(await sideways(phone), [], "the source scrolls sideways at 390 px");

    assert.deepEqual(problems, [], "the page logged errors");
    assert.deepEqual(phoneProblems, [], "the page logged errors at 390 px");
  } catch (e) {
    if (server) console.error("--- server log\n" + server.log());
    throw e;
  } finally {
    if (browser) await browser.close();
    await stop(server);
    rmSync(tmp, { recursive: true, force: true });
  }
});
