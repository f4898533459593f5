// Headless Chromium loads the page, asks a question, watches the agents,
// waits for the report, clicks a citation and saves a screenshot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { OUT, askOnPage, launchChromium } from "./lib.js";

test("the page researches a question and links its citations", async () => {
  const browser = await launchChromium();
  try {
    const { page, problems } = await askOnPage(browser, "How are undersea cables repaired?");
    await page.waitForSelector("#agents li.finished", { timeout: 30000 });
    await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
    // The status line says how many research cycles ran and why the loop ended.
    await page.waitForFunction(() => /^Done: \d+ references, \d+ research cycles? \(the loop ended: [a-z ]+\)\.$/.test(document.getElementById("status").textContent), null, { timeout: 30000 });
    const agents = await page.locator("#agents li").count();
    assert.ok(agents >= 1, "no agent progress was shown");
    const cite = page.locator("#body sup.cite a").first();
    const href = await cite.getAttribute("href");
    assert.match(href, /^#ref-\d+$/);
    await cite.click();
    assert.equal(new URL(page.url()).hash, href);
    const target = page.locator("#references li:target");
    assert.equal(await target.count(), 1);
    assert.equal(await target.getAttribute("id"), href.slice(1));
    // The reference links out only through http, https or file URLs,
    // and to its stored text on this server.
    for (const a of await page.locator("#references a").all()) {
      assert.match(await a.getAttribute("href"), /^((https?|file):|\/v1\/research\/[^/]+\/sources\/\d+$)/);
    }
    mkdirSync(OUT, { recursive: true });
    const shot = path.join(OUT, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    assert.deepEqual(problems, [], "the page logged errors");
    console.log("screenshot: " + shot);
  } finally {
    await browser.close();
  }
});
