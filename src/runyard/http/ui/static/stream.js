// One thread's event stream: a native EventSource, which reconnects by itself with
// Last-Event-ID after a dropped connection. When the browser gives up (the server refused the
// reconnect: restarting, or a stream ticket that expired) a new EventSource is opened from the
// last id seen, with a fresh ticket. Ids only grow, so an event at or below the cursor is a
// repeat and is dropped.

const MAX_BACKOFF_MS = 8000;

export class ThreadStream {
  constructor(api, threadId, cursor, { onEvent, onState }) {
    this.api = api;
    this.threadId = threadId;
    this.cursor = cursor;
    this.onEvent = onEvent;
    this.onState = onState;
    this.source = null;
    this.timer = null;
    this.backoff = 1000;
    this.closed = false;
  }

  async open() {
    if (this.closed) return;
    this.onState("connecting");
    let url;
    try {
      url = await this.api.streamUrl(this.threadId, this.cursor);
    } catch (error) {
      if (error.status === 401) return this.close();
      return this.retryLater();
    }
    if (this.closed) return;
    const source = new EventSource(url);
    this.source = source;
    source.onopen = () => {
      this.backoff = 1000;
      this.onState("live");
    };
    source.onmessage = (message) => this.receive(message);
    source.addEventListener("server-shutdown", () => this.onState("reconnecting"));
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) this.retryLater();
      else this.onState("reconnecting");
    };
  }

  receive(message) {
    const id = Number(message.lastEventId);
    if (!Number.isSafeInteger(id) || id <= this.cursor) return;
    this.cursor = id;
    this.onEvent(JSON.parse(message.data), id);
  }

  retryLater() {
    this.dropSource();
    if (this.closed) return;
    this.onState("reconnecting");
    this.timer = setTimeout(() => this.open(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
  }

  dropSource() {
    if (this.source) this.source.close();
    this.source = null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.dropSource();
    this.onState("closed");
  }
}
