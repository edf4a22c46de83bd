// A chat page on LangGraph's React hook, useStream (@langchain/langgraph-sdk/react), pointed at
// runyard's /langgraph (the `api` query parameter): it sends a message, shows the messages as
// they stream, and answers an approval interrupt with command.resume.
import { useStream } from "@langchain/langgraph-sdk/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";

const apiUrl = new URLSearchParams(location.search).get("api");

function text(message) {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

function Chat() {
  const thread = useStream({ apiUrl, assistantId: "assistant", messagesKey: "messages" });
  const [draft, setDraft] = useState("");
  const asked = thread.interrupt?.value?.action_requests?.[0];
  const send = (event) => {
    event.preventDefault();
    thread.submit({ messages: [{ type: "human", content: draft }] });
    setDraft("");
  };
  const approve = () =>
    thread.submit(undefined, { command: { resume: { decisions: [{ type: "approve" }] } } });
  return (
    <main>
      <ol id="messages">
        {thread.messages.map((m) => (
          <li key={m.id} data-type={m.type}>{text(m)}</li>
        ))}
      </ol>
      {asked && (
        <p id="interrupt">
          Allow {asked.name}? <button id="approve" onClick={approve}>Approve</button>
        </p>
      )}
      {thread.error && <p id="error">{String(thread.error)}</p>}
      <p id="status">{thread.isLoading ? "streaming" : "idle"}</p>
      <form onSubmit={send}>
        <input id="draft" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button id="send" type="submit">Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
