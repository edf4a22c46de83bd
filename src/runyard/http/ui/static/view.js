// The transcript: one RunView per run — the user's message, then the agent activity tree as
// the seed draws it (orchestrator at the root; collapsible sub-agents with role and result;
// tool calls with arguments, results and errors; reasoning collapsed). Views are keyed and
// updated in place, so a card being filled in or a branch someone opened survives every delta.
// Every view gets the page's `ctx`: answer(requestId, body) for the cards, and blocks (a
// BlockRenderer) for content blocks.

import { ConfirmationCard } from "./cards.js";
import { h, prettyJson, shortJson, spinner } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { reasonText } from "./reasons.js";
import { toolCall } from "./tree.js";

const TASK_MARKS = { pending: "○", in_progress: "◐", completed: "●", failed: "✕" };
const NO_BLOCKS = [];
const PLAN_TOOL = "plan";
const TASK_WORDS = { pending: "pending", in_progress: "in progress", completed: "done", failed: "failed" };

export class RunView {
  constructor(run, ctx) {
    this.ctx = ctx;
    this.user = h("div", { class: "bubble user-text" });
    this.userBlocks = h("div", { class: "user-blocks" });
    this.shownBlocks = null;
    this.agentSlot = h("div", { class: "assistant" });
    this.footer = h("p", { class: "run-footer" });
    this.el = h(
      "article",
      { class: "run", dataset: { runId: run.runId }, "aria-label": "Message and answer" },
      h("div", { class: "user" }, h("span", { class: "who" }, "You"), h("div", { class: "user-said" }, this.user, this.userBlocks)),
      this.agentSlot,
      this.footer,
    );
    this.root = null;
    this.update(run);
  }

  update(run) {
    const said = run.user ? run.user.content : "";
    if (this.user.textContent !== said) this.user.textContent = said;
    this.user.hidden = !said;
    const blocks = run.user ? run.user.blocks : NO_BLOCKS;
    if (blocks !== this.shownBlocks) {
      this.shownBlocks = blocks;
      this.userBlocks.replaceChildren(...(blocks.length ? [this.ctx.blocks.render(blocks)] : []));
    }
    this.user.closest(".user").hidden = !run.user;
    if (run.tree && (!this.root || this.root.agentId !== run.tree.agentId)) {
      this.root = new AgentView(run.tree, this.ctx, true);
      this.agentSlot.replaceChildren(this.root.el);
    }
    if (this.root) this.root.update(run.tree);
    this.footer.textContent = footerText(run);
    this.el.dataset.state = run.streaming ? "streaming" : (run.finish && run.finish.status) || "done";
  }
}

// How the run ended, and its tokens. A failure's words are the alert in its tree (one display
// per failed run); the footer repeats them only for a run that has no tree to show them in.
function footerText(run) {
  if (run.streaming || !run.finish) return "";
  const { status, reason, usage } = run.finish;
  const tokens = usage && usage.totalTokens ? ` · ${usage.totalTokens} tokens` : "";
  if (status === "cancelled") return `${cancelledText(reason)}${tokens}`;
  if (status === "error") return `Failed${reason && !run.tree ? `: ${reasonText(reason)}` : ""}${tokens}`;
  return tokens ? `Done${tokens}` : "";
}

function cancelledText(reason) {
  const said = reason ? reasonText(reason) : "Cancelled";
  return said === "Cancelled" ? said : `Cancelled: ${said}`;
}

// The checklist a run shows is the one it wrote: the thread's plan, which the server repeats at
// the start of every later run (a tasks-update before any call), stays with the run that made it.
function ownTasks(node) {
  return node.toolCalls.some((call) => call.toolName === PLAN_TOOL) ? node.tasks : null;
}

class AgentView {
  constructor(node, ctx, isRoot) {
    this.agentId = node.agentId;
    this.ctx = ctx;
    this.isRoot = isRoot;
    this.entries = [];
    this.body = h("div", { class: "agent-body" });
    this.tasks = h("ol", { class: "tasks", "aria-label": "Tasks" });
    this.problem = h("div", { class: "event-error", role: "alert" });
    this.outcome = h("p", { class: "agent-outcome" });
    if (isRoot) {
      this.heading = h("span", { class: "agent-name" });
      this.el = h("section", { class: "agent root", dataset: { agentId: node.agentId } },
        h("div", { class: "agent-head" }, this.heading), this.tasks, this.body, this.problem, this.outcome);
    } else {
      this.heading = h("span", { class: "agent-name" });
      this.details = h("details", { class: "agent sub", open: true, dataset: { agentId: node.agentId } },
        h("summary", {}, this.heading), this.tasks, this.body, this.problem, this.outcome);
      this.el = this.details;
    }
  }

