"""A workflow of a user's own, as docs/temporal.md writes one: it calls the agent step by name
and imports runyard's types through the sandbox."""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from runyard.temporal import AGENT_STEP, AgentStepInput, AgentStepOutput


@workflow.defn
class Triage:
    @workflow.run
    async def run(self, ticket: str) -> str:
        step = AgentStepInput(
            thread_id=f"triage-{workflow.info().workflow_id}",
            message=f"Triage this ticket: {ticket}",
            idempotency_key=f"{workflow.info().workflow_id}/triage",
        )
        output = await workflow.execute_activity(
            AGENT_STEP,
            step,
            result_type=AgentStepOutput,
            start_to_close_timeout=timedelta(minutes=10),
            heartbeat_timeout=timedelta(seconds=30),
        )
        return output.text
