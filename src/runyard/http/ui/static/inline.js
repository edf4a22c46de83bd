// Inline markdown as CommonMark reads it, for the subset the UI renders: code spans, links,
// backslash escapes, and emphasis and strong emphasis by CommonMark's rules for delimiter runs
// (spec 0.31, "Emphasis and strong emphasis"). Those rules are why `save_note` or `note_8b9`
// stay as written: an underscore inside a word neither opens nor closes emphasis.
//
// parseInline returns plain data, no DOM, so it is tested against a CommonMark implementation
// (tests/http/test_ui_markdown.py): {t: "text", v}, {t: "code", v}, {t: "em" | "strong", c},
// {t: "link", href, raw, c} (raw: the link as written).

const LINK = /^\[([^\]]+)\]\(([^)\s]+)\)/;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const PUNCTUATION = /[\p{P}\p{S}]/u;
const WHITESPACE = /[\s\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;

export function parseInline(text) {
  return resolve(scan(text));
}

// The text as items: nodes (text, code, link) and the delimiter runs of * and _ between them.
function scan(text) {
  const items = [];
  let plain = "";
  const flush = () => {
    if (plain) items.push({ t: "text", v: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === "\\" && ASCII_PUNCTUATION.test(text[i + 1] ?? "")) {
      plain += text[i + 1];
      i += 2;
    } else if (char === "`") {
      const run = text.slice(i).match(/^`+/)[0];
      const end = closingBackticks(text, i + run.length, run.length);
      if (end < 0) {
        plain += run;
        i += run.length;
      } else {
        flush();
        items.push({ t: "code", v: codeContent(text.slice(i + run.length, end)) });
        i = end + run.length;
      }
    } else if (char === "[" && LINK.test(text.slice(i))) {
      const [whole, label, href] = text.slice(i).match(LINK);
      flush();
      items.push({ t: "link", href, raw: whole, c: parseInline(label) });
      i += whole.length;
    } else if (char === "*" || char === "_") {
      const count = text.slice(i).match(char === "*" ? /^\*+/ : /^_+/)[0].length;
      flush();
      items.push(delimiter(char, count, text[i - 1], text[i + count]));
      i += count;
    } else {
      plain += char;
      i += 1;
    }
  }
  flush();
  return items;
}

function closingBackticks(text, from, length) {
  const pattern = /`+/g;
  pattern.lastIndex = from;
  for (let match; (match = pattern.exec(text)) !== null; ) {
    if (match[0].length === length) return match.index;
  }
  return -1;
}

function codeContent(raw) {
  const content = raw.replace(/\n/g, " ");
  const padded = content.length > 2 && content.startsWith(" ") && content.endsWith(" ");
  return padded && content.trim() !== "" ? content.slice(1, -1) : content;
}

// Whether a run can open or close emphasis depends on what is on either side of it; the
// beginning and the end of the text count as white space.
function delimiter(char, count, before = " ", after = " ") {
  const spaceAfter = WHITESPACE.test(after);
  const spaceBefore = WHITESPACE.test(before);
  const punctAfter = PUNCTUATION.test(after);
  const punctBefore = PUNCTUATION.test(before);
  const left = !spaceAfter && (!punctAfter || spaceBefore || punctBefore);
  const right = !spaceBefore && (!punctBefore || spaceAfter || punctAfter);
  const intraword = char === "_";
  return {
    t: "delimiter",
    char,
    count,
    length: count,
    opens: intraword ? left && (!right || punctBefore) : left,
    closes: intraword ? right && (!left || punctAfter) : right,
  };
}

// CommonMark's "process emphasis": each closer, left to right, takes the nearest opener of its
// character that the rule of three allows; what lies between them becomes an em (one
// delimiter from each side) or a strong (two). Runs left over are literal text.
function resolve(items) {
  let closer = 0;
  while (closer < items.length) {
    const close = items[closer];
    if (close.t !== "delimiter" || !close.closes) {
      closer += 1;
      continue;
    }
    const opener = findOpener(items, closer);
    if (opener < 0) {
      closer += 1;
      continue;
    }
    const open = items[opener];
    const used = open.count >= 2 && close.count >= 2 ? 2 : 1;
    open.count -= used;
    close.count -= used;
    const inner = items.splice(opener + 1, closer - opener - 1, null);
    items[opener + 1] = { t: used === 2 ? "strong" : "em", c: literal(inner) };
    closer = opener + 2;
    if (open.count === 0) {
      items.splice(opener, 1);
      closer -= 1;
    }
    if (close.count === 0) items.splice(closer, 1);
  }
  return literal(items);
}

function findOpener(items, closer) {
  const close = items[closer];
  for (let i = closer - 1; i >= 0; i -= 1) {
    const open = items[i];
    if (open.t !== "delimiter" || open.char !== close.char || !open.opens || open.count === 0) {
      continue;
    }
    const either = open.closes || close.opens;
    const sum = open.length + close.length;
    if (either && sum % 3 === 0 && !(open.length % 3 === 0 && close.length % 3 === 0)) continue;
    return i;
  }
  return -1;
}

// Delimiters no emphasis took become their characters; neighbouring text merges.
function literal(items) {
  const nodes = [];
  for (const item of items) {
    const node = item.t === "delimiter" ? { t: "text", v: item.char.repeat(item.count) } : item;
    if (node.t === "text" && node.v === "") continue;
    const last = nodes[nodes.length - 1];
    if (node.t === "text" && last?.t === "text") last.v += node.v;
    else nodes.push(node);
  }
  return nodes;
}
