// Confirmation cards: the question a waiting tool call asks, rendered by its inputType
// (approval, text, questions, plan-review, domain access, resource-decision, continue), answered
// with POST /v1/confirm/{requestId}. A card locks once answered — here, or elsewhere, which the
// call's tool-result or tool-error on the event stream tells.

import { h, uid } from "./dom.js";

const DECISIONS = { denyOnce: "Deny", allowOnce: "Allow once", allowForSession: "Allow for this session" };

export class ConfirmationCard {
  constructor(call, answer) {
    this.question = call.confirmation;
    this.answer = answer;
    this.locked = false;
    const titleId = uid("card-title");
    this.status = h("p", { class: "card-status", role: "status" });
    this.body = h("div", { class: "card-body" });
    this.el = h(
      "section",
      { class: `card severity-${this.question.severity || "warning"}`, role: "group", "aria-labelledby": titleId, dataset: { requestId: this.question.requestId } },
      h("h4", { id: titleId, class: "card-title" }, this.question.message),
      this.question.introMessage ? h("p", { class: "card-intro" }, this.question.introMessage) : null,
      this.body,
      this.status,
    );
    this.build();
    this.update(call);
  }

  build() {
    const q = this.question;
    if (q.domainAccess) return this.domainAccess(q.domainAccess);
    switch (q.inputType) {
      case "text":
        return this.text();
      case "questions":
        return q.questions && q.questions.length ? new QuestionWizard(this, q.questions) : this.approval();
      case "plan-review":
        return this.planReview(q.tasks || []);
      case "resource-decision":
        return q.resourceDecision ? this.resourceDecision(q.resourceDecision) : this.approval();
      case "continue":
        return this.body.append(this.button("Continue", "primary", () => this.submit({ approved: true }, "Continued")));
      default:
        return this.approval();
    }
  }

  approval() {
    const reasonId = uid("reason");
    const reason = h("input", { id: reasonId, type: "text", autocomplete: "off" });
    this.body.append(
      h("label", { for: reasonId }, "Reason (optional, sent with a denial)"),
      reason,
      this.actions(
        this.button("Approve", "primary", () => this.submit({ approved: true }, "Approved")),
        this.button("Deny", "danger", () => this.submit(withText({ approved: false }, "reason", reason.value), "Denied")),
      ),
    );
  }

  domainAccess({ url, host }) {
    this.body.append(
      h("p", {}, "This tool wants to reach ", h("strong", {}, host), ":"),
      h("p", {}, h("code", { class: "url" }, url)),
      this.actions(
        this.button(`Allow ${host}`, "primary", () => this.submit({ approved: true }, `Allowed ${host}`)),
        this.button("Deny", "danger", () => this.submit({ approved: false }, "Denied")),
      ),
    );
  }

  text() {
    const inputId = uid("answer");
    const input = h("textarea", { id: inputId, rows: 2 });
    this.body.append(
      h("label", { for: inputId }, "Your answer"),
      input,
      this.actions(
        this.button("Send answer", "primary", () => {
          if (!input.value.trim()) return this.problem("Write an answer first, or decline.");
          return this.submit({ approved: true, userInput: input.value }, "Answered");
        }),
        this.button("Decline", "danger", () => this.submit({ approved: false }, "Declined")),
      ),
    );
  }

  planReview(tasks) {
    const feedbackId = uid("feedback");
    const feedback = h("textarea", { id: feedbackId, rows: 2 });
    this.body.append(
      h("ol", { class: "tasks plan" }, tasks.map((task) => h("li", { dataset: { status: task.status } }, task.description))),
      h("label", { for: feedbackId }, "What to change (sent back with the plan)"),
      feedback,
      this.actions(
        this.button("Approve plan", "primary", () => this.submit({ approved: true }, "Plan approved")),
        this.button("Send back", "danger", () => this.submit(withText({ approved: false }, "userInput", feedback.value), "Sent back")),
      ),
    );
  }

  resourceDecision(decision) {
    this.body.append(
      h("p", {}, decision.description),
      this.actions(
        decision.options.map((option) =>
          this.button(DECISIONS[option] || option, option === "denyOnce" ? "danger" : "primary", () =>
            this.submit({ approved: option !== "denyOnce", resourceDecision: option }, DECISIONS[option] || option),
          ),
        ),
      ),
    );
  }

