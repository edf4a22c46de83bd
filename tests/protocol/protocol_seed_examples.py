"""Every JSON example of the streaming-protocol seed, verbatim, plus one of each type it lacks."""

from __future__ import annotations

from typing import Any

SEED_EXAMPLES: list[str] = [
    '{ "type": "run-start", "runId": "run_abc123", "agentId": "agent-001", "payload": { "messageId": "msg_xyz" } }',
    '{"type":"text-delta","runId":"run_abc123","agentId":"agent-001","payload":{"text":"You have 3 active workflows."}}',
    '{"type":"reasoning-delta","runId":"run_abc123","agentId":"agent-001","payload":{"text":"Let me check the workflow list..."}}',
    '{ "type": "tool-call", "runId": "run_abc123", "agentId": "agent-001", "payload": { "toolCallId": "tc_abc123", "toolName": "list-workflows", "args": {"limit": 10} } }',
    '{ "type": "tool-result", "runId": "run_abc123", "agentId": "agent-001", "payload": { "toolCallId": "tc_abc123", "result": {"workflows": [{"id": "1", "name": "My Workflow", "active": true}]} } }',
    '{ "type": "tool-error", "runId": "run_abc123", "agentId": "agent-001", "payload": { "toolCallId": "tc_abc123", "error": "Workflow not found" } }',
    '{ "type": "agent-spawned", "runId": "run_abc123", "agentId": "agent-002", "payload": { "parentId": "agent-001", "role": "workflow builder", "tools": ["create-workflow", "update-workflow", "list-nodes", "get-node-description"] } }',
    '{ "type": "agent-completed", "runId": "run_abc123", "agentId": "agent-002", "payload": { "role": "workflow builder", "result": "Created workflow wf-123 with 3 nodes" } }',
    '{ "type": "confirmation-request", "runId": "run_abc123", "agentId": "agent-001", "payload": { "requestId": "cr_xyz", "toolCallId": "tc_abc123", "toolName": "delete-workflow", "args": {"workflowId": "wf-123"}, "severity": "warning", "message": "Archive workflow \'My Workflow\'?" } }',
    '{ "type": "tasks-update", "runId": "run_abc123", "agentId": "agent-001", "payload": { "tasks": [ {"id": "t1", "description": "Build weather workflow", "status": "completed"}, {"id": "t2", "description": "Set up Slack credential", "status": "in_progress"}, {"id": "t3", "description": "Test end-to-end", "status": "pending"} ] } }',
    '{"type":"status","runId":"run_abc123","agentId":"agent-001","payload":{"message":"Searching nodes..."}}',
    '{"type":"thread-title-updated","runId":"run_abc123","agentId":"agent-001","payload":{"title":"Weather to Slack workflow"}}',
    '{"type":"error","runId":"run_abc123","agentId":"agent-001","payload":{"content":"An error occurred"}}',
    '{"type":"run-finish","runId":"run_abc123","agentId":"agent-001","payload":{"status":"completed"}}',
    '{"type":"run-finish","runId":"run_abc123","agentId":"agent-001","payload":{"status":"cancelled","reason":"user_cancelled"}}',
    '{"type":"run-finish","runId":"run_abc123","agentId":"agent-001","payload":{"status":"error","reason":"LLM provider unavailable"}}',
    # The seed has no example of this one; its fields are from the seed's reference table.
    '{"type":"filesystem-request","runId":"run_abc123","agentId":"agent-001","payload":{"requestId":"fs_1","operation":"read","args":{"path":"notes.md"}}}',
]

RICH_CONFIRMATION: dict[str, Any] = {
    "type": "confirmation-request",
    "runId": "run_1",
    "agentId": "agent-002",
    "payload": {
        "requestId": "cr_1",
        "toolCallId": "tc_1",
        "toolName": "setup-workflow",
        "args": {"workflowId": "wf-1"},
        "severity": "destructive",
        "message": "Set up the workflow?",
        "inputType": "questions",
        "questions": [
            {"id": "q1", "question": "Which channel?", "type": "single", "options": ["#a", "#b"]},
            {"id": "q2", "question": "Anything else?", "type": "text"},
        ],
        "tasks": [{"id": "t1", "description": "Build", "status": "pending"}],
        "introMessage": "A few questions first",
        "credentialRequests": [
            {
                "credentialType": "slackApi",
                "reason": "post messages",
                "existingCredentials": [{"id": "c1", "name": "Work Slack"}],
                "suggestedName": "Slack",
            }
        ],
        "credentialFlow": {"stage": "finalize"},
        "setupRequests": [{"node": "Slack", "parameters": {"channel": None}}],
        "workflowId": "wf-1",
        "projectId": "p-1",
        "domainAccess": {"url": "https://api.example.com/v1", "host": "api.example.com"},
    },
}
