// The page: threads on the side, the open thread's transcript, the message box.
// Opening a thread follows the seed's session restore: load /messages, set the cursor to
// nextEventId - 1, read /status, then connect the event stream — nothing shown twice.

import { Api } from "./api.js";
import { Attachments } from "./attach.js";
import { BlockRenderer } from "./blocks.js";
import { h } from "./dom.js";
import { KeyGate } from "./keygate.js";
import { StoredMedia } from "./media.js";
import { ThreadStream } from "./stream.js";
import { titleFromMessage, untitled } from "./titles.js";
import { applyEvent, newRun, pendingQuestions, runsFromHistory, userMessage } from "./tree.js";
import { RunView } from "./view.js";

const $ = (id) => document.getElementById(id);

const CONNECTION_TEXT = {
  connecting: "Connecting…",
  live: "",
  reconnecting: "Connection lost — reconnecting…",
  closed: "",
};

class App {
  constructor() {
    this.api = new Api();
    this.keys = new KeyGate(this.api, {
      accept: () => this.start(),
      forgotten: () => this.clearPage(),
      locked: () => this.stopForKey(),
    });
    this.api.onUnauthorized = () => this.keys.ask();
    this.media = new StoredMedia(this.api);
    this.ctx = {
      answer: (requestId, answer) => this.api.confirm(requestId, answer),
      blocks: new BlockRenderer(this.media),
    };
    this.attachments = new Attachments(this.api, this.media, {
      list: $("attachments"),
      input: $("attach-input"),
      button: $("attach"),
      dropZone: $("composer"),
      onChange: () => this.setBusy(this.busy),
    });
    this.threadId = null;
    this.madeHere = new Set();
    this.named = new Map(); // thread id → a name from its first message, for untitled threads
    this.threads = [];
    this.runs = new Map();
    this.views = new Map();
    this.dirty = new Set();
    this.stream = null;
    this.renderTimer = null;
    this.busy = "idle";
    this.cancelling = false;
    this.sending = false;
    this.bind();
  }

