// AG-UI's own client (@ag-ui/client HttpAgent) against POST /agui/assistant: a tool call, an
// approval answered with `resume`, and a run aborted mid-answer. Prints what it saw as JSON.
import { HttpAgent } from "@ag-ui/client";

const [base, threadId] = process.argv.slice(2);
const agent = new HttpAgent({ url: `${base}/agui/assistant`, threadId });

async function run(params, extra = {}) {
  const events = [];
  let outcome = null;
  let error = null;
  const subscriber = {
    onEvent({ event }) { events.push(event); },
    onRunFinishedEvent(finished) { outcome = { outcome: finished.outcome, interrupts: finished.interrupts ?? null }; },
    onRunFailed({ error: failed }) { error = String(failed); },
    ...extra,
  };
  let newMessages = [];
  try {
    ({ newMessages } = await agent.runAgent(params, subscriber));
  } catch (failed) {
    error = String(failed);
  }
  return { events, outcome, error, newMessages };
}

const seen = {};
agent.addMessage({ id: "u1", role: "user", content: '/tool calculator {"expression": "2+3*4"}' });
seen.tool = await run({ runId: "r1" });

agent.addMessage({ id: "u2", role: "user", content: '/tool save_note {"text": "from ag-ui"}' });
seen.asked = await run({ runId: "r2" });
seen.asked.pending = agent.pendingInterrupts;
const interruptId = seen.asked.outcome.interrupts[0].id;
seen.resumed = await run({
  runId: "r3",
  resume: [{ interruptId, status: "resolved", payload: { approved: true } }],
});

agent.addMessage({ id: "u3", role: "user", content: "/delay 100\nplease answer slowly, word by word, for a while" });
seen.aborted = await run({ runId: "r4" }, { onTextMessageContentEvent() { agent.abortRun(); } });

console.log(JSON.stringify(seen));
