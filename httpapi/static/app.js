// The deepresearch page: start a run, follow its events with EventSource,
// then show the report. Everything from the server (report text, titles,
// URLs, agent names) is untrusted: it is put in the page only as text
// nodes, and only http, https and file URLs become links.
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
    case "run.started": setStatus("Planning…"); break;
    case "clarification.requested": showQuestions(d.questions || []); break;
    case "plan.review_requested": showPlan(); break;
    case "plan.accepted": setStatus("Plan accepted" + (d.edited ? " (edited)" : "") + "; researching…"); break;
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
      break;
    }
    case "error": setStatus("The run failed: " + d.error, true); break;
  }
}

// A markdown block with plain [n] markers, as text with citation links.
function renderBlock(block, refs) {
  let tag = "p", text = block;
  const h = /^(#{1,6})\s+(.*)$/s.exec(block);
  if (h) { tag = "h" + Math.min(6, h[1].length + 1); text = h[2]; }
  const node = el(tag);
  const re = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
  let last = 0, m;
  while ((m = re.exec(text)) !== null) {
    const nums = m[1].split(",").map((s) => Number(s.trim()));
    if (!nums.every((n) => refs.has(n))) continue;
    node.append(document.createTextNode(text.slice(last, m.index)));
    for (const n of nums) {
      const a = el("a", "[" + n + "]", "cite");
      a.href = "#ref-" + n;
      a.title = refs.get(n).title || refs.get(n).url || "";
      node.append(a);
    }
    last = m.index + m[0].length;
  }
  node.append(document.createTextNode(text.slice(last)));
  return node;
}

async function showReport(id) {
  const res = await fetch("/v1/research/" + encodeURIComponent(id) + "?format=json", { headers: authHeaders() });
  const body = await res.json();
  if (!res.ok) { setStatus((body.error && body.error.message) || "no report", true); return; }
  const refs = new Map();
  for (const r of body.references || []) refs.set(r.number, r);
  const target = $("body");
  target.replaceChildren();
  for (const b of body.blocks || []) target.append(renderBlock(b, refs));
  const list = $("references");
  list.replaceChildren();
  for (const r of body.references || []) {
    const li = el("li");
    li.id = "ref-" + r.number;
    li.value = r.number;
    li.append(sourceLabel(r.title || r.url || r.id, r.url));
    if (r.url && r.title) li.append(el("span", " — " + r.url, "url"));
    list.append(li);
  }
  $("report").hidden = false;
  $("draftbox").hidden = true;
  setStatus("Done: " + refs.size + " references" + loopSummary + ".");
}

async function ask(e) {
  e.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  $("go").disabled = true;
  agents.clear();
  cycles.clear();
  loopSummary = "";
  cycleVerdicts.clear();
  $("agents").replaceChildren();
  $("draft").replaceChildren();
  $("draftbox").hidden = false;
  $("report").hidden = true;
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
  const id = body.id;
  document.body.dataset.run = id;
  const es = new EventSource(body.urls.events);
  const types = ["run.started", "clarification.requested", "clarification.answered", "plan.review_requested", "plan.accepted", "plan", "cycle.started", "research.assessed", "agent.started", "agent.search", "agent.source", "agent.delta", "agent.cited",
    "agent.finished", "agent.failed", "sources.filtered", "sources.merged", "report.delta", "report.citation",
    "report.finished", "report.verified", "run.finished", "error", "run.resumed", "stream.reset"];
  for (const t of types) {
    es.addEventListener(t, (m) => { try { onEvent(JSON.parse(m.data)); } catch (err) { /* not an event */ } });
  }
  es.addEventListener("end", async (m) => {
    es.close();
    const end = JSON.parse(m.data);
    $("go").disabled = false;
    if (end.status !== "finished" && end.status !== "failed") {
      setStatus("The run was " + end.status + (end.error ? ": " + end.error : ""), true);
    }
    await showReport(id);
  });
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
});
