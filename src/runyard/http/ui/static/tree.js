// Runs and their agent activity trees, in the shape GET /v1/threads/{id}/messages returns
// (AgentNode, docs/protocol.md), kept up to date by folding each live event into them the way
// runyard.protocol's AgentTreeBuilder does. So a reloaded page and a live one hold the same data.

export function newRun(runId) {
  return { runId, user: null, tree: null, streaming: true, finish: null, agents: new Map() };
}

// The runs of a /messages page, oldest first.
export function runsFromHistory(messages) {
  const runs = new Map();
  for (const message of messages) {
    const runId = message.runId || message.id;
    if (!runs.has(runId)) runs.set(runId, newRun(runId));
    const run = runs.get(runId);
    if (message.role === "user") {
      run.user = userMessage(message);
    } else if (message.agentTree) {
      run.tree = message.agentTree;
      if (message.agent) run.tree.chosen = message.agent;
      run.streaming = Boolean(message.isStreaming);
      if (!run.streaming) run.finish = { status: message.agentTree.status, usage: message.usage };
      indexAgents(run, run.tree);
    }
  }
  for (const run of runs.values()) if (!run.tree) run.streaming = false;
  return runs;
}

// What the user said: the text, and the content blocks sent with it (attachments).
export function userMessage(message) {
  return { content: message.content, blocks: message.blocks || [], createdAt: message.createdAt };
}

function indexAgents(run, node) {
  run.agents.set(node.agentId, node);
  for (const child of node.children || []) indexAgents(run, child);
}

function newNode(agentId, role) {
  return {
    agentId,
    role,
    status: "active",
    textContent: "",
    reasoning: "",
    toolCalls: [],
    children: [],
    timeline: [],
  };
}

export function toolCall(node, toolCallId) {
  return node.toolCalls.find((call) => call.toolCallId === toolCallId);
}

// Fold one wire event into its run; returns false for events that say nothing about the tree.
export function applyEvent(run, event) {
  const agent = run.agents.get(event.agentId);
  const p = event.payload || {};
  switch (event.type) {
    case "run-start":
    case "run-resumed":
      openRoot(run, event.agentId);
      // The catalog agent routing chose, by id and version (absent without a catalog).
      if (p.agentId) run.tree.chosen = { id: p.agentId, version: p.version };
      run.streaming = true;
      run.finish = null;
      return true;
    case "run-finish":
      finish(run, p);
      return true;
    case "text-delta":
    case "reasoning-delta":
      if (agent) stream(agent, event.type === "text-delta" ? "text" : "reasoning", p.text);
      return Boolean(agent);
    case "content":
      if (!agent) return false;
      agent.blocks = [...(agent.blocks || []), ...p.blocks];
      agent.timeline.push({ type: "content", blocks: p.blocks });
      return true;
    case "tool-call":
      if (!agent) return false;
      if (!toolCall(agent, p.toolCallId)) agent.timeline.push({ type: "tool-call", toolCallId: p.toolCallId });
      agent.toolCalls = agent.toolCalls.filter((call) => call.toolCallId !== p.toolCallId);
      agent.toolCalls.push({ toolCallId: p.toolCallId, toolName: p.toolName, args: p.args || {}, isLoading: true });
      return true;
    case "tool-result":
    case "tool-error":
      return settle(agent, event.type, p);
    case "confirmation-request":
      return confirmation(agent, p);
    case "agent-spawned":
      return spawn(run, event.agentId, p);
    case "agent-completed":
      if (!agent) return false;
      agent.status = p.status || (p.error !== undefined ? "error" : "completed");
      agent.result = p.result;
      if (p.error !== undefined) agent.error = p.error;
      return true;
    case "tasks-update":
      if (agent) agent.tasks = p.tasks;
      return Boolean(agent);
    case "status":
      if (agent) agent.statusMessage = p.message || undefined;
      return Boolean(agent);
    case "error":
      if (agent) agent.errorDetails = p;
      return Boolean(agent);
    default:
      return false;
  }
}

function openRoot(run, agentId) {
  if (!run.tree) run.tree = newNode(agentId, "orchestrator");
  if (!run.agents.has(agentId)) run.agents.set(agentId, run.tree);
  run.tree.status = "active";
}

function finish(run, payload) {
  run.streaming = false;
  run.finish = payload;
  const root = run.tree;
  if (!root) return;
  root.status = payload.status;
  if (payload.status === "cancelled") root.cancellationReason = payload.reason;
  else if (payload.status === "error") root.error = payload.reason;
  if (payload.status !== "completed") end(root, payload.status);
}

function end(node, status) {
  if (node.status === "active") node.status = status;
  for (const call of node.toolCalls) call.isLoading = false;
  for (const child of node.children) end(child, status);
}

function stream(agent, kind, text) {
  if (kind === "text") agent.textContent += text;
  else agent.reasoning += text;
  const last = agent.timeline[agent.timeline.length - 1];
  if (last && last.type === kind) last.content += text;
  else agent.timeline.push({ type: kind, content: text });
}

function settle(agent, type, payload) {
  const call = agent && toolCall(agent, payload.toolCallId);
  if (!call) return false;
  if (type === "tool-result") call.result = payload.result;
  else call.error = payload.error;
  call.isLoading = false;
  return true;
}

function confirmation(agent, payload) {
  const call = agent && toolCall(agent, payload.toolCallId);
  if (!call) return false;
  const { toolCallId, toolName, args, ...question } = payload;
  call.confirmation = question;
  return true;
}

function spawn(run, agentId, payload) {
  const parent = run.agents.get(payload.parentId);
  if (!parent || run.agents.has(agentId)) return false;
  const { parentId, ...spawned } = payload;
  const child = { ...newNode(agentId, payload.role), ...spawned };
  parent.children.push(child);
  parent.timeline.push({ type: "child", agentId });
  run.agents.set(agentId, child);
  return true;
}

// The tool calls that wait for the user, across the whole tree.
export function pendingQuestions(node, found = []) {
  if (!node) return found;
  for (const call of node.toolCalls) if (call.confirmation && call.isLoading) found.push(call);
  for (const child of node.children) pendingQuestions(child, found);
  return found;
}
