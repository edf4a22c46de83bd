// The /v1 API seen from the page: fetch with the API key (when one is needed), errors as ApiError.
// URLs are relative to the page, so a proxy that mounts runyard under a prefix keeps working.

const KEY_STORAGE = "runyard.apiKey";
const PAGE_MESSAGES = 20; // the newest runs first; "Show earlier messages" pages back

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class Api {
  constructor() {
    // Per tab and gone with it: the key is never written anywhere that outlives the session.
    this.key = sessionStorage.getItem(KEY_STORAGE) || "";
    this.onUnauthorized = () => {};
  }

  setKey(key) {
    this.key = key;
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  }

  url(path, params = {}) {
    const url = new URL(path, document.baseURI);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  async request(method, path, { body, params } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    let response;
    try {
      response = await fetch(this.url(path, params), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiError(0, "network", "The server cannot be reached.");
    }
    if (response.ok) return response.json();
    const problem = await response.json().catch(() => ({}));
    const { code = "http_error", message = response.statusText } = problem.error || {};
    if (response.status === 401) this.onUnauthorized();
    throw new ApiError(response.status, code, message);
  }

  agents() {
    return this.request("GET", "v1/agents");
  }

  threads() {
    return this.request("GET", "v1/threads");
  }

  messages(threadId, cursor) {
    const params = { cursor, limit: PAGE_MESSAGES };
    return this.request("GET", `v1/threads/${enc(threadId)}/messages`, { params });
  }

  status(threadId) {
    return this.request("GET", `v1/threads/${enc(threadId)}/status`);
  }

  send(threadId, message, agentId) {
    const body = agentId ? { message, agentId } : { message };
    return this.request("POST", `v1/chat/${enc(threadId)}`, { body });
  }

  cancel(threadId) {
    return this.request("POST", `v1/chat/${enc(threadId)}/cancel`);
  }

  confirm(requestId, answer) {
    return this.request("POST", `v1/confirm/${enc(requestId)}`, { body: answer });
  }

  deleteThread(threadId) {
    return this.request("DELETE", `v1/threads/${enc(threadId)}`);
  }

  // The event stream's URL. An EventSource cannot send the key, so with one a short-lived
  // ticket for this thread goes in the URL instead (docs/security.md); the key never does.
  async streamUrl(threadId, cursor) {
    const params = { lastEventId: cursor };
    if (this.key) {
      const { ticket } = await this.request("POST", `v1/threads/${enc(threadId)}/stream-ticket`);
      params.ticket = ticket;
    }
    return this.url(`v1/events/${enc(threadId)}`, params);
  }
}

function enc(id) {
  return encodeURIComponent(id);
}