  bind() {
    $("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    $("composer-input").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    $("cancel").addEventListener("click", () => this.cancel());
    $("new-thread").addEventListener("click", () => this.go(this.newThread()));
    $("threads-toggle").addEventListener("click", () => {
      const open = document.body.classList.toggle("threads-open");
      $("threads-toggle").setAttribute("aria-expanded", String(open));
    });
    window.addEventListener("hashchange", () => {
      const threadId = threadFromHash();
      if (threadId && threadId !== this.threadId) this.openThread(threadId);
    });
    document.querySelector(".skip").addEventListener("click", (event) => {
      event.preventDefault(); // a fragment link would replace the thread in the address
      $("composer-input").focus();
    });
  }

  // The sidebar, then the thread in the address (or the newest, or a new one); false when the
  // server refused (a key is asked for, or the failure announced).
  async start() {
    if (!(await this.loadSidebar())) return false;
    this.openThread(threadFromHash() || this.threads[0]?.id || this.newThread());
    return true;
  }

  // A fresh thread id, remembered as made here: the server knows nothing of it until its first
  // message, so opening it asks for no history (which would be a 404).
  newThread() {
    const threadId = newThreadId();
    this.madeHere.add(threadId);
    return threadId;
  }

  // The threads panel covers the chat below 700 px: it folds away once a thread is chosen.
  closeThreads() {
    document.body.classList.remove("threads-open");
    $("threads-toggle").setAttribute("aria-expanded", "false");
  }

  go(threadId) {
    this.closeThreads();
    location.hash = `thread=${encodeURIComponent(threadId)}`;
    if (threadId !== this.threadId) this.openThread(threadId);
  }

  // --- API key ---------------------------------------------------------------------------

  stopForKey() {
    if (this.stream) this.stream.close();
    this.setBusy("locked");
  }

  // The key is forgotten: nothing it showed stays on the page.
  clearPage() {
    if (this.stream) this.stream.close();
    this.stream = null;
    this.threads = [];
    this.threadId = null;
    this.runs = new Map();
    this.views = new Map();
    $("transcript").replaceChildren();
    this.media.clear();
    this.attachments.clear();
    this.renderThreads();
    this.announce("The key is forgotten.");
  }

  // --- threads and agents ----------------------------------------------------------------

  async loadSidebar() {
    try {
      const [{ agents }, { threads }, me] = await Promise.all([this.api.agents(), this.api.threads(), this.api.me()]);
      this.keys.show(me);
      this.renderAgents(agents);
      this.threads = threads;
      this.renderThreads();
      return true;
    } catch (error) {
      if (error.status !== 401) this.announce(`Could not load threads: ${error.message}`);
      return false;
    }
  }

  async refreshThreads() {
    try {
      this.threads = (await this.api.threads()).threads;
      this.renderThreads();
    } catch {
      // The list stays as it was; the next run-finish tries again.
    }
  }

  renderAgents(agents) {
    const picker = $("agent-picker");
    const chosen = picker.value;
    picker.replaceChildren(
      h("option", { value: "" }, "Automatic (the server chooses)"),
      ...agents.map((agent) => h("option", { value: agent.name }, agent.default ? `${agent.name} (default)` : agent.name)),
    );
    picker.value = chosen;
  }

  renderThreads() {
    const list = $("thread-list");
    const known = this.threads.some((thread) => thread.id === this.threadId);
    const shown = known || !this.threadId ? this.threads : [{ id: this.threadId, title: null, unsaved: true }, ...this.threads];
    list.replaceChildren(
      ...shown.map((thread) => {
        const current = thread.id === this.threadId;
        const title = this.label(thread);
        const link = h("a", { href: `#thread=${encodeURIComponent(thread.id)}`, "aria-current": current ? "page" : false, title: thread.id,
          onclick: () => this.closeThreads() }, title); // chosen: on a narrow screen, show it
        const remove = thread.unsaved
          ? null
          : h("button", { type: "button", class: "icon", "aria-label": `Delete thread “${title}”`, title: "Delete", onclick: () => this.deleteThread(thread.id, title) }, "✕");
        return h("li", { class: current ? "current" : "", dataset: { threadId: thread.id } }, link, remove);
      }),
    );
    const current = shown.find((thread) => thread.id === this.threadId);
    $("thread-title").textContent = current ? this.label(current) : "New thread";
  }

  // A thread's title; without one, a name from its first message, else when it was made.
  label(thread) {
    if (thread.title) return thread.title;
    const named = this.named.get(thread.id);
    if (named) return named;
    return thread.unsaved ? "New thread" : untitled(thread);
  }

  // Remember a name for the thread from its first message, for as long as it has no title.
  nameFrom(threadId, runs) {
    const first = [...runs.values()].find((run) => run.user);
    const name = first && titleFromMessage(first.user);
    if (name && !this.named.has(threadId)) this.named.set(threadId, name);
  }

  setTitle(title) {
    const thread = this.threads.find((t) => t.id === this.threadId);
    if (thread) thread.title = title;
    else this.threads.unshift({ id: this.threadId, title });
    this.renderThreads();
  }

  async deleteThread(threadId, title) {
    if (!window.confirm(`Delete “${title}” and everything in it?`)) return;
    try {
      await this.api.deleteThread(threadId);
    } catch (error) {
      if (error.status !== 404) return this.announce(`Not deleted: ${error.message}`);
    }
    this.threads = this.threads.filter((t) => t.id !== threadId);
    this.announce(`Deleted “${title}”.`);
    if (threadId === this.threadId) this.go(this.threads[0]?.id || this.newThread());
    else this.renderThreads();
  }

  // --- opening a thread: history, status, then the stream ---------------------------------

  async openThread(threadId) {
    if (this.stream) this.stream.close();
    this.stream = null;
    this.threadId = threadId;
    this.runs = new Map();
    this.views = new Map();
    this.olderCursor = null;
    $("transcript").replaceChildren();
    this.media.clear(); // the transcript showing them is gone
    $("status-line").textContent = "";
    this.renderThreads();
    this.setBusy("loading");
    // A thread made here has nothing on the server yet: no history to ask for (a 404).
    const cursor = this.madeHere.has(threadId) ? null : await this.loadHistory(threadId);
    if (cursor === undefined || threadId !== this.threadId) return;
    const exists = cursor !== null;
    this.renderThreads(); // a name from its first message, if it has no title
    this.render();
    this.renderEarlierButton();
    await this.restoreStatus(threadId, exists);
    // A thread nobody has written to yet is connected on its first message, so merely opening
    // "New thread" leaves nothing behind.
    if (exists && threadId === this.threadId) this.connect(cursor);
  }

  // The thread's newest runs into the page; the stream's cursor, null for a thread the server
  // does not know, undefined when there is nothing to go on with (401, or it could not load).
  async loadHistory(threadId) {
    try {
      const history = await this.api.messages(threadId);
      if (threadId !== this.threadId) return undefined;
      this.runs = runsFromHistory(history.messages);
      this.olderCursor = history.nextCursor || null;
      if (!this.olderCursor) this.nameFrom(threadId, this.runs); // its first message is here
      if (history.title) this.setTitle(history.title);
      for (const run of this.runs.values()) this.touch(run.runId);
      return history.nextEventId - 1;
    } catch (error) {
      if (error.status === 404) return null;
      if (error.status !== 401) this.announce(`Could not load the thread: ${error.message}`);
      return undefined;
    }
  }

  // The runs before the page /messages gave first (its nextCursor), above the ones shown.
  async loadEarlier() {
    const threadId = this.threadId;
    const history = await this.api.messages(threadId, this.olderCursor);
    if (threadId !== this.threadId) return;
    this.olderCursor = history.nextCursor || null;
    const first = $("transcript").querySelector("article.run");
    for (const run of runsFromHistory(history.messages).values()) {
      if (this.runs.has(run.runId)) continue;
      this.runs = new Map([[run.runId, run], ...this.runs]);
      const view = this.newView(run);
      $("transcript").insertBefore(view.el, first);
    }
    this.renderEarlierButton();
  }

  renderEarlierButton() {
    let button = $("load-earlier");
    if (!this.olderCursor) return button?.remove();
    if (!button) {
      button = h("button", { type: "button", id: "load-earlier", class: "load-earlier", onclick: () => this.loadEarlier() }, "Show earlier messages");
      $("transcript").prepend(button);
    }
  }

  newView(run) {
    const view = new RunView(run, this.ctx);
    this.views.set(run.runId, view);
    return view;
  }

  async restoreStatus(threadId, exists) {
    if (!exists) return this.setBusy("idle");
    try {
      const status = await this.api.status(threadId);
      if (threadId !== this.threadId) return;
      if (status.isSuspended) this.setBusy("waiting");
      else if (status.hasActiveRun) this.setBusy("running");
      else this.setBusy("idle");
    } catch {
      this.setBusy("idle");
    }
  }

  connect(cursor) {
    this.stream = new ThreadStream(this.api, this.threadId, cursor, {
      onEvent: (event, id) => this.onEvent(event, id),
      onState: (state) => this.onConnection(state),
    });
    this.stream.open();
  }

  onConnection(state) {
    $("connection").textContent = CONNECTION_TEXT[state] ?? "";
    document.body.dataset.connection = state;
  }

  // --- live events -----------------------------------------------------------------------

  onEvent(event, id) {
    if (event.type === "thread-title-updated") return this.setTitle(event.payload.title);
    if (event.type === "run-resumed") {
      // Another server carried the run on and repeats what the stopped one had said: the
      // history endpoint already drops those events, so the page is restored from it.
      return this.openThread(this.threadId);
    }
    let run = this.runs.get(event.runId);
    if (!run) {
      run = newRun(event.runId);
      this.runs.set(event.runId, run);
      if (event.type === "run-start") this.fetchUserMessage(run);
    }
    applyEvent(run, event);
    this.touch(run.runId);
    if (event.type === "status") $("status-line").textContent = event.payload.message || "";
    if (event.type === "confirmation-request") {
      this.announce(`Your answer is needed: ${event.payload.message}`);
    }
    if (event.type === "run-finish") {
      $("status-line").textContent = "";
      this.refreshThreads();
    }
    this.setBusy(this.busyFromRuns());
    document.body.dataset.lastEventId = String(id);
  }

  // A run started elsewhere (another tab): its user message is in the history.
  async fetchUserMessage(run) {
    try {
      const history = await this.api.messages(this.threadId);
      const said = history.messages.find((m) => m.runId === run.runId && m.role === "user");
      if (said && !run.user) {
        run.user = userMessage(said);
        this.touch(run.runId);
      }
    } catch {
      // The answer shows without the question; a reload shows both.
    }
  }

  busyFromRuns() {
    const open = [...this.runs.values()].filter((run) => run.streaming);
    if (!open.length) return "idle";
    return open.some((run) => pendingQuestions(run.tree).length) ? "waiting" : "running";
  }

  touch(runId) {
    this.dirty.add(runId);
    if (this.renderTimer === null) this.renderTimer = setTimeout(() => this.render(), 16);
  }

  render() {
    this.renderTimer = null;
    const transcript = $("transcript");
    const atBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 80;
    for (const runId of this.dirty) {
      const run = this.runs.get(runId);
      if (!run) continue;
      let view = this.views.get(runId);
      if (!view) {
        view = this.newView(run);
        transcript.append(view.el);
      }
      view.update(run);
    }
    this.dirty.clear();
    if (atBottom) transcript.scrollTop = transcript.scrollHeight;
  }

  // --- sending and cancelling --------------------------------------------------------------

  async send() {
    const input = $("composer-input");
    const message = input.value.trim();
    if (this.busy !== "idle" || this.sending || this.attachments.problem()) return;
    const content = this.attachments.blocks();
    if (!message && !content.length) return;
    this.sending = true;
    this.setBusy("sending");
    try {
      const { runId } = await this.api.send(this.threadId, message, $("agent-picker").value, content);
      input.value = "";
      this.attachments.clear();
      let run = this.runs.get(runId);
      if (!run) {
        run = newRun(runId);
        this.runs.set(runId, run);
      }
      run.user = { content: message, blocks: content, createdAt: Date.now() };
      this.madeHere.delete(this.threadId); // the server knows it now
      this.nameFrom(this.threadId, this.runs);
      this.renderThreads();
      this.touch(runId);
      this.sending = false;
      this.setBusy(this.busyFromRuns());
      if (!this.stream) {
        this.refreshThreads();
        this.connect(0);
      }
    } catch (error) {
      this.sending = false;
      this.setBusy("idle");
      if (error.status === 409) {
        this.announce("This thread is busy: wait for the run to end, or cancel it.");
        await this.restoreStatus(this.threadId, true);
      } else if (error.status !== 401) {
        this.announce(`Not sent: ${error.message}`);
        this.refuseAttachments(error);
      }
    }
  }

  // A refusal naming a content block (content.1.mime_type) is shown on that attachment.
  refuseAttachments(error) {
    for (const { field, message } of error.fields) {
      const match = /^(?:body\.)?content\.(\d+)(?:\.|$)/.exec(field || "");
      if (match) this.attachments.refuse(Number(match[1]), message);
    }
  }

  async cancel() {
    if (this.cancelling) return;
    this.cancelling = true;
    this.setBusy(this.busy);
    try {
      await this.api.cancel(this.threadId);
    } catch (error) {
      this.announce(`Not cancelled: ${error.message}`);
    } finally {
      this.cancelling = false;
      this.setBusy(this.busyFromRuns());
    }
  }

  setBusy(kind) {
    this.busy = kind;
    const reasons = {
      idle: "",
      loading: "Loading the thread…",
      sending: "Sending…",
      running: "The agent is working. You can write again when it has finished, or cancel the run.",
      waiting: "The agent is waiting for your answer above. Answer it (or cancel the run) to go on.",
      locked: "Enter an API key to start.",
    };
    const input = $("composer-input");
    const blocked = kind !== "idle";
    const waiting = this.attachments.problem();
    input.disabled = blocked;
    $("send").disabled = blocked || Boolean(waiting);
    this.attachments.setEnabled(kind !== "locked" && kind !== "sending");
    $("busy-reason").textContent = reasons[kind] || waiting || "";
    const cancellable = kind === "running" || kind === "waiting";
    $("cancel").hidden = !cancellable;
    $("cancel").disabled = this.cancelling;
    $("cancel").textContent = this.cancelling ? "Cancelling…" : "Cancel run";
    document.body.dataset.busy = kind;
    if (!blocked && document.activeElement === document.body) input.focus();
  }

  announce(text) {
    $("announcer").textContent = text;
  }
}

function threadFromHash() {
  const match = location.hash.match(/^#thread=(.+)$/);
  return match ? decodeURIComponent(match[1]) : null;
}

function newThreadId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `t-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

new App().start();