  actions(...buttons) {
    return h("div", { class: "card-actions" }, ...buttons);
  }

  button(label, kind, onclick) {
    return h("button", { type: "button", class: kind, onclick }, label);
  }

  problem(text) {
    this.status.textContent = text;
    this.status.classList.add("error-text");
  }

  async submit(body, outcome) {
    if (this.locked) return;
    this.setDisabled(true);
    this.status.classList.remove("error-text");
    this.status.textContent = "Sending…";
    try {
      await this.answer(this.question.requestId, body);
      this.lock(outcome);
    } catch (error) {
      if (error.status === 409) this.lock("Already answered");
      else if (error.status === 410) this.lock("Expired: the run waited too long and has ended");
      else {
        this.setDisabled(false);
        this.problem(`Not sent: ${error.message}`);
      }
    }
  }

  // The call settled: whoever answered, the card is done.
  update(call) {
    if (call.isLoading || this.locked) return;
    if (call.error !== undefined) this.lock(call.error === "denied" ? "Denied" : `Ended: ${call.error}`);
    else this.lock("Answered");
  }

  lock(outcome) {
    this.locked = true;
    this.setDisabled(true);
    this.status.classList.remove("error-text");
    this.status.textContent = outcome;
    this.el.classList.add("answered");
  }

  setDisabled(disabled) {
    for (const control of this.el.querySelectorAll("button, input, textarea, select")) control.disabled = disabled || this.locked;
  }
}

function withText(body, field, value) {
  return value.trim() ? { ...body, [field]: value.trim() } : body;
}

// The questions of inputType "questions", one at a time.
class QuestionWizard {
  constructor(card, questions) {
    this.card = card;
    this.questions = questions;
    this.index = 0;
    this.answers = questions.map((q) => ({ questionId: q.id, selectedOptions: [], customText: "" }));
    this.step = h("div", { class: "wizard-step" });
    card.body.append(this.step);
    this.render();
  }

  render() {
    const question = this.questions[this.index];
    const answer = this.answers[this.index];
    const name = uid("question");
    const fieldset = h(
      "fieldset",
      {},
      h("legend", {}, `Question ${this.index + 1} of ${this.questions.length}: ${question.question}`),
      ...(question.type === "text" ? [] : this.options(question, answer, name)),
      this.freeText(question, answer),
    );
    const last = this.index === this.questions.length - 1;
    this.step.replaceChildren(
      fieldset,
      this.card.actions(
        this.index > 0 ? this.card.button("Back", "", () => this.move(-1)) : null,
        last
          ? this.card.button("Submit answers", "primary", () => this.card.submit({ approved: true, answers: this.collect() }, "Answered"))
          : this.card.button("Next", "primary", () => this.move(1)),
        this.card.button("Decline", "danger", () => this.card.submit({ approved: false }, "Declined")),
      ),
    );
    this.card.setDisabled(false);
    const first = fieldset.querySelector("input, textarea");
    if (first && this.index > 0) first.focus();
  }

  options(question, answer, name) {
    const kind = question.type === "multi" ? "checkbox" : "radio";
    return (question.options || []).map((option) => {
      const id = uid("option");
      const input = h("input", { id, type: kind, name, value: option, checked: answer.selectedOptions.includes(option) });
      input.addEventListener("change", () => {
        const picked = [...this.step.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
        answer.selectedOptions = picked;
      });
      return h("div", { class: "option" }, input, h("label", { for: id }, option));
    });
  }

  freeText(question, answer) {
    const id = uid("custom");
    const input = h("input", { id, type: "text", value: answer.customText, autocomplete: "off" });
    input.addEventListener("input", () => {
      answer.customText = input.value;
    });
    const label = question.type === "text" ? "Your answer" : "Another answer (optional)";
    return h("div", { class: "custom" }, h("label", { for: id }, label), input);
  }

  move(delta) {
    this.index += delta;
    this.render();
  }

  collect() {
    return this.answers.map(({ questionId, selectedOptions, customText }) => {
      const answer = { questionId, selectedOptions };
      if (customText.trim()) answer.customText = customText.trim();
      if (!selectedOptions.length && !customText.trim()) answer.skipped = true;
      return answer;
    });
  }
}
