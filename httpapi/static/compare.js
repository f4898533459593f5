// What changed, and whether the report still holds (issue 33), under a
// finished run's report: "Compare with…" chooses another finished run of
// the runs list (those that asked the same question first) and shows the
// diff from GET /v1/research/{id}/diff/{other}: the sources added,
// dropped and changed, the claims whose support changed, the sections
// added and removed. "Re-check sources" reads the report's cited web
// pages again (GET /v1/research/{id}/recheck) and shows each citation
// unchanged, changed, gone or unreachable, the claims that lost their
// support, and whether the report still holds. The last re-check the
// server kept (a scheduled one, or the last pressed here) is the run's
// status (GET /v1/research/{id}'s recheck). Titles, URLs, sentences and
// passages are untrusted: text nodes only, links only for http, https
// and file URLs. Loaded after app.js, whose helpers it uses.
"use strict";

let checksRun = null; // the run whose checks the section shows
let checksCreated = ""; // when it was created

// resetChecks empties the section.
function resetChecks() {
  checksRun = null;
  checksCreated = "";
  $("checks").hidden = true;
  $("compareto").replaceChildren();
  $("diff").replaceChildren();
  $("recheck").replaceChildren();
  $("recheckstate").replaceChildren();
  $("recheckstate").hidden = true;
  checksStatus("");
}

function checksStatus(text, error) {
  $("checksstatus").textContent = text;
  $("checksstatus").className = error ? "error" : "";
}

// normQuestion is what makes two questions the same: their words, in
// lower case.
function normQuestion(q) {
  return String(q || "").toLowerCase().split(/\s+/).filter(Boolean).join(" ");
}

// showChecks offers, under finished run id's report (not a follow-up's),
// the comparison with the other finished runs and the re-check, and says
// what the last re-check the server kept of it found.
async function showChecks(id) {
  resetChecks();
  checksRun = id;
  $("checks").hidden = false;
  let res, question = "";
  try {
    res = await api("/v1/research/" + encodeURIComponent(id));
    if (res.ok) {
      const run = await res.json();
      if (checksRun !== id) return;
      question = run.question || "";
      checksCreated = run.created || "";
      showRecheckState(run.recheck || null);
    }
    res = await api("/v1/research?limit=100");
  } catch { return; }
  if (checksRun !== id) return;
  if (!res.ok) { checksStatus("The runs to compare with: " + await errorOf(res), true); return; }
  const runs = ((await res.json()).runs || []).filter((r) => r.id !== id && r.status === "finished" && !r.parent);
  if (checksRun !== id) return;
  const q = normQuestion(question);
  const same = runs.filter((r) => normQuestion(r.question) === q);
  const other = runs.filter((r) => normQuestion(r.question) !== q);
  const select = $("compareto");
  const option = (r) => {
    const when = r.created ? new Date(r.created) : null;
    const o = el("option", (r.question || r.id) + (when && !isNaN(when) ? " — " + when.toLocaleString() : ""));
    o.value = r.id;
    o.dataset.created = r.created || "";
    o.dataset.question = r.question || "";
    return o;
  };
  for (const [label, list] of [["The same question", same], ["Other questions", other]]) {
    if (!list.length) continue;
    const g = el("optgroup");
    g.label = label;
    g.append(...list.map(option));
    select.append(g);
  }
  $("compareform").hidden = runs.length === 0;
  $("comparenone").hidden = runs.length !== 0;
}

// showRecheckState says what the last re-check the server kept found.
function showRecheckState(rc) {
  const p = $("recheckstate");
  p.replaceChildren();
  p.hidden = !rc;
  if (!rc) return;
  const when = new Date(rc.checked_at);
  const t = el("time", isNaN(when) ? String(rc.checked_at) : when.toLocaleString());
  t.dateTime = rc.checked_at;
  const n = (rc.summary && rc.summary.claims_flagged) || 0;
  p.className = rc.holds ? "holds" : "broken";
  p.append("Sources re-checked ", t, rc.holds ? ": still holds." : ": no longer holds: " + n + (n === 1 ? " claim" : " claims") + " lost support.");
}

