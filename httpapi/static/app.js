// The deepresearch page: start a run, follow its events with EventSource,
// then show the report; list the store's runs, each at its own URL
// (/runs/ID), which opens the run again (its events replayed, then its
// report); open a cited source's text read. Everything from the server
// (titles, URLs, agent names, sources' texts) is untrusted: it is put in
// the page only as text nodes, and only http, https and file URLs become
// links. The report itself is the server's HTML report fragment, which
// the same renderer as --format html escapes; the page still keeps only
// its known elements and attributes (cleanFragment).
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function linkable(raw) {
  if (typeof raw !== "string" || raw === "" || /[\u0000-\u0020\u007f]/.test(raw)) return false;
  let u;
  try { u = new URL(raw); } catch { return false; }
  if (u.protocol === "http:" || u.protocol === "https:") return u.host !== "";
  return u.protocol === "file:" && u.pathname !== "";
}

// sourceLabel is a source's label as a node: a link when its URL is one a
// reader may follow, else text.
function sourceLabel(label, url) {
  if (!linkable(url)) return document.createTextNode(label);
  const a = el("a", label);
  a.href = url;
  a.rel = "noopener noreferrer";
  return a;
}

function setStatus(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

function authHeaders() {
  const token = $("token").value.trim();
  if (!token) return {};
  // EventSource cannot send headers: the cookie carries the token to the stream.
  document.cookie = "deepresearch_token=" + encodeURIComponent(token) + "; path=/; SameSite=Strict";
  return { Authorization: "Bearer " + token };
}

const agents = new Map(); // plan index -> {li, state, detail, work, cited, text, searches, sources}
const cycles = new Map(); // cycle number -> {li, verdict}
const cycleVerdicts = new Map(); // cycle number -> verdict, before its row exists
let loopSummary = ""; // from run.finished: the cycles run and why the loop ended
let runCost = ""; // from run.finished: what the run cost, when the models' prices are known

function agentRow(index, title) {
  let a = agents.get(index);
  if (!a) {
    const li = el("li");
    li.dataset.agent = String(index);
    li.value = index + 1; // its number, whatever cycle rows stand between
    const state = el("span", "waiting", "state");
    const name = el("span", title || "agent " + index, "title");
    const detail = el("span", "", "detail");
    // What the agent writes, as it streams (agent.delta), and the sources
    // its report cites (agent.cited): shown once there is some.
    const work = el("div", undefined, "work");
    work.hidden = true;
    const cited = el("ol", undefined, "cited");
    const text = el("pre", undefined, "text");
    work.append(cited, text);
    li.append(state, name, el("span", " — "), detail, work);
    $("agents").append(li);
    a = { li, state, detail, work, cited, text, searches: 0, sources: 0 };
    agents.set(index, a);
  }
  return a;
}

// cycleRow heads the agents of a research cycle, with the gaps its
// follow-ups close; the first cycle gets one only once a second starts.
function cycleRow(n, closes) {
  let c = cycles.get(n);
  if (!c) {
    const li = el("li", undefined, "cycle");
    const name = el("span", "Cycle " + n, "title");
    const detail = el("span", closes.length ? " — closes " + closes.join("; ") : "", "detail");
    const verdict = el("span", cycleVerdicts.has(n) ? " — " + cycleVerdicts.get(n) : "", "verdict");
    li.append(name, detail, verdict);
    $("agents").append(li);
    c = { li, verdict };
    cycles.set(n, c);
  }
  return c;
}

// showCited lists the sources an agent's report cited, under the agent's
// own numbers: each as text, a link only for an http, https or file URL.
function showCited(a, sources) {
  a.cited.replaceChildren();
  for (const c of sources) {
    const s = c.source || {};
    const li = el("li");
    li.value = c.number;
    li.append(sourceLabel(s.title || s.url || s.id || "source " + c.number, s.url));
    a.cited.append(li);
  }
  a.work.hidden = false;
}

function setAgent(a, state, detail) {
  a.state.textContent = state;
  a.li.className = state;
  if (detail !== undefined) a.detail.textContent = detail;
}

// The run waiting for a person: its questions, or its plan to review.
async function post(path, body) {
  const res = await fetch(path, {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    let msg = res.statusText;
    try { const b = await res.json(); msg = (b.error && b.error.message) || msg; } catch { /* not JSON */ }
    setStatus(msg, true);
    return false;
  }
  $("waiting").hidden = true;
  $("answers").hidden = true;
  $("planreview").hidden = true;
  return true;
}

function showQuestions(questions) {
  const ol = $("questions");
  ol.replaceChildren();
  questions.forEach((q, i) => {
    const li = el("li");
    const label = el("label", q.question);
    label.htmlFor = "answer" + i;
    const input = el("input");
    input.id = "answer" + i;
    input.className = "answer";
    input.placeholder = q.assumption || "";
    li.append(label, input);
    ol.append(li);
  });
  $("waiting").hidden = false;
  $("answers").hidden = false;
  setStatus("The research waits for your answers (an empty one keeps the assumption shown).");
}

async function showPlan() {
  const id = document.body.dataset.run;
  // A run opened after it ended replays its review request: nothing to review.
  if (["finished", "failed", "canceled", "interrupted"].includes(document.body.dataset.status)) return;
  const res = await fetch("/v1/research/" + encodeURIComponent(id) + "/plan", { headers: authHeaders() });
  if (!res.ok) return;
  const plan = await res.json();
  const tasks = (plan.tasks || []).map((t) => ({ title: t.title, question: t.question }));
  $("plan").value = JSON.stringify({ tasks }, null, 2);
  $("waiting").hidden = false;
  $("planreview").hidden = false;
  setStatus("The research waits for the plan's review.");
}

function onEvent(ev) {
  const d = ev.data || {};
  switch (ev.type) {
    case "run.started": showSearched((d.config) || {}); setStatus("Planning…"); break;
    case "clarification.requested": showQuestions(d.questions || []); break;
    case "plan.review_requested": showPlan(); break;
    case "clarification.answered": $("answers").hidden = true; $("waiting").hidden = $("planreview").hidden; break;
    case "plan.accepted": $("planreview").hidden = true; $("waiting").hidden = $("answers").hidden; setStatus("Plan accepted" + (d.edited ? " (edited)" : "") + "; researching…"); break;
    case "plan":
      for (const t of d.tasks || []) agentRow(t.index, t.title);
      setStatus("Researching with " + (d.tasks || []).length + " agents…");
      break;
    case "cycle.started": {
      const tasks = d.tasks || [];
      if (d.cycle > 1) {
        if (!cycles.has(1)) {
          const first = cycleRow(1, []);
          $("agents").prepend(first.li);
        }
        cycleRow(d.cycle, tasks.map((t) => t.gap).filter(Boolean));
        for (const t of tasks) agentRow(t.index, t.title);
        setStatus("Cycle " + d.cycle + ": researching " + tasks.length + " follow-ups…");
      }
      break;
    }
    case "research.assessed": {
      const verdict = d.decision === "continue" ? (d.gaps || []).length + " gaps, researching them" : (d.decision || "").replace(/_/g, " ");
      if (cycles.has(d.cycle)) cycles.get(d.cycle).verdict.textContent = " — " + verdict;
      else cycleVerdicts.set(d.cycle, verdict);
      setStatus("Assessed cycle " + d.cycle + ": " + verdict + ".");
      break;
    }
    case "agent.started": setAgent(agentRow(ev.agent, ev.section), "running", "started"); break;
    case "agent.search": {
      const a = agentRow(ev.agent, ev.section);
      a.searches++;
      setAgent(a, "running", "searched “" + d.query + "” (" + d.results + " results)");
      break;
    }
    case "agent.source": {
      const a = agentRow(ev.agent, ev.section);
      a.sources++;
      setAgent(a, "running", a.searches + " searches, " + a.sources + " sources");
      break;
    }
    case "agent.finished": {
      const a = agentRow(ev.agent, ev.section);
      setAgent(a, "finished", a.searches + " searches, " + (d.cited || 0) + " sources cited");
      break;
    }
    case "agent.delta": {
      // The agent's report as it is written: untrusted text, appended as
      // a text node.
      const a = agentRow(ev.agent, ev.section);
      a.text.append(document.createTextNode(d.text || ""));
      a.work.hidden = false;
      break;
    }
    case "agent.cited": showCited(agentRow(ev.agent, ev.section), d.sources || []); break;
    case "agent.failed": setAgent(agentRow(ev.agent, ev.section), "failed", d.kind + ": " + d.error); break;
    case "sources.merged": setStatus("Writing the report…"); break;
    case "report.delta": $("draft").append(document.createTextNode(d.text || "")); break;
    case "run.resumed": setStatus("Resumed after the server stopped (attempt " + d.attempt + ")…"); break;
    case "stream.reset":
      if (ev.agent === -1) $("draft").textContent = d.text || "";
      else agentRow(ev.agent, ev.section).text.textContent = d.text || "";
      break;
    case "run.finished": {
      const n = d.cycles || 0;
      loopSummary = n ? ", " + n + (n === 1 ? " research cycle" : " research cycles") + (d.loop_end ? " (the loop ended: " + d.loop_end.replace(/_/g, " ") + ")" : "") : "";
      runCost = d.cost_usd ? " Cost: about $" + Number(d.cost_usd).toFixed(4) + "." : "";
      break;
    }
    case "report.verified": {
      const n = d.citations || 0;
      $("verification").textContent = "Verification: " + (d.supported || 0) + " of " + n + " citations supported by their sources" +
        (d.unsupported ? ", " + d.unsupported + " unsupported" : "") + (d.fabricated ? ", " + d.fabricated + " fabricated" : "") +
        (d.judge ? " (judged " + d.judge + ")" : "") + ".";
      break;
    }
    case "error": setStatus("The run failed: " + d.error, true); break;
  }
}

// showSearched says in the run's header what it searched and with what:
// run.started's config (corpus folder, channel, search engines, models).
function showSearched(c) {
  const dl = $("searched");
  dl.replaceChildren();
  const add = (term, value) => {
    if (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)) return;
    dl.append(el("dt", term), el("dd", String(value)));
  };
  add("Corpus", c.corpus);
  add("Search", Array.isArray(c.search_engines) && c.search_engines.length ? c.search_engines.join(", ") : c.channel);
  add("Embeddings", c.embedding_model);
  if (c.models && typeof c.models === "object") {
    const names = Object.keys(c.models).sort().map((role) => role + ": " + c.models[role]);
    add("Models", names.join("; "));
  }
  $("runhead").hidden = false;
}

function api(path, headers) {
  return fetch(path, { headers: Object.assign({}, headers || {}, authHeaders()) });
}

async function errorOf(res) {
  try { const b = await res.json(); return (b.error && b.error.message) || res.statusText; } catch { return res.statusText; }
}

// The elements and attributes the report fragment may hold (what goldmark
// in safe mode and the citation renderer write); anything else is
// dropped, an unknown element's text kept.
const fragmentTags = new Set(["MAIN", "SECTION", "H1", "H2", "H3", "H4", "H5", "H6", "P", "A", "SUP", "OL", "UL", "LI", "EM", "STRONG",
  "DEL", "CODE", "PRE", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "HR", "BR", "SPAN", "INPUT"]);
const fragmentAttrs = new Set(["href", "title", "id", "value", "class", "data-sids", "data-loc", "data-verdict", "align", "type", "checked", "disabled"]);

function cleanFragment(node) {
  for (const child of Array.from(node.children)) {
    if (!fragmentTags.has(child.tagName) || (child.tagName === "INPUT" && child.getAttribute("type") !== "checkbox")) {
      child.replaceWith(document.createTextNode(child.tagName === "INPUT" ? "" : child.textContent));
      continue;
    }
    for (const a of Array.from(child.attributes)) {
      if (!fragmentAttrs.has(a.name)) child.removeAttribute(a.name);
    }
    if (child.hasAttribute("href")) {
      const href = child.getAttribute("href");
      if (!(href.startsWith("#") || href.startsWith("/v1/research/") || linkable(href))) child.removeAttribute("href");
      else if (!href.startsWith("#") && !href.startsWith("/")) child.rel = "noopener noreferrer";
    }
    cleanFragment(child);
  }
}

async function showReport(id) {
  const res = await api("/v1/research/" + encodeURIComponent(id) + "/fragment");
  if (!res.ok) { setStatus(await errorOf(res), true); return; }
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  cleanFragment(doc.body);
  if (document.body.dataset.run !== id) return; // another run was opened meanwhile
  const main = doc.querySelector("main");
  $("body").replaceChildren(...(main ? Array.from(main.childNodes) : []));
  const refs = doc.querySelector("ol.references");
  $("references").replaceChildren(...(refs ? Array.from(refs.childNodes) : []));
  $("refsection").hidden = !refs;
  $("report").hidden = false;
  $("draftbox").hidden = true;
  const n = $("references").querySelectorAll(":scope > li").length;
  setStatus("Done: " + n + " references" + loopSummary + ".");
  showThread(id, document.body.dataset.parent || ""); // followups.js
  if (!document.body.dataset.parent && document.body.dataset.status === "finished") showChecks(id); // compare.js
  // A reload of /runs/ID#ref-3 lands on its reference.
  if (location.hash.startsWith("#ref-")) {
    const target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }
}

// openSource shows reference n's text read, its checked passages marked,
// scrolled to the first passage of location loc ("p. 4") when it has one;
// run is the run whose reference it is (a follow-up's), else the page's.
let sourceOpener = null;
async function openSource(n, loc, opener, run) {
  const id = run || document.body.dataset.run;
  const res = await api("/v1/research/" + encodeURIComponent(id) + "/sources/" + n, { Accept: "application/json" });
  if (!res.ok) { setStatus("Source [" + n + "]: " + await errorOf(res), true); return; }
  const src = await res.json();
  const ref = src.reference || {};
  sourceOpener = opener || null;
  $("sourcetitle").textContent = "[" + n + "] " + (ref.title || ref.id || ref.url || "source");
  const meta = $("sourcemeta");
  meta.replaceChildren();
  if (src.link) meta.append("The source: ", sourceLabel(src.link, src.link), ". ");
  const page = el("a", "Open as a page");
  page.href = "/v1/research/" + encodeURIComponent(id) + "/sources/" + n;
  meta.append(page);
  const box = $("sourcetext");
  box.replaceChildren();
  let first = null, atLoc = null; // the first marked passage, and the first at loc
  for (const part of src.parts || []) {
    // Passages are byte offsets of the text's UTF-8.
    const bytes = new TextEncoder().encode(part.text || "");
    const utf8 = new TextDecoder();
    const text = { length: bytes.length, slice: (i, j) => utf8.decode(bytes.subarray(i, j)) };
    const h = el("h3", part.location ? (/^p\. /.test(part.location) ? "Page " + part.location.slice(3) : part.location) : "The text read");
    const pre = el("pre");
    let at = 0;
    for (const p of part.passages || []) {
      if (p.start < at || p.end > text.length) continue;
      pre.append(document.createTextNode(text.slice(at, p.start)));
      const mark = el("mark", text.slice(p.start, p.end));
      pre.append(mark);
      if (!first) first = mark;
      if (!atLoc && loc && part.location === loc) atLoc = mark;
      at = p.end;
    }
    pre.append(document.createTextNode(text.slice(at)));
    box.append(h, pre);
  }
  if (!first) box.prepend(el("p", "No passage is marked: the report was not verified, or the passages checked are not in this text."));
  $("source").hidden = false;
  $("sourcetitle").focus({ preventScroll: true });
  if (atLoc || first) (atLoc || first).scrollIntoView({ block: "center" });
}

function closeSource() {
  $("source").hidden = true;
  if (sourceOpener) sourceOpener.focus();
  sourceOpener = null;
}

// The runs list: the store's runs, newest first, each a link to its page.
// A server that wants a token lists them once the page has one (typed,
// or kept in its cookie from before).
let tokenRequired = null;
async function loadRuns() {
  if (tokenRequired === null) {
    try { tokenRequired = !!(await (await fetch("/page.json")).json()).token_required; } catch { tokenRequired = true; }
  }
  if (tokenRequired && !$("token").value.trim() && !/(^|;\s*)deepresearch_token=/.test(document.cookie)) {
    $("runsstatus").textContent = "Give the access token (under the question) to list the runs.";
    return;
  }
  let res;
  try { res = await api("/v1/research?limit=50"); } catch { return; }
  if (!res.ok) {
    $("runsstatus").textContent = res.status === 401 ? "Give the access token to list the runs." : await errorOf(res);
    return;
  }
  const body = await res.json();
  const list = $("runs");
  list.replaceChildren();
  for (const r of body.runs || []) {
    const li = el("li");
    const a = el("a", r.question || r.id);
    a.href = "/runs/" + encodeURIComponent(r.id);
    a.dataset.run = r.id;
    const when = r.created ? new Date(r.created) : null;
    const u = r.usage || {};
    const tokens = (u.prompt_tokens || 0) + (u.completion_tokens || 0);
    const meta = el("span", undefined, "meta");
    if (r.parent) meta.append("follow-up · "); // of run r.parent: its thread is under that run's report
    meta.append(el("span", r.status, "status-" + r.status));
    if (when && !isNaN(when)) {
      const t = el("time", " · " + when.toLocaleString());
      t.dateTime = r.created;
      meta.append(t);
    }
    meta.append(" · " + tokens.toLocaleString() + " tokens, " + (u.calls || 0) + " calls");
    li.append(a, meta);
    if (r.id === document.body.dataset.run) li.setAttribute("aria-current", "page");
    list.append(li);
  }
  $("runsstatus").textContent = (body.runs || []).length ? "" : "No runs yet.";
}

const eventTypes = ["run.started", "clarification.requested", "clarification.answered", "plan.review_requested", "plan.accepted", "plan", "cycle.started", "research.assessed", "agent.started", "agent.search", "agent.source", "agent.delta", "agent.cited",
  "agent.finished", "agent.failed", "sources.filtered", "sources.merged", "report.delta", "report.citation",
  "report.finished", "report.verified", "run.finished", "error", "run.resumed", "stream.reset"];
let stream = null;

function resetRun() {
  if (stream) { stream.close(); stream = null; }
  delete document.body.dataset.status;
  delete document.body.dataset.parent;
  resetThread(); // followups.js
  resetChecks(); // compare.js
  agents.clear();
  cycles.clear();
  loopSummary = "";
  runCost = "";
  cycleVerdicts.clear();
  $("agents").replaceChildren();
  $("draft").replaceChildren();
  $("body").replaceChildren();
  $("references").replaceChildren();
  $("verification").textContent = "";
  $("searched").replaceChildren();
  $("draftbox").hidden = false;
  $("report").hidden = true;
  $("source").hidden = true;
  $("waiting").hidden = true;
  $("answers").hidden = true;
  $("planreview").hidden = true;
}

// follow streams run id's events from its first (a finished run's are
// replayed), then shows its report.
function follow(id) {
  document.body.dataset.run = id;
  $("progress").hidden = false;
  const es = new EventSource("/v1/research/" + encodeURIComponent(id) + "/events");
  stream = es;
  for (const t of eventTypes) {
    es.addEventListener(t, (m) => { try { onEvent(JSON.parse(m.data)); } catch (err) { /* not an event */ } });
  }
  es.addEventListener("end", async (m) => {
    es.close();
    if (stream === es) stream = null;
    const end = JSON.parse(m.data);
    document.body.dataset.status = end.status;
    $("waiting").hidden = true;
    $("go").disabled = false;
    if (end.status !== "finished" && end.status !== "failed") {
      setStatus("The run was " + end.status + (end.error ? ": " + end.error : ""), true);
    }
    try {
      const res = await api("/v1/research/" + encodeURIComponent(id));
      if (res.ok && document.body.dataset.run === id) showRunHead(await res.json());
    } catch { /* the header keeps what it said */ }
    await showReport(id);
    loadRuns();
  });
}

// openRun shows a stored run: its header, its events, its report.
async function openRun(id) {
  resetRun();
  document.body.dataset.run = id;
  $("runquestion").textContent = "";
  $("runmeta").textContent = "";
  setStatus("Opening the run…");
  const res = await api("/v1/research/" + encodeURIComponent(id));
  if (!res.ok) { setStatus(await errorOf(res), true); $("runhead").hidden = true; return; }
  const run = await res.json();
  document.body.dataset.status = run.status;
  showRunHead(run);
  follow(id);
  for (const li of $("runs").children) {
    const a = li.querySelector("a");
    if (a && a.dataset.run === id) li.setAttribute("aria-current", "page"); else li.removeAttribute("aria-current");
  }
}

function showRunHead(run) {
  if (run.parent) document.body.dataset.parent = run.parent;
  else delete document.body.dataset.parent;
  $("runquestion").textContent = run.question || "";
  document.title = (run.question || "run") + " — deepresearch";
  const u = run.usage || {};
  const when = run.created ? new Date(run.created) : null;
  $("runmeta").textContent = "Run " + run.id + ": " + run.status + (when && !isNaN(when) ? ", started " + when.toLocaleString() : "") +
    ", " + ((u.prompt_tokens || 0) + (u.completion_tokens || 0)).toLocaleString() + " tokens in " + (u.calls || 0) + " model calls." + runCost;
  $("runhead").hidden = false;
}

async function ask(e) {
  e.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  $("go").disabled = true;
  resetRun();
  $("progress").hidden = false;
  setStatus("Starting…");
  let res, body;
  try {
    res = await fetch("/v1/research", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
      body: JSON.stringify($("reviewplan").checked ? { question, review: "first_plan" } : { question }),
    });
    body = await res.json();
  } catch (err) {
    setStatus("The server did not answer: " + err, true);
    $("go").disabled = false;
    return;
  }
  if (!res.ok) {
    setStatus((body.error && body.error.message) || res.statusText, true);
    $("go").disabled = false;
    return;
  }
  history.pushState({ run: body.id }, "", "/runs/" + encodeURIComponent(body.id));
  routed = location.pathname;
  showRunHead({ id: body.id, question, status: body.status });
  follow(body.id);
  loadRuns();
}

