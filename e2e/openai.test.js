// The official openai npm package uses deepresearch as if it were a model.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { BASE, TOKEN, api, checkReport } from "./lib.js";

const client = new OpenAI({ baseURL: BASE + "/v1", apiKey: TOKEN || "unused", maxRetries: 0 });
const question = "How are undersea cables repaired?";

test("models.list lists deepresearch", async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, ["deepresearch"]);
});

test("chat.completions streams a cited report", async () => {
  const stream = await client.chat.completions.create({
    model: "deepresearch",
    stream: true,
    messages: [
      { role: "system", content: "You are a research assistant." },
      { role: "user", content: question },
    ],
  });
  let content = "", finish = null, chunks = 0, usage = null, id = "";
  for await (const chunk of stream) {
    chunks++;
    id = chunk.id;
    const c = chunk.choices[0];
    if (c?.delta?.content) content += c.delta.content;
    if (c?.finish_reason) finish = c.finish_reason;
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(finish, "stop");
  assert.ok(chunks > 3, `only ${chunks} chunks`);
  assert.ok(usage && usage.total_tokens > 0, "no usage in the last chunk");
  checkReport(content);
  // The streamed answer is the stored run's report, byte for byte.
  const run = id.replace(/^chatcmpl-/, "");
  const md = await api("GET", `/v1/research/${run}?format=md`);
  assert.equal(md.status, 200);
  assert.equal(content, md.text);
});

test("chat.completions without stream", async () => {
  const res = await client.chat.completions.create({
    model: "deepresearch",
    messages: [{ role: "user", content: question }],
  });
  assert.equal(res.object, "chat.completion");
  assert.equal(res.choices[0].message.role, "assistant");
  checkReport(res.choices[0].message.content);
});

test("a bad request is an APIError with the server's message", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "deepresearch", messages: [{ role: "system", content: "no question" }] }),
    (err) => err instanceof OpenAI.APIError && err.status === 400 && /user message/.test(err.message),
  );
});