// sourceName is a diffed or re-checked source's label: its title and URL
// (or ID).
function sourceName(s) {
  const name = s.url || s.id || s.key || "";
  return s.title && s.title !== name ? s.title + " (" + name + ")" : name;
}

// sourceItem is an li for source s, its label a link where it may be one.
function sourceItem(prefix, s) {
  const li = el("li");
  li.append(prefix);
  li.append(sourceLabel(sourceName(s), s.url));
  return li;
}

function numbers(s) {
  if (s.number_a && s.number_b) return "[" + s.number_a + "→" + s.number_b + "] ";
  if (s.number_a) return "[" + s.number_a + "] ";
  return "[→" + s.number_b + "] ";
}

// group appends to box a heading and a list of items, when there are any.
function group(box, heading, items, cls) {
  if (!items.length) return;
  const ol = el("ul", undefined, cls);
  ol.append(...items);
  box.append(el("h4", heading), ol);
}

const claimChanges = {
  lost_support: "lost its support",
  gained_support: "gained support",
  source_changed: "a source it cited changed or was dropped, and the other run does not say it",
};

// showDiff renders a diff.Result between the page's run and another, whose
// question is otherQuestion; later says whether the other is the later
// run (B) or the earlier (A).
function showDiff(d, otherQuestion, later) {
  const box = $("diff");
  box.replaceChildren();
  const src = d.sources || {};
  const added = src.added || [], dropped = src.dropped || [], changed = src.changed || [];
  const claims = d.claims || [];
  const sec = d.sections || {};
  const secAdded = sec.added || [], secRemoved = sec.removed || [];
  box.append(el("h3", "Compared with “" + (otherQuestion || (later ? d.run_b : d.run_a)) + "”"),
    el("p", later ? "What changed from this run to the later one:" : "What changed from the earlier run to this one:", "direction"));
  const summary = el("p", "Sources: " + added.length + " added, " + dropped.length + " dropped, " + changed.length + " changed, " +
    (src.unchanged || 0) + " the same. " + claims.length + (claims.length === 1 ? " claim" : " claims") + " whose support changed; " +
    secAdded.length + (secAdded.length === 1 ? " section" : " sections") + " added, " + secRemoved.length + " removed.", "summary");
  box.append(summary);
  if (!added.length && !dropped.length && !changed.length && !claims.length && !secAdded.length && !secRemoved.length) {
    box.append(el("p", "Nothing changed."));
    return;
  }
  group(box, "Sources added", added.map((s) => sourceItem(numbers(s), s)), "added");
  group(box, "Sources dropped", dropped.map((s) => sourceItem(numbers(s), s)), "dropped");
  group(box, "Sources changed (their text differs)", changed.map((s) => sourceItem(numbers(s), s)), "changed");
  group(box, "Claims whose support changed", claims.map((c) => {
    const li = el("li");
    li.append(el("q", c.sentence || ""), " — " + (claimChanges[c.change] || c.change));
    return li;
  }), "claims");
  group(box, "Sections added", secAdded.map((h) => el("li", h)), "added");
  group(box, "Sections removed", secRemoved.map((h) => el("li", h)), "dropped");
}

// getChecked GETs path for run id's checks, button disabled meanwhile
// and the status saying busy; it returns the JSON answer, or null when it
// failed (the status says why, after what) or another run was opened.
async function getChecked(id, path, button, busy, what) {
  $(button).disabled = true;
  checksStatus(busy);
  let res, body;
  try {
    res = await api(path);
    if (res.ok) body = await res.json();
  } catch (err) {
    if (checksRun === id) checksStatus("The server did not answer: " + err, true);
    return null;
  } finally {
    $(button).disabled = false;
  }
  if (checksRun !== id) return null;
  if (!res.ok) { checksStatus(what + ": " + await errorOf(res), true); return null; }
  return body;
}

