// The message box's attachments: files picked with the paperclip or dropped on the box. Each
// uploads at once (POST /v1/files) with a progress bar and shows as a removable chip; when the
// message is sent, each becomes a content block naming the stored file. The block's kind follows
// the media type the server sniffed (image/* → image, audio/*, video/*, anything else → file);
// the server has the last word on which types a model takes, and a refusal lands on the chip.
// An attachment that failed blocks sending until it is removed, so nothing is sent without it.

import { byteSize } from "./blocks.js";
import { h } from "./dom.js";

const MEDIA_KINDS = ["image", "audio", "video"];

export class Attachments {
  constructor(api, media, { list, input, button, dropZone, onChange }) {
    this.api = api;
    this.media = media;
    this.list = list;
    this.onChange = onChange;
    this.items = [];
    button.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      this.add(input.files);
      input.value = ""; // the same file may be picked again
    });
    this.acceptDrops(dropZone);
    this.button = button;
  }

  acceptDrops(zone) {
    const carriesFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
    const over = (event) => {
      if (!carriesFiles(event) || this.button.disabled) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      zone.classList.add("dropping");
    };
    zone.addEventListener("dragenter", over);
    zone.addEventListener("dragover", over);
    zone.addEventListener("dragleave", (event) => {
      if (!zone.contains(event.relatedTarget)) zone.classList.remove("dropping");
    });
    zone.addEventListener("drop", (event) => {
      zone.classList.remove("dropping");
      if (!carriesFiles(event) || this.button.disabled) return;
      event.preventDefault();
      this.add(event.dataTransfer.files);
    });
  }

  // Off without a key, and while a message is on its way (its blocks name these files).
  setEnabled(enabled) {
    this.button.disabled = !enabled;
    for (const item of this.items) item.removeButton.disabled = !enabled;
  }

  add(files) {
    for (const file of files) this.upload(file);
    this.onChange();
  }

  upload(file) {
    const item = new Attachment(file, () => this.remove(item));
    this.items.push(item);
    this.list.append(item.el);
    const { done, abort } = this.api.upload(file, (sent, total) => item.progress(sent, total));
    item.abort = abort;
    done.then(
      (stored) => {
        item.ready(stored);
        this.media.remember(stored.id, file); // the sent message shows it without a download
      },
      (error) => item.fail(error.message),
    ).finally(() => this.onChange());
  }

  remove(item) {
    this.items = this.items.filter((other) => other !== item);
    item.el.remove();
    if (item.state === "uploading") item.abort();
    // Uploaded and never sent: nothing will name it, so it goes.
    if (item.stored) this.api.deleteFile(item.stored.id).catch(() => {});
    this.onChange();
  }

  // Why the message cannot be sent yet, or null.
  problem() {
    if (this.items.some((item) => item.state === "error")) return "An attachment cannot be sent: remove it (✕) to send the message.";
    if (this.items.some((item) => item.state === "uploading")) return "Uploading… the message can be sent when it is done.";
    return null;
  }

  // The content blocks of the attachments, in order.
  blocks() {
    return this.items.map((item) => item.block());
  }

  // The server refused the message's content block `index` (its error named content.<index>).
  refuse(index, message) {
    const item = this.items[index];
    if (item) item.fail(message);
    this.onChange();
  }

  // Sent: the chips go, the files stay (the message names them now).
  clear() {
    for (const item of this.items) item.el.remove();
    this.items = [];
    this.onChange();
  }
}

class Attachment {
  constructor(file, onRemove) {
    this.file = file;
    this.state = "uploading";
    this.stored = null;
    this.abort = () => {};
    this.bar = h("progress", { class: "attachment-progress", max: 100, value: 0, "aria-label": `Uploading ${file.name}` });
    this.error = h("span", { class: "attachment-error error-text", role: "alert" });
    this.details = h("span", { class: "muted" }, byteSize(file.size));
    this.removeButton = h("button", { type: "button", class: "icon attachment-remove", "aria-label": `Remove ${file.name}`, title: "Remove", onclick: onRemove }, "✕");
    this.el = h("li", { class: "attachment", dataset: { state: this.state } },
      h("span", { class: "attachment-name" }, file.name), this.details, this.bar, this.error, this.removeButton);
  }

  progress(sent, total) {
    this.bar.value = Math.round((sent / total) * 100);
  }

  ready(stored) {
    this.stored = stored;
    this.bar.value = 100;
    this.details.textContent = `${mediaBase(stored.mediaType)} · ${byteSize(stored.size)}`;
    this.setState("ready");
  }

  fail(message) {
    this.error.textContent = message;
    this.setState("error");
  }

  setState(state) {
    this.state = state;
    this.el.dataset.state = state;
    this.bar.hidden = state !== "uploading";
  }

  block() {
    const mimeType = mediaBase(this.stored.mediaType);
    const kind = MEDIA_KINDS.find((prefix) => mimeType.startsWith(`${prefix}/`)) || "file";
    return { type: kind, file_id: this.stored.id, mime_type: mimeType, filename: this.stored.filename || this.file.name };
  }
}

// "text/plain; charset=utf-8" → "text/plain": the type a block names.
function mediaBase(mediaType) {
  return (mediaType || "application/octet-stream").split(";")[0].trim().toLowerCase();
}
