// The AI SDK's own chat (AbstractChat, the core of useChat, with DefaultChatTransport) against
// POST /ai-sdk/assistant: a tool call, an approval answered with addToolApprovalResponse (the
// chat sends it on by itself), and stop() mid-answer. Prints the chat's messages as JSON.
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
} from "ai";

const [base, chatId] = process.argv.slice(2);

class State {
  constructor() {
    this.current = "ready";
    this.error = undefined;
    this.messages = [];
    this.onChange = () => {};
    this.onSettled = [];
  }
  get status() { return this.current; }
  set status(value) {
    this.current = value;
    if (value === "ready" || value === "error") this.onSettled.splice(0).forEach((done) => done());
  }
  // The chat's status once its request in flight (the one sent by itself, too) is over.
  settled() {
    return this.current === "ready" || this.current === "error"
      ? Promise.resolve()
      : new Promise((done) => this.onSettled.push(done));
  }
  pushMessage(message) { this.messages = [...this.messages, message]; this.onChange(); }
  popMessage() { this.messages = this.messages.slice(0, -1); this.onChange(); }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
    this.onChange();
  }
  snapshot(thing) { return structuredClone(thing); }
}

class Chat extends AbstractChat {
  constructor(options) {
    const state = new State();
    super({ ...options, state });
    this.chatState = state;
  }
}

const finished = [];
const chat = new Chat({
  id: chatId,
  transport: new DefaultChatTransport({ api: `${base}/ai-sdk/assistant` }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  onFinish: ({ message, isAbort, isError }) => finished.push({ id: message.id, isAbort, isError }),
});
const last = () => chat.messages[chat.messages.length - 1];
const seen = {};

await chat.sendMessage({ text: '/tool calculator {"expression": "2+3*4"}' });
seen.tool = last();

await chat.sendMessage({ text: '/tool save_note {"text": "from useChat"}' });
seen.asked = structuredClone(last());
const waiting = last().parts.find((part) => part.state === "approval-requested");
await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: true });
await chat.chatState.settled();
seen.resumed = last();

chat.chatState.onChange = () => {
  if (last().role === "assistant" && last().parts.some((p) => p.type === "text")) {
    chat.chatState.onChange = () => {};
    chat.stop();
  }
};
await chat.sendMessage({ text: "/delay 100\nplease answer slowly, word by word, for a while" });
seen.stopped = last();
seen.status = chat.status;
seen.error = chat.error ? String(chat.error) : null;
seen.finished = finished;

console.log(JSON.stringify(seen));
