// The page at a phone's width and a desktop's, used with the keyboard
// only: Tab reaches every control in order, Ctrl+Enter in the question
// asks it, the review checkbox sits beside its label, and nothing scrolls
// sideways. Screenshots go to e2e/out/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, OUT, TOKEN, launchChromium } from "./lib.js";

for (const width of [1280, 390]) {
  test(`keyboard only at ${width} px`, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(BASE + "/");
      const order = [];
      for (let i = 0; i < 4; i++) {
        await page.keyboard.press("Tab");
        order.push(await page.evaluate(() => document.activeElement.id || document.activeElement.tagName));
      }
      assert.deepEqual(order, ["question", "SUMMARY", "reviewplan", "go"]);
      const box = await page.locator("#reviewplan").boundingBox();
      const label = await page.locator("label:has(#reviewplan)").boundingBox();
      assert.ok(box.height < label.height + 1 && box.width < 40, `the checkbox is not beside its label: ${JSON.stringify(box)}`);
      if (TOKEN) {
        await page.keyboard.press("Shift+Tab"); // reviewplan
        await page.keyboard.press("Shift+Tab"); // summary
        await page.keyboard.press("Enter"); // opens the token field
        await page.keyboard.press("Tab");
        await page.keyboard.type(TOKEN);
      }
      await page.focus("#question");
      await page.keyboard.type("How are undersea cables repaired?");
      await page.keyboard.press("Control+Enter");
      await page.waitForSelector("#report:not([hidden]) #references li", { timeout: 30000 });
      await page.screenshot({ path: `${OUT}/keyboard-${width}.png`, fullPage: true });
      const wide = await page.evaluate(() => [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => e.tagName + (e.id ? "#" + e.id : "") + " " + (e.textContent || "").slice(0, 60)).slice(0, 5));
      assert.deepEqual(wide, [], "the page scrolls sideways");
    } finally {
      await browser.close();
    }
  });
}
