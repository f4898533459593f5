// Follow-up questions under a finished run's report (issue 33): the
// thread (GET /v1/research/{id}/asks), each follow-up's answer rendered
// from its own report fragment (GET /v1/research/{followup}/fragment, the
// renderer that escapes the report's), and a form that asks one more
// (POST /v1/research/{id}/ask) and follows its events until its answer
// is written. A follow-up's citations keep the report's numbers: [2] in
// an answer is the report's reference 2 and links to it; a source found
// by the follow-up's own research is numbered after the report's and
// listed under its answer. A citation opens the source's text as the
// report's do, with the passages the follow-up's citations were checked
// against marked. Loaded after app.js, whose helpers it uses.
"use strict";

const threadStreams = new Set(); // the follow-ups' EventSources, closed by resetThread
let threadRun = null; // the run whose thread the page shows
let askedItem = null; // the follow-up last asked from the form: its status is announced

// resetThread empties the thread and stops following its follow-ups.
function resetThread() {
  for (const es of threadStreams) es.close();
  threadStreams.clear();
  threadRun = null;
  askedItem = null;
  $("thread").replaceChildren();
  $("followupstatus").textContent = "";
  $("followupstatus").className = "";
  $("followupof").replaceChildren();
  $("followupof").hidden = true;
  $("followups").hidden = true;
}

// showThread shows, under run id's report, its follow-ups and the form
// that asks one more. A follow-up's own page names the run it follows
// instead: its thread is that run's.
async function showThread(id, parent) {
  resetThread();
  threadRun = id;
  if (parent) {
    $("followupform").hidden = true;
    $("followups").hidden = false;
    const a = el("a", "run " + parent);
    a.href = "/runs/" + encodeURIComponent(parent);
    $("followupof").append("This answers a follow-up question of the ", a, "; its thread is under that run's report.");
    $("followupof").hidden = false;
    try {
      const res = await api("/v1/research/" + encodeURIComponent(parent));
      if (res.ok && threadRun === id) a.textContent = "run “" + ((await res.json()).question || parent) + "”";
    } catch { /* the link keeps the run's ID */ }
    return;
  }
  $("followupform").hidden = false;
  $("followups").hidden = false;
  let res;
  try { res = await api("/v1/research/" + encodeURIComponent(id) + "/asks"); } catch { return; }
  if (threadRun !== id) return;
  if (!res.ok) { followUpStatus("The follow-ups: " + await errorOf(res), true); return; }
  const body = await res.json();
  if (threadRun !== id) return;
  for (const f of body.follow_ups || []) {
    const item = threadItem(f.id, f.question || "");
    if (f.status === "finished") showAnswer(item);
    else if (["failed", "canceled", "interrupted"].includes(f.status)) itemStatus(item, "The follow-up was " + f.status + (f.error ? ": " + f.error : "") + ".", true);
    else followAnswer(item);
  }
}

function followUpStatus(text, error) {
  $("followupstatus").textContent = text;
  $("followupstatus").className = error ? "error" : "";
}

// threadItem adds follow-up id, asking question, to the thread.
function threadItem(id, question) {
  const li = el("li", undefined, "followup");
  li.dataset.run = id;
  li.dataset.prefix = "f" + ($("thread").children.length + 1) + "-";
  const status = el("p", "Waiting…", "fstatus");
  const answer = el("div", undefined, "answer");
  const added = el("section", undefined, "added");
  added.hidden = true;
  li.append(el("h3", question, "fquestion"), status, answer, added);
  $("thread").append(li);
  return li;
}

// itemStatus says where follow-up item stands; the form's live status
// says it too for the one last asked there.
function itemStatus(item, text, error) {
  const p = item.querySelector(".fstatus");
  p.textContent = text;
  p.classList.toggle("error", !!error);
  if (item === askedItem) followUpStatus(text, error);
}

// followAnswer follows a follow-up's events (from its first: a running
// one's are replayed) and shows its answer once it has ended.
function followAnswer(item) {
  const id = item.dataset.run;
  const es = new EventSource("/v1/research/" + encodeURIComponent(id) + "/events");
  threadStreams.add(es);
  const on = (type, f) => es.addEventListener(type, (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch { return; }
    f(ev.data || {});
  });
  on("cycle.started", (d) => itemStatus(item, d.cycle > 1 ? "Researching what the report's sources do not say…" : "Reading the report's sources…"));
  on("agent.search", () => itemStatus(item, "Searching for new sources…"));
  on("sources.merged", () => itemStatus(item, "Writing the answer…"));
  on("error", (d) => { if (d.error) itemStatus(item, "The follow-up failed: " + d.error, true); });
  es.addEventListener("end", (m) => {
    es.close();
    threadStreams.delete(es);
    let end = {};
    try { end = JSON.parse(m.data); } catch { /* not the end's JSON */ }
    if (end.status === "finished") showAnswer(item);
    else itemStatus(item, "The follow-up was " + end.status + (end.error ? ": " + end.error : "") + ".", true);
  });
}

