// A small markdown renderer that cannot inject anything: it builds DOM nodes, and every piece
// of the model's text becomes a text node (never parsed as HTML). Links keep only http, https
// and mailto targets. The subset: paragraphs, headings, bullet and numbered lists, quotes,
// fenced code, and inline (inline.js: code, bold and italic by CommonMark's rules, links).

import { parseInline } from "./inline.js";

const SAFE_LINK = /^(https?:|mailto:)/i;

export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      i = fence(lines, i, fragment);
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(line.match(/^#+/)[0].length + 2, 6);
      fragment.append(inline(`h${level}`, line.replace(/^#+\s+/, "")));
      i += 1;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      i = list(lines, i, fragment);
    } else if (/^>\s?/.test(line)) {
      const quote = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) quote.push(lines[i++].replace(/^>\s?/, ""));
      const block = document.createElement("blockquote");
      block.append(renderMarkdown(quote.join("\n")));
      fragment.append(block);
    } else if (line.trim() === "") {
      i += 1;
    } else {
      const paragraph = [];
      while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines[i])) paragraph.push(lines[i++]);
      fragment.append(inline("p", paragraph.join("\n")));
    }
  }
  return fragment;
}

function startsBlock(line) {
  return /^\s*```|^#{1,6}\s|^\s*([-*+]|\d+[.)])\s+|^>/.test(line);
}

function fence(lines, start, fragment) {
  const language = lines[start].replace(/^\s*```/, "").trim();
  let i = start + 1;
  const body = [];
  while (i < lines.length && !/^\s*```/.test(lines[i])) body.push(lines[i++]);
  const pre = document.createElement("pre");
  const code = document.createElement("code");
  if (/^[\w+-]+$/.test(language)) code.dataset.language = language;
  code.textContent = body.join("\n");
  pre.append(code);
  fragment.append(pre);
  return i + 1;
}

function list(lines, start, fragment) {
  const ordered = /^\s*\d+[.)]\s+/.test(lines[start]);
  const element = document.createElement(ordered ? "ol" : "ul");
  let i = start;
  const item = ordered ? /^\s*\d+[.)]\s+/ : /^\s*[-*+]\s+/;
  while (i < lines.length && item.test(lines[i])) {
    element.append(inline("li", lines[i].replace(item, "")));
    i += 1;
  }
  fragment.append(element);
  return i;
}

function inline(tag, text) {
  const element = document.createElement(tag);
  element.append(...nodes(parseInline(text)));
  return element;
}

function nodes(parsed) {
  return parsed.map((node) => {
    if (node.t === "text") return document.createTextNode(node.v);
    if (node.t === "link" && !SAFE_LINK.test(node.href)) return document.createTextNode(node.raw);
    const element = document.createElement({ code: "code", em: "em", strong: "strong", link: "a" }[node.t]);
    if (node.t === "code") {
      element.textContent = node.v;
    } else {
      element.append(...nodes(node.c));
    }
    if (node.t === "link") {
      element.href = node.href;
      element.rel = "noopener noreferrer nofollow";
      element.target = "_blank";
    }
    return element;
  });
}
