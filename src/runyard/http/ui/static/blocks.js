// Content blocks (docs/content.md) as the page shows them, in a user's message or an agent's
// answer: images inline (a click shows them at full size), audio and video with the browser's
// controls, files as download chips, JSON as a foldable tree, citations as links.
//
// Where the bytes come from: inline base64 becomes a data: URL; a stored file (file_id) a blob:
// URL fetched with the key (StoredMedia); a url is shown as a link and never loaded by the page,
// so the page reaches no other host by itself (the Content-Security-Policy says the same).
// Names, types and data are text nodes or attributes, never HTML; only http(s) URLs become links.

import { h } from "./dom.js";
import { jsonTree } from "./jsontree.js";
import { showFullSize } from "./lightbox.js";

const HTTP_URL = /^https?:\/\//i;
const KIND_WORDS = { image: "Image", audio: "Audio", video: "Video", file: "File" };

export class BlockRenderer {
  constructor(media) {
    this.media = media; // StoredMedia
  }

  // One element holding every block, in order.
  render(blocks) {
    return h("div", { class: "blocks" }, blocks.map((block) => this.block(block)));
  }

  block(block) {
    switch (block.type) {
      case "image":
      case "audio":
      case "video":
        return block.url ? this.linkChip(block) : this.playable(block);
      case "file":
        return block.url ? this.linkChip(block) : this.fileChip(block);
      case "json":
        return h("div", { class: "block", dataset: { kind: "json" } }, jsonTree(block.data));
      case "citation":
        return citation(block);
      default:
        return null; // a kind this page does not know yet
    }
  }

  // An image, audio or video the page can show: its element gets its source when it has one.
  playable(block) {
    const name = block.filename || KIND_WORDS[block.type].toLowerCase();
    const status = h("p", { class: "block-status", role: "status" });
    let element;
    if (block.type === "image") {
      const picture = h("img", { alt: name, class: "block-image" });
      element = h("button", { type: "button", class: "image-open", "aria-label": `Show ${name} at full size` }, picture);
      element.addEventListener("click", () => picture.src && showFullSize(picture.src, name));
    } else {
      element = h(block.type, { controls: true, preload: "metadata", "aria-label": name });
    }
    const figure = h("figure", { class: "block", dataset: { kind: block.type, state: "loading" } },
      element, block.filename ? h("figcaption", { class: "muted" }, block.filename) : null, status);
    this.source(block)
      .then((src) => {
        (block.type === "image" ? element.firstChild : element).src = src;
        figure.dataset.state = "ready";
      })
      .catch((error) => {
        figure.dataset.state = "error";
        status.textContent = `${KIND_WORDS[block.type]} not loaded: ${error.message}`;
      });
    return figure;
  }

  // The URL the bytes of an inline or stored block are read from.
  source(block) {
    if (block.base64 !== undefined) return Promise.resolve(`data:${block.mime_type || "application/octet-stream"};base64,${block.base64}`);
    if (block.file_id) return this.media.url(block.file_id);
    return Promise.reject(new Error("the block has no data"));
  }

  // A file to download: its name, media type and size (once known); a click saves it.
  fileChip(block) {
    const details = h("span", { class: "muted file-details" });
    const status = h("span", { class: "block-status", role: "status" });
    const known = { filename: block.filename, mediaType: block.mime_type, size: inlineSize(block) };
    const label = h("span", { class: "file-name" }, known.filename || "file");
    const button = h("button", { type: "button", class: "file-download" }, h("span", { "aria-hidden": "true" }, "⤓ "), label);
    const chip = h("div", { class: "block file-chip", dataset: { kind: "file" } }, button, details, status);
    const show = () => {
      label.textContent = known.filename || "file";
      button.setAttribute("aria-label", `Download ${known.filename || "file"}`);
      details.textContent = [known.mediaType, known.size === undefined ? null : byteSize(known.size)].filter(Boolean).join(" · ");
    };
    show();
    if (block.file_id && (known.size === undefined || !known.filename)) {
      this.media.meta(block.file_id).then((meta) => {
        known.filename ||= meta.filename;
        known.mediaType ||= meta.mediaType;
        known.size = meta.size;
        show();
      }, () => {}); // the chip stays as the block named it; a download says why it fails
    }
    button.addEventListener("click", async () => {
      status.textContent = "";
      try {
        await this.download(block, known.filename || "file");
      } catch (error) {
        status.textContent = `Not downloaded: ${error.message}`;
      }
    });
    return chip;
  }

  async download(block, filename) {
    const inline = block.base64 !== undefined;
    const url = inline ? URL.createObjectURL(base64Blob(block.base64, block.mime_type)) : await this.media.url(block.file_id);
    h("a", { href: url, download: filename }).click();
    // The click has handed the URL to the download by now; a stored file's URL stays cached.
    if (inline) setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  // A block by URL: a link the person may follow (only http and https), never fetched here.
  linkChip(block) {
    const name = block.filename || block.url;
    const kind = KIND_WORDS[block.type];
    const target = HTTP_URL.test(block.url)
      ? h("a", { href: block.url, target: "_blank", rel: "noopener noreferrer" }, name)
      : h("span", {}, name);
    return h("div", { class: "block file-chip", dataset: { kind: block.type } },
      h("span", { class: "muted" }, `${kind}: `), target, block.mime_type ? h("span", { class: "muted" }, ` · ${block.mime_type}`) : null);
  }
}

function citation(block) {
  const title = block.title || block.url || "source";
  const link = block.url && HTTP_URL.test(block.url)
    ? h("a", { href: block.url, target: "_blank", rel: "noopener noreferrer" }, title)
    : h("span", {}, title);
  return h("div", { class: "block citation", dataset: { kind: "citation" } },
    h("span", { class: "muted" }, "Source: "), link,
    block.cited_text ? h("blockquote", { class: "cited" }, block.cited_text) : null);
}

function inlineSize(block) {
  if (block.base64 === undefined) return undefined;
  return Math.floor((block.base64.replace(/=+$/, "").length * 3) / 4);
}

function base64Blob(base64, mimeType) {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  return new Blob([bytes], { type: mimeType || "application/octet-stream" });
}

export function byteSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