// route opens what the address names: /runs/ID, or the empty page. A
// move within the page (a citation's #ref-N) changes nothing.
let routed = null;
function route() {
  if (location.pathname === routed) return;
  routed = location.pathname;
  const m = /^\/runs\/([^/]+)$/.exec(location.pathname);
  if (m) {
    openRun(decodeURIComponent(m[1]));
    return;
  }
  resetRun();
  delete document.body.dataset.run;
  $("runhead").hidden = true;
  $("progress").hidden = true;
  setStatus("");
  document.title = "deepresearch";
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask").addEventListener("submit", ask);
  // Ctrl+Enter (Cmd+Enter) in the question asks it, as in a chat box;
  // Enter alone is a new line.
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      $("ask").requestSubmit();
    }
  });
  const run = () => "/v1/research/" + encodeURIComponent(document.body.dataset.run);
  $("answers").addEventListener("submit", (e) => {
    e.preventDefault();
    const answers = Array.from(document.querySelectorAll("#questions input.answer"), (i) => i.value.trim());
    post(run() + "/input", { answers });
  });
  $("planreview").addEventListener("submit", (e) => {
    e.preventDefault();
    let plan;
    try { plan = JSON.parse($("plan").value); } catch (err) { setStatus("The plan is not JSON: " + err, true); return; }
    post(run() + "/plan", plan);
  });
  $("reject").addEventListener("click", () => post(run() + "/plan", { action: "reject" }));
  // A citation goes to its reference and opens its source's text; a
  // reference's "stored text" opens it too (a modified click opens the
  // source's own page).
  $("report").addEventListener("click", (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    const a = e.target.closest("a");
    if (!a) return;
    const sup = a.closest("sup.cite");
    if (sup) {
      const n = Number(sup.dataset.sids);
      // A follow-up's citation opens its own run's text of the source,
      // marked where the follow-up's citations were checked.
      const fu = followUpSource(a, n);
      if (fu) {
        if (fu.stored) openSource(n, sup.dataset.loc || "", a, fu.run);
        return;
      }
      const ref = document.getElementById("ref-" + n);
      if (ref && ref.querySelector("a.stored")) openSource(n, sup.dataset.loc || "", a);
      return;
    }
    if (a.classList.contains("stored")) {
      e.preventDefault();
      const li = a.closest("li[id*=ref-]");
      if (!li) return;
      const n = Number(li.id.replace(/^.*ref-/, ""));
      const fu = followUpSource(a, n);
      openSource(n, "", a, fu ? fu.run : "");
    }
  });
  $("closesource").addEventListener("click", closeSource);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("source").hidden) closeSource(); });
  // The runs list and "New question" move between runs without a reload.
  $("runsnav").addEventListener("click", (e) => {
    const a = e.target.closest("a");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    const path = new URL(a.href).pathname;
    if (path !== "/" && !path.startsWith("/runs/")) return;
    e.preventDefault();
    history.pushState({}, "", path);
    route();
    if (path === "/") $("question").focus();
  });
  window.addEventListener("popstate", route);
  route();
  loadRuns();
});
