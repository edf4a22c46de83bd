// LangGraph's own JavaScript client (@langchain/langgraph-sdk Client) against runyard's /langgraph:
// assistants, a streamed tool call in three stream modes, an approval that interrupts the run,
// `command.resume` carrying it on, and the thread's state. Prints what it saw as JSON.
import { Client } from "@langchain/langgraph-sdk";

const [base] = process.argv.slice(2);
const client = new Client({ apiUrl: `${base}/langgraph` });

async function collect(stream) {
  const parts = [];
  for await (const { event, data } of stream) parts.push({ event, data });
  return parts;
}

const seen = {};
seen.assistants = (await client.assistants.search()).map((a) => a.assistant_id);
const { thread_id: threadId } = await client.threads.create();
seen.streamed = await collect(
  client.runs.stream(threadId, "assistant", {
    input: { messages: [{ role: "user", content: '/tool calculator {"expression": "2+3*4"}' }] },
    streamMode: ["values", "updates", "messages-tuple"],
  }),
);
seen.waiting = await client.runs.wait(threadId, "assistant", {
  input: { messages: [{ role: "user", content: '/tool save_note {"text": "from js"}' }] },
});
seen.resumed = await collect(
  client.runs.stream(threadId, "assistant", {
    command: { resume: { decisions: [{ type: "approve" }] } },
    streamMode: "updates",
  }),
);
seen.state = await client.threads.getState(threadId);
console.log(JSON.stringify(seen));
