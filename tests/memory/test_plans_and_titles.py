"""Plans kept per thread, and thread titles generated once."""

from __future__ import annotations

import pytest
from memory_support import ALICE
from pydantic import ValidationError

from runyard.agent import Agent
from runyard.memory import Memory, Plan, PlanTask, TitleConfig
from runyard.runtime import MemoryScope
from runyard.storage import Store
from runyard.testing import scripted_model, text


async def test_a_plan_is_saved_and_read_back_typed(store: Store) -> None:
    memory = Memory(store)
    plan = Plan(
        goal="Ship the report",
        phase="building",
        iteration=2,
        tasks=[
            PlanTask(id="1", description="Collect data", status="completed"),
            PlanTask(id="2", description="Write it", status="in_progress"),
        ],
    )
    assert await memory.get_plan(ALICE) is None

    assert await memory.save_plan(ALICE, plan) == plan
    assert await memory.get_plan(ALICE) == plan

    replaced = plan.model_copy(update={"tasks": [PlanTask(id="3", description="Review")]})
    await memory.save_plan(ALICE, replaced)
    stored = await memory.get_plan(ALICE)
    assert stored is not None
    assert [(t.id, t.status) for t in stored.tasks] == [("3", "pending")]


async def test_plans_are_private_to_their_thread_and_owner(store: Store) -> None:
    memory = Memory(store)
    await memory.save_plan(ALICE, Plan(goal="alice's"))

    assert await memory.get_plan(MemoryScope("t-alice", "bob")) is None
    assert await memory.get_plan(MemoryScope("t-alice", "alice", "other-tenant")) is None
    assert await memory.get_plan(MemoryScope("t-other", "alice")) is None


def test_a_task_status_outside_the_four_is_refused() -> None:
    with pytest.raises(ValidationError):
        PlanTask(id="1", description="x", status="done")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [{"phase": "shipping"}, {"iteration": -1}, {"iteration": True}, {"iteration": "2"}],
    ids=["unknown-phase", "negative-iteration", "bool-iteration", "text-iteration"],
)
def test_a_phase_outside_the_cycle_or_an_iteration_that_is_no_count_is_refused(
    fields: dict[str, object],
) -> None:
    with pytest.raises(ValidationError, match=next(iter(fields))):
        Plan.model_validate({"goal": "ship", **fields})


async def test_a_title_is_generated_once_and_stored(store: Store) -> None:
    model = scripted_model(
        [text("Here is the plan."), text("Trip to Lisbon"), text("Sure, more days.")]
    )
    memory = Memory(store, title_generation=True)
    agent = Agent("a", model, memory=memory)
    assert memory.generates_titles

    await agent.generate(
        "Plan a four day trip to Lisbon for me", thread_id="t-alice", resource_id="alice"
    )
    await agent.wait_background()
    await agent.generate(
        "Make it five days and add a day trip to Sintra", thread_id="t-alice", resource_id="alice"
    )
    await agent.wait_background()

    assert await memory.get_title(ALICE) == "Trip to Lisbon"
    assert model.remaining == 0  # one title call, not two
    assert await memory.get_title(MemoryScope("t-alice", "bob")) is None


async def test_titles_are_off_by_default_and_a_title_model_can_be_named(store: Store) -> None:
    assert not Memory(store).generates_titles
    named = Memory(store, title_generation=TitleConfig(model=scripted_model([])))
    assert named.generates_titles
    assert named.title_model is not None