async function compare(e) {
  e.preventDefault();
  const id = checksRun;
  const select = $("compareto");
  const other = select.value;
  if (!id || !other) return;
  const opt = select.selectedOptions[0];
  const otherQuestion = opt ? opt.dataset.question : "";
  // The diff runs from the earlier run (A) to the later (B).
  const later = !!(opt && opt.dataset.created && checksCreated && new Date(opt.dataset.created) > new Date(checksCreated));
  const [a, b] = later ? [id, other] : [other, id];
  const d = await getChecked(id, "/v1/research/" + encodeURIComponent(a) + "/diff/" + encodeURIComponent(b), "comparego", "Comparing…", "Compare");
  if (!d) return;
  showDiff(d, otherQuestion, later);
  checksStatus("Compared with the other run.");
}

const recheckWords = { unchanged: "unchanged", changed: "changed", gone: "gone", unreachable: "unreachable", skipped: "not re-checked" };

// showRecheck renders a recheck.Result.
function showRecheck(r) {
  const box = $("recheck");
  box.replaceChildren();
  const sum = r.summary || {};
  const claims = r.claims || [];
  const web = (r.sources || []).some((s) => s.status !== "skipped");
  const verdict = !web ? el("p", "Nothing to re-check: the report cites no web page.", "verdict") :
    el("p", r.holds ? "The report still holds: every claim still has its support." :
      "The report no longer holds: " + claims.length + (claims.length === 1 ? " claim" : " claims") + " lost support.", r.holds ? "verdict holds" : "verdict broken");
  box.append(el("h3", "Sources re-checked"), verdict,
    el("p", (sum.unchanged || 0) + " unchanged, " + (sum.changed || 0) + " changed, " + (sum.gone || 0) + " gone, " +
      (sum.unreachable || 0) + " unreachable, " + (sum.skipped || 0) + " not web pages.", "summary"));
  const ol = el("ul", undefined, "rechecked");
  for (const s of r.sources || []) {
    const li = el("li");
    li.dataset.status = s.status;
    li.append(el("span", recheckWords[s.status] || s.status, "state " + s.status), " [" + s.number + "] ", sourceLabel(sourceName(s), s.url));
    if (s.detail) li.append(el("span", " — " + s.detail, "detail"));
    if ((s.passages || []).length) {
      const ps = el("ul", undefined, "passages");
      for (const p of s.passages) {
        const pi = el("li");
        pi.append(p.status === "gone" ? "no longer in the page: " : "moved: ", el("q", p.text || ""));
        ps.append(pi);
      }
      li.append(ps);
    }
    ol.append(li);
  }
  box.append(ol);
  group(box, "Claims that lost their support", claims.map((c) => {
    const li = el("li");
    li.append(el("q", c.sentence || ""), " — cites " + (c.cites || []).map((n) => "[" + n + "]").join(" "));
    return li;
  }), "claims");
}

async function recheck() {
  const id = checksRun;
  if (!id) return;
  const r = await getChecked(id, "/v1/research/" + encodeURIComponent(id) + "/recheck", "recheckgo", "Reading the cited pages again…", "Re-check");
  if (!r) return;
  showRecheck(r);
  if (!(r.sources || []).some((s) => s.status !== "skipped")) {
    checksStatus("Re-checked: the report cites no web page.");
    return;
  }
  showRecheckState({ checked_at: r.checked, holds: r.holds, summary: r.summary });
  checksStatus(r.holds ? "Re-checked: the report still holds." : "Re-checked: the report no longer holds.");
}

document.addEventListener("DOMContentLoaded", () => {
  $("compareform").addEventListener("submit", compare);
  $("recheckgo").addEventListener("click", recheck);
});
