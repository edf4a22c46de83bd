// An image at full size, over the page: a modal <dialog> (Esc, the close button or a click
// outside the image closes it). In the page rather than a new tab, since a tab cannot open the
// data: URL of an inline image, and a blob: URL dies with the transcript.

import { h } from "./dom.js";

let dialog = null;

function lightbox() {
  if (dialog) return dialog;
  const picture = h("img", { class: "lightbox-image", alt: "" });
  const close = h("button", { type: "button", class: "lightbox-close", "aria-label": "Close" }, "✕");
  dialog = h("dialog", { class: "lightbox", "aria-label": "Image at full size" }, close, picture);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close(); // the backdrop, not the image
  });
  dialog.addEventListener("close", () => picture.removeAttribute("src"));
  document.body.append(dialog);
  return dialog;
}

export function showFullSize(src, alt) {
  const box = lightbox();
  const picture = box.querySelector("img");
  picture.src = src;
  picture.alt = alt;
  box.showModal();
}
