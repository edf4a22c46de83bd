// The /v1 API seen from the page: fetch with the API key (when one is needed), errors as ApiError.
// URLs are relative to the page, so a proxy that mounts runyard under a prefix keeps working.

const KEY_STORAGE = "runyard.apiKey";
const PAGE_MESSAGES = 20; // the newest runs first; "Show earlier messages" pages back

export class ApiError extends Error {
  constructor(status, code, message, fields = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields; // [{field, message}]: which part of the request was refused
  }
}

// The error an answer's JSON problem body ({"error": {code, message, fields?}}) describes.
function problemError(status, problem, statusText) {
  const { code = "http_error", message = statusText, fields = [] } = (problem && problem.error) || {};
  return new ApiError(status, code, message || `HTTP ${status}`, fields);
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

  headers(accept = "application/json") {
    const headers = { Accept: accept };
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    return headers;
  }

  async request(method, path, { body, params } = {}) {
    const response = await this.call(method, path, { body, params });
    return response.json();
  }

  // The answer to one call, or an ApiError for a refusal or an unreachable server.
  async call(method, path, { body, params, accept } = {}) {
    const headers = this.headers(accept);
    if (body !== undefined) headers["Content-Type"] = "application/json";
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
    if (response.ok) return response;
    const problem = await response.json().catch(() => ({}));
    if (response.status === 401) this.onUnauthorized();
    throw problemError(response.status, problem, response.statusText);
  }

  agents() {
    return this.request("GET", "v1/agents");
  }

  // Whom the page acts for: {auth, tenant, user, role?, keyId?}.
  me() {
    return this.request("GET", "v1/me");
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

  // A message: its text, its content blocks (attachments), or both.
  send(threadId, message, agentId, content = []) {
    const body = {};
    if (message) body.message = message;
    if (content.length) body.content = content;
    if (agentId) body.agentId = agentId;
    return this.request("POST", `v1/chat/${enc(threadId)}`, { body });
  }

  // A stored file's bytes, as a Blob (an <img src> could not send the key).
  async fileBlob(fileId) {
    const response = await this.call("GET", `v1/files/${enc(fileId)}`, { accept: "*/*" });
    return response.blob();
  }

  fileMeta(fileId) {
    return this.request("GET", `v1/files/${enc(fileId)}/meta`);
  }

  deleteFile(fileId) {
    return this.request("DELETE", `v1/files/${enc(fileId)}`);
  }

  // Upload one file (POST /v1/files, multipart field "file"). XMLHttpRequest, not fetch, since
  // only it reports upload progress: onProgress(sent, total). Returns {done, abort}; done
  // resolves to the file's metadata ({id, filename, mediaType, size, …}).
  upload(file, onProgress) {
    const xhr = new XMLHttpRequest();
    const done = new Promise((resolve, reject) => {
      xhr.open("POST", this.url("v1/files"));
      for (const [name, value] of Object.entries(this.headers())) xhr.setRequestHeader(name, value);
      xhr.responseType = "json";
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded, event.total);
      };
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr.response);
        if (xhr.status === 401) this.onUnauthorized();
        reject(problemError(xhr.status, xhr.response, xhr.statusText));
      };
      xhr.onerror = () => reject(new ApiError(0, "network", "The upload was cut off: the server cannot be reached, or refused the file."));
      xhr.onabort = () => reject(new ApiError(0, "aborted", "Upload cancelled."));
      const form = new FormData();
      form.append("file", file, file.name);
      xhr.send(form);
    });
    return { done, abort: () => xhr.abort() };
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
