// The API key (RUNYARD_AUTH=keys): the field that asks for one on the first 401, the page kept
// unusable behind it until one is accepted, whom the accepted key acts for (GET /v1/me), and
// forgetting it. The page says what accepting and forgetting mean for it: `accept()` loads
// with the key (false: refused), `forgotten()` clears what the key showed, `locked()` stops
// what needed it.

const $ = (id) => document.getElementById(id);

export class KeyGate {
  constructor(api, { accept, forgotten, locked }) {
    this.api = api;
    this.accept = accept;
    this.forgotten = forgotten;
    this.locked = locked;
    $("key-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.use($("key-input").value.trim());
    });
    $("forget-key").addEventListener("click", () => this.forget());
  }

  // Ask for a key. Behind the field nothing else can be used (inert: no clicks, no focus,
  // nothing for a screen reader) until one is accepted.
  ask() {
    $("key-form").hidden = false;
    $("key-error").textContent = this.api.key ? "That key was not accepted." : "";
    $("layout").inert = true;
    $("signed-in").hidden = true;
    this.locked();
    $("key-input").focus();
  }

  async use(key) {
    this.api.setKey(key);
    $("key-error").textContent = "";
    if (!(await this.accept())) return;
    $("key-form").hidden = true;
    $("layout").inert = false;
  }

  // Whom the page acts for: the user and tenant, and with keys the key's public id (what
  // `runyard keys list` shows, never the key) and a way to forget it. Nothing to say without
  // authentication, where everyone is "default".
  show(me) {
    $("signed-in").hidden = me.auth === "none";
    $("who").textContent = `${me.user} (${me.tenant})`;
    $("key-id").textContent = me.keyId || "";
    $("key-id").hidden = !me.keyId;
    $("forget-key").hidden = me.auth !== "keys";
  }

  // Out of the tab's storage, and back to the field.
  forget() {
    this.api.setKey("");
    $("key-input").value = "";
    this.forgotten();
    this.ask();
  }
}
