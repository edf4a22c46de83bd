// The AI SDK's own chat (AbstractChat with DefaultChatTransport) sends an image as a file part
// beside its text, and reads the image the answer carries back. Prints the last message as JSON.
import { AbstractChat, DefaultChatTransport } from "ai";

const [base, chatId, pngUrl] = process.argv.slice(2);

class State {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage(message) { this.messages = [...this.messages, message]; }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  }
  snapshot(thing) { return structuredClone(thing); }
}

class Chat extends AbstractChat {
  constructor(options) { super({ ...options, state: new State() }); }
}

const chat = new Chat({
  id: chatId,
  transport: new DefaultChatTransport({ api: `${base}/ai-sdk/assistant` }),
});
await chat.sendMessage({
  text: "What is this?\n/image",
  files: [{ type: "file", mediaType: "image/png", url: pngUrl, filename: "in.png" }],
});
console.log(JSON.stringify({ messages: chat.messages, error: chat.error ? String(chat.error) : null }));