  update(node) {
    this.heading.replaceChildren(...this.headline(node));
    this.syncTimeline(node);
    this.renderTasks(ownTasks(node));
    const error = this.problemText(node);
    this.problem.textContent = error ? `⚠ ${error}` : "";
    this.problem.hidden = !error;
    this.outcome.replaceChildren(...this.outcomeLine(node));
    this.el.dataset.status = node.status;
  }

  // What went wrong, said once: the error event's words, else (the root of a failed run) the
  // run-finish reason.
  problemText(node) {
    if (node.errorDetails && node.errorDetails.content) return node.errorDetails.content;
    return this.isRoot && node.status === "error" && node.error ? reasonText(node.error) : "";
  }

  headline(node) {
    const chosen = this.isRoot ? node.chosen : undefined;
    const name = chosen ? chosen.id : this.isRoot ? "Orchestrator" : `Sub-agent (${node.role})`;
    const parts = [h("span", { "aria-hidden": "true" }, "◆ "), h("strong", { class: "chosen-agent" }, name)];
    if (chosen && chosen.version) {
      parts.push(h("span", { class: "muted agent-version", title: chosen.version }, ` · ${chosen.version.slice(0, 12)}`));
    }
    if (!this.isRoot && node.tools && node.tools.length) parts.push(h("span", { class: "muted" }, ` · tools: ${node.tools.join(", ")}`));
    if (node.status === "active") parts.push(" ", spinner(`${name} is working`));
    else if (!this.isRoot) parts.push(h("span", { class: `badge ${node.status}` }, node.status));
    return parts;
  }

  outcomeLine(node) {
    if (this.isRoot || node.status === "active") return [];
    if (node.status === "completed") {
      // The result is usually the sub-agent's last words, already shown above it.
      const said = node.result && node.result.trim() !== node.textContent.trim() ? node.result : "Done";
      return [h("span", { "aria-hidden": "true" }, "✓ "), said];
    }
    if (node.status === "cancelled") return [h("span", { "aria-hidden": "true" }, "■ "), "Cancelled"];
    const shown = !this.problem.hidden; // the alert above already says what went wrong
    return [h("span", { "aria-hidden": "true" }, "✗ "), shown ? "Failed" : node.error || node.result || "Failed"];
  }

  syncTimeline(node) {
    node.timeline.forEach((entry, index) => {
      let view = this.entries[index];
      if (view && !view.matches(entry)) {
        // The history was rewritten (cannot happen live; a reload rebuilds): start over.
        this.entries = [];
        this.body.replaceChildren();
        view = undefined;
      }
      if (!view) {
        view = this.entryView(entry);
        this.entries[index] = view;
        this.body.append(view.el);
      }
      view.update(node, entry);
    });
  }

  entryView(entry) {
    switch (entry.type) {
      case "text":
        return new TextView();
      case "reasoning":
        return new ReasoningView();
      case "content":
        return new ContentView(this.ctx.blocks);
      case "tool-call":
        return new ToolCallView(entry.toolCallId, this.ctx);
      default:
        return new ChildView(entry.agentId, this.ctx);
    }
  }

  renderTasks(tasks) {
    this.tasks.hidden = !tasks || !tasks.length;
    if (!tasks) return;
    const key = JSON.stringify(tasks);
    if (this.tasks.dataset.key === key) return;
    this.tasks.dataset.key = key;
    this.tasks.replaceChildren(
      ...tasks.map((task) =>
        h("li", { dataset: { status: task.status } },
          h("span", { class: "task-mark", "aria-hidden": "true" }, TASK_MARKS[task.status] || "○"),
          ` ${task.description} `,
          h("span", { class: "visually-hidden" }, `(${TASK_WORDS[task.status] || task.status})`),
          task.detail ? h("span", { class: "muted" }, ` — ${task.detail}`) : null),
      ),
    );
  }
}

