// Structured JSON (a `json` content block) as a tree people can fold: each object and array is a
// <details> whose summary says what it holds; the first levels start open. Keys and values are
// text nodes: nothing in the data is ever read as HTML.

import { h } from "./dom.js";

const OPEN_LEVELS = 2;

export function jsonTree(data) {
  return h("div", { class: "json-tree", role: "group", "aria-label": "Structured data" }, node(data, null, 0));
}

function node(value, key, depth) {
  const label = key === null ? null : h("span", { class: "json-key" }, `${key}: `);
  if (value === null || typeof value !== "object") {
    return h("div", { class: "json-leaf" }, label, leaf(value));
  }
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  const summary = h("summary", {}, label, h("span", { class: "json-shape" }, shape(value, entries.length)));
  return h(
    "details",
    { class: "json-branch", open: depth < OPEN_LEVELS },
    summary,
    h("div", { class: "json-children" }, entries.map(([name, item]) => node(item, name, depth + 1))),
  );
}

function shape(value, count) {
  if (Array.isArray(value)) return `[ ] ${count} ${count === 1 ? "item" : "items"}`;
  return `{ } ${count} ${count === 1 ? "key" : "keys"}`;
}

function leaf(value) {
  const kind = value === null ? "null" : typeof value;
  return h("span", { class: `json-value json-${kind}` }, JSON.stringify(value));
}
