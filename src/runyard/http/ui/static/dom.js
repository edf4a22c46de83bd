// h(): build an element. Attributes are set as properties or attributes, never as HTML;
// children are nodes or strings (strings become text nodes).

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

let counter = 0;

// A document-unique id, for label/aria links.
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

// JSON for people: short values inline, the rest pretty-printed.
export function shortJson(value, limit = 80) {
  const text = value === undefined ? "" : JSON.stringify(value);
  if (text === undefined) return "";
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

export function prettyJson(value) {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

export function spinner(label) {
  return h("span", { class: "spinner", role: "img", "aria-label": label });
}