class TextView {
  constructor() {
    this.el = h("div", { class: "answer markdown" });
    this.shown = null;
  }

  matches(entry) {
    return entry.type === "text";
  }

  update(_node, entry) {
    if (entry.content === this.shown) return;
    this.shown = entry.content;
    this.el.replaceChildren(renderMarkdown(entry.content));
  }
}

// Whole content blocks where the agent (or one of its tools) produced them.
class ContentView {
  constructor(renderer) {
    this.renderer = renderer;
    this.el = h("div", { class: "content" });
    this.shown = null;
  }

  matches(entry) {
    return entry.type === "content";
  }

  update(_node, entry) {
    if (entry.blocks === this.shown) return; // blocks arrive whole: nothing changes afterwards
    this.shown = entry.blocks;
    this.el.replaceChildren(this.renderer.render(entry.blocks));
  }
}

class ReasoningView {
  constructor() {
    this.text = h("div", { class: "reasoning-text" });
    this.preview = h("span", { class: "muted" });
    this.el = h("details", { class: "reasoning" },
      h("summary", {}, h("span", { "aria-hidden": "true" }, "✎ "), "Reasoning ", this.preview), this.text);
  }

  matches(entry) {
    return entry.type === "reasoning";
  }

  update(_node, entry) {
    if (this.text.textContent === entry.content) return;
    this.text.textContent = entry.content;
    this.preview.textContent = shortJson(entry.content, 60).replace(/^"|"$/g, "");
  }
}

class ToolCallView {
  constructor(toolCallId, ctx) {
    this.toolCallId = toolCallId;
    this.answer = ctx.answer;
    this.card = null;
    this.summary = h("summary", {});
    this.args = h("pre", { class: "json" });
    this.outcome = h("pre", { class: "json" });
    this.details = h("details", { class: "tool-details" }, this.summary,
      h("div", { class: "tool-part" }, h("h5", {}, "Arguments"), this.args),
      h("div", { class: "tool-part outcome" }, h("h5", {}, "Result"), this.outcome));
    this.cardSlot = h("div", { class: "card-slot" });
    this.el = h("div", { class: "tool", dataset: { toolCallId } }, this.details, this.cardSlot);
  }

  matches(entry) {
    return entry.type === "tool-call" && entry.toolCallId === this.toolCallId;
  }

  update(node, _entry) {
    const call = toolCall(node, this.toolCallId);
    if (!call) return;
    this.el.dataset.state = call.isLoading ? "loading" : call.error !== undefined ? "error" : "done";
    this.summary.replaceChildren(...this.line(call));
    this.args.textContent = prettyJson(call.args);
    const settled = !call.isLoading;
    this.outcome.parentElement.hidden = !settled;
    this.outcome.previousSibling.textContent = call.error !== undefined ? "Error" : "Result";
    this.outcome.textContent = call.error !== undefined ? call.error : prettyJson(call.result ?? null);
    if (call.confirmation && !this.card) {
      this.card = new ConfirmationCard(call, this.answer);
      this.cardSlot.append(this.card.el);
    }
    if (this.card) this.card.update(call);
  }

  line(call) {
    const parts = [h("span", { "aria-hidden": "true" }, "⚙ "), h("code", { class: "tool-name" }, call.toolName), " ",
      h("span", { class: "muted tool-args" }, shortJson(call.args, 60))];
    if (call.isLoading) parts.push(" ", spinner(call.confirmation ? "waiting for your answer" : "running"));
    else if (call.error !== undefined) parts.push(" → ", h("span", { class: "tool-error" }, `error: ${call.error}`));
    else parts.push(" → ", h("span", { class: "tool-result" }, shortJson(call.result ?? null, 60)));
    return parts;
  }
}

class ChildView {
  constructor(agentId, ctx) {
    this.agentId = agentId;
    this.view = null;
    this.ctx = ctx;
    this.el = h("div", { class: "child" });
  }

  matches(entry) {
    return entry.type === "child" && entry.agentId === this.agentId;
  }

  update(node, _entry) {
    const child = node.children.find((c) => c.agentId === this.agentId);
    if (!child) return;
    if (!this.view) {
      this.view = new AgentView(child, this.ctx, false);
      this.el.append(this.view.el);
    }
    this.view.update(child);
  }
}