// showAnswer puts a finished follow-up's answer in its place: the
// report fragment of its run, cleaned as the report's is, without the
// heading that repeats its question, its headings under the thread's.
// A citation of one of the report's references links to it; a source of
// its own (numbered after the report's) is listed under the answer. Its
// status says how many of its citations verification found supported.
async function showAnswer(item) {
  const id = item.dataset.run;
  const run = threadRun;
  itemStatus(item, "Loading the answer…");
  let res;
  try { res = await api("/v1/research/" + encodeURIComponent(id) + "/fragment"); } catch (err) { itemStatus(item, "The answer: " + err, true); return; }
  if (!res.ok) { itemStatus(item, "The answer: " + await errorOf(res), true); return; }
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  cleanFragment(doc.body);
  if (threadRun !== run || !item.isConnected) return;
  const main = doc.querySelector("main");
  const first = main && main.firstElementChild;
  if (first && first.tagName === "H1") first.remove();
  const prefix = item.dataset.prefix;
  const own = new Set(); // the follow-up's numbers that are not the report's
  const stored = [];
  for (const li of doc.querySelectorAll("ol.references > li[id^=ref-]")) {
    const n = li.id.slice(4);
    if (li.querySelector("a.stored")) stored.push(n);
    if ($("ref-" + n) && $("ref-" + n).parentElement === $("references")) continue;
    own.add(n);
    li.id = prefix + "ref-" + n;
  }
  item.dataset.stored = stored.join(",");
  const answer = item.querySelector(".answer");
  answer.replaceChildren(...(main ? Array.from(main.childNodes) : []));
  for (const h of answer.querySelectorAll("h1, h2, h3, h4, h5, h6")) {
    const level = Math.min(6, Number(h.tagName[1]) + 2);
    const d = el("h" + level);
    d.append(...h.childNodes);
    h.replaceWith(d);
  }
  for (const a of answer.querySelectorAll("sup.cite a[href^='#ref-']")) {
    if (own.has(a.getAttribute("href").slice(5))) a.setAttribute("href", "#" + prefix + a.getAttribute("href").slice(1));
  }
  const added = item.querySelector(".added");
  added.replaceChildren();
  if (own.size) {
    const ol = el("ol", undefined, "references");
    for (const li of doc.querySelectorAll("ol.references > li")) {
      if (li.id.startsWith(prefix)) ol.append(li);
    }
    added.append(el("h4", "New sources of this answer"), ol);
  }
  added.hidden = !own.size;
  // What verification found, as the citations' verdicts say it.
  const cites = answer.querySelectorAll("sup.cite");
  const judged = answer.querySelectorAll("sup.cite[data-verdict]").length;
  const supported = answer.querySelectorAll("sup.cite[data-verdict=supported]").length;
  itemStatus(item, "Answered" + (judged ? ": " + supported + " of " + judged + " citations supported by their sources." : " with " + cites.length + " citations."));
}

// askFollowUp asks the form's question of the run the page shows.
async function askFollowUp(e) {
  e.preventDefault();
  const run = threadRun;
  const input = $("followupq");
  const question = input.value.trim();
  if (!run || !question) return;
  $("followupgo").disabled = true;
  followUpStatus("Asking…");
  let res, body;
  try {
    res = await fetch("/v1/research/" + encodeURIComponent(run) + "/ask", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
      body: JSON.stringify({ question }),
    });
    body = await res.json();
  } catch (err) {
    followUpStatus("The server did not answer: " + err, true);
    return;
  } finally {
    $("followupgo").disabled = false;
  }
  if (!res.ok) {
    followUpStatus((body && body.error && body.error.message) || res.statusText, true);
    return;
  }
  if (threadRun !== run) return;
  input.value = "";
  followUpStatus("Asked; the answer follows under the question.");
  askedItem = threadItem(body.id, question);
  followAnswer(askedItem);
}

// followUpSource returns, for a link clicked in a follow-up's answer,
// the follow-up's run and whether it keeps a text of reference n; null
// for a link outside the thread.
function followUpSource(a, n) {
  const item = a.closest("li.followup");
  if (!item) return null;
  return { run: item.dataset.run, stored: (item.dataset.stored || "").split(",").includes(String(n)) };
}

document.addEventListener("DOMContentLoaded", () => {
  $("followupform").addEventListener("submit", askFollowUp);
});
