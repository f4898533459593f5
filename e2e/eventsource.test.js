// The eventsource npm package follows a run through a TCP proxy that the
// test cuts mid-run; the client reconnects by itself with Last-Event-ID
// and must end with every sequence number exactly once.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { EventSource } from "eventsource";
import { BASE, TOKEN, api } from "./lib.js";

const TYPES = ["run.started", "plan", "cycle.started", "research.assessed", "agent.started", "agent.search", "agent.source", "agent.delta", "agent.cited",
  "agent.finished", "agent.failed", "sources.filtered", "sources.merged", "report.delta", "report.citation",
  "report.finished", "report.verified", "run.finished", "error"];

// proxy forwards a local port to the server and can cut every open
// connection; it records the Last-Event-ID each request carried.
function proxy(target) {
  const conns = new Set();
  const lastIDs = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    conns.add(client);
    conns.add(upstream);
    client.once("data", (head) => {
      const m = /^last-event-id:\s*(\S+)/im.exec(head.toString("latin1"));
      lastIDs.push(m ? m[1] : null);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => { client.destroy(); upstream.destroy(); conns.delete(client); conns.delete(upstream); };
    client.on("error", drop); upstream.on("error", drop); client.on("close", drop); upstream.on("close", drop);
  });
  return {
    lastIDs,
    listen: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port))),
    cut: () => { for (const c of conns) c.destroy(); conns.clear(); },
    close: () => new Promise((resolve) => { for (const c of conns) c.destroy(); server.close(resolve); }),
  };
}

async function followWithCut() {
  const p = proxy(new URL(BASE));
  const port = await p.listen();
  // A slow run: many tasks, one agent at a time.
  const started = await api("POST", "/v1/research", {
    question: "How are undersea cables repaired, and who pays for the repair ships?",
    max_tasks: 16, parallelism: 1, search_limit: 50,
  });
  assert.equal(started.status, 202, started.text);
  const id = started.json.id;
  const seen = new Map(); // seq -> times seen
  let opens = 0, cutWhile = null;
  const es = new EventSource(`http://127.0.0.1:${port}/v1/research/${id}/events`, {
    fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...(TOKEN ? { Authorization: "Bearer " + TOKEN } : {}) } }),
  });
  const ended = new Promise((resolve, reject) => {
    es.addEventListener("open", () => { opens++; });
    for (const t of TYPES) {
      es.addEventListener(t, async (m) => {
        if (m.data === undefined) return; // "error" is also EventSource's own connection error
        const ev = JSON.parse(m.data);
        assert.equal(String(ev.seq), m.lastEventId);
        assert.equal(ev.type, t);
        seen.set(ev.seq, (seen.get(ev.seq) || 0) + 1);
        if (seen.size === 3 && cutWhile === null) {
          cutWhile = "";
          const st = await api("GET", `/v1/research/${id}`);
          cutWhile = st.json.status;
          p.cut(); // the connection drops; the run goes on
        }
      });
    }
    es.addEventListener("end", (m) => { es.close(); resolve(JSON.parse(m.data)); });
    setTimeout(() => { es.close(); reject(new Error(`no end after 60s; saw ${seen.size} events`)); }, 60000).unref();
  });
  const end = await ended;
  await p.close();
  return { id, end, seen, opens, cutWhile, lastIDs: p.lastIDs };
}

test("eventsource reconnects after a cut mid-run and sees every event once", async () => {
  let r;
  // The offline model is quick: retry until the cut happens while the
  // run is still running (it nearly always does at the first try).
  for (let attempt = 0; attempt < 5; attempt++) {
    r = await followWithCut();
    if (r.cutWhile === "running") break;
  }
  assert.equal(r.cutWhile, "running", "the cut never happened mid-run");
  assert.equal(r.end.status, "finished");
  assert.ok(r.opens >= 2, `the client did not reconnect (opens: ${r.opens})`);
  assert.ok(r.lastIDs.length >= 2 && r.lastIDs[0] === null && Number(r.lastIDs[1]) >= 3,
    `the reconnect carried no Last-Event-ID: ${JSON.stringify(r.lastIDs)}`);
  assert.equal(r.seen.size, r.end.events, "events missing");
  for (let seq = 1; seq <= r.end.events; seq++) {
    assert.equal(r.seen.get(seq), 1, `seq ${seq} seen ${r.seen.get(seq) || 0} times`);
  }
});

test("eventsource resumes a finished run from Last-Event-ID", async () => {
  const started = await api("POST", "/v1/research", { question: "What did the Great Eastern do?" });
  const id = started.json.id;
  let st;
  do { st = await api("GET", `/v1/research/${id}`); } while (st.json.status === "running");
  const from = Math.floor(st.json.events / 2);
  const seqs = [];
  const es = new EventSource(`${BASE}/v1/research/${id}/events`, {
    fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, "Last-Event-ID": String(from), ...(TOKEN ? { Authorization: "Bearer " + TOKEN } : {}) } }),
  });
  await new Promise((resolve) => {
    for (const t of TYPES) es.addEventListener(t, (m) => { if (m.data !== undefined) seqs.push(Number(m.lastEventId)); });
    es.addEventListener("end", () => { es.close(); resolve(); });
  });
  assert.deepEqual(seqs, Array.from({ length: st.json.events - from }, (_, i) => from + 1 + i));
});
