// A small markdown renderer that cannot inject anything: it builds DOM nodes, and every piece
// of the model's text becomes a text node (never parsed as HTML). Links keep only http, https
// and mailto targets. The subset: paragraphs, headings, bullet and numbered lists, quotes,
// fenced code, inline code, bold, italic and links.

const SAFE_LINK = /^(https?:|mailto:)/i;
const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

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
  appendInline(element, text);
  return element;
}

function appendInline(parent, text) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    parent.append(document.createTextNode(text.slice(last, match.index)));
    parent.append(span(match));
    last = match.index + match[0].length;
  }
  parent.append(document.createTextNode(text.slice(last)));
}

function span(match) {
  const [whole, , code, strong, strong2, em, em2, label, href] = match;
  if (code !== undefined) return element("code", code, false);
  if (strong !== undefined || strong2 !== undefined) return element("strong", strong ?? strong2);
  if (em !== undefined || em2 !== undefined) return element("em", em ?? em2);
  if (!SAFE_LINK.test(href)) return document.createTextNode(whole);
  const link = element("a", label);
  link.href = href;
  link.rel = "noopener noreferrer nofollow";
  link.target = "_blank";
  return link;
}

function element(tag, text, nested = true) {
  const node = document.createElement(tag);
  if (nested) appendInline(node, text);
  else node.textContent = text;
  return node;
}
