// Shared by the end-to-end tests: where the server is (run.sh starts it)
// and how to talk to it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chromium } from "playwright-core";

export const BASE = process.env.E2E_URL;
export const TOKEN = process.env.E2E_TOKEN || "";
export const OUT = process.env.E2E_OUT || new URL("./out/", import.meta.url).pathname;
assert.ok(BASE, "E2E_URL is not set: run the tests with e2e/run.sh");

export function authHeaders() {
  return TOKEN ? { Authorization: "Bearer " + TOKEN } : {};
}

export async function api(method, path, body) {
  const res = await fetch(BASE + path, {
    method,
    headers: { "Content-Type": "application/json", ...authHeaders() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

// checkReport asserts the product's promise on a markdown report: it has
// citations, and every citation number is in its reference list.
export function checkReport(md) {
  const [body, refs] = md.split("\n## References\n");
  assert.ok(refs, "the report has no reference list:\n" + md);
  const cited = new Set([...body.matchAll(/\[\[(\d+)\]\]\(/g)].map((m) => Number(m[1])));
  assert.ok(cited.size > 0, "the report cites nothing:\n" + md);
  const listed = new Set([...refs.matchAll(/^(?:- |\d+\. )?\[?(\d+)\]?[.:\s]/gm)].map((m) => Number(m[1])));
  for (const n of cited) assert.ok(listed.has(n), `citation [${n}] has no reference:\n${refs}`);
}

// launchChromium starts headless Chromium (Debian's, or CHROMIUM).
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// watch collects a page's console errors, uncaught errors and dialogs
// (which it dismisses).
export function watch(page) {
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("dialog", (d) => { problems.push("a dialog opened: " + d.message()); d.dismiss(); });
  return problems;
}

// sideways lists the elements of a page wider than its window.
export function sideways(page) {
  return page.evaluate(() => [...document.querySelectorAll("body *")]
    .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().right > window.innerWidth + 1)
    .map((e) => e.tagName + (e.id ? "#" + e.id : "") + " " + (e.textContent || "").slice(0, 60)).slice(0, 5));
}

// askOnPage opens the server's page in browser, gives it the token and
// asks question; problems collects the page's console errors, uncaught
// errors and any dialog (which it dismisses).
export async function askOnPage(browser, question) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  const problems = watch(page);
  await page.goto(BASE + "/");
  if (TOKEN) {
    await page.click("details summary");
    await page.fill("#token", TOKEN);
  }
  await page.fill("#question", question);
  await page.click("#go");
  return { page, problems };
}

// start runs a program and resolves with it and the URL it says it
// listens on (the first stdout line matching re).
export function start(bin, args, env, re) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "", err = "";
    const timer = setTimeout(() => { proc.kill(); reject(new Error(`${bin} did not start:\n${err}`)); }, 30000);
    proc.stderr.on("data", (b) => { err += b; });
    proc.stdout.on("data", (b) => {
      out += b;
      const m = out.match(re);
      if (m) { clearTimeout(timer); resolve({ proc, url: m[1].trim(), log: () => err, out: () => out }); }
    });
    proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`${bin} exited ${code}:\n${err}`)); });
  });
}

export function stop(p) {
  if (!p) return Promise.resolve();
  return new Promise((resolve) => {
    p.proc.removeAllListeners("exit");
    p.proc.on("exit", resolve);
    p.proc.kill("SIGTERM");
  });
}
