"""``CatalogAgents``: the bundled examples compile; each version is compiled once; memory and
limits follow the spec; what the runtime cannot do yet is refused or logged, never pretended."""

from __future__ import annotations

import asyncio
import logging
import math
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.memory import Memory
from runyard.registry import load_catalog
from runyard.service import (
    AgentChoice,
    AgentLimits,
    AgentRequest,
    AgentVersionNotFound,
    AgentVersionUnavailable,
    CatalogAgents,
    FixedAgents,
    UnknownAgent,
    catalog_tool_names,
)
from runyard.storage import Store

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "agents"


def agents_of(path: Path, store: Store, settings: Settings | None = None) -> CatalogAgents:
    load = load_catalog(path, known_tools=catalog_tool_names())
    assert load.errors == []
    return CatalogAgents(load, store, settings or Settings(), source=str(path))


def write(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "agents.yaml"
    file.write_text(text)
    return file


async def test_the_bundled_examples_compile_and_a_tenant_gets_its_own_agent(store: Store) -> None:
    catalog = agents_of(EXAMPLES, store)
    try:
        catalog.compile_all()
        acme = catalog.choose("acme", "alice", AgentRequest("bookkeeper"), None)
        shared = catalog.choose("other", "bob", AgentRequest("bookkeeper"), None)
        served = [(a.name, a.tenant, a.default) for a in catalog.served("acme")]
        assert await catalog.agent("acme", acme) is not await catalog.agent("other", shared)
    finally:
        await catalog.aclose()

    assert acme.version != shared.version
    assert ("bookkeeper", "acme", False) in served
    assert ("bookkeeper", None, False) not in served  # acme's own takes the shared one's place


async def test_a_version_is_compiled_once_and_a_version_not_in_the_catalog_is_unavailable(
    store: Store,
) -> None:
    catalog = agents_of(EXAMPLES, store)
    try:
        choice = catalog.choose("default", "u", AgentRequest(), None)
        first = await catalog.agent("default", choice)
        again = await catalog.agent(
            "default", catalog.choose("default", "u", AgentRequest(), choice)
        )
        with pytest.raises(AgentVersionUnavailable, match="version 000000000000"):
            await catalog.agent("default", AgentChoice(choice.agent_id, "0" * 64))
        with pytest.raises(UnknownAgent, match="no agent 'ghost' for tenant 'default'"):
            catalog.choose("default", "u", AgentRequest("ghost"), None)
    finally:
        await catalog.aclose()

    assert again is first
    assert len(list(catalog.loaded())) == 1


async def test_a_request_may_pin_a_version_of_the_agent_it_names(store: Store) -> None:
    catalog = agents_of(EXAMPLES, store)
    fixed = FixedAgents({"assistant": Agent(name="assistant", model="runyard:demo")}, "assistant")
    try:
        served = catalog.choose("default", "u", AgentRequest("assistant"), None)
        pinned = catalog.choose(
            "default", "u", AgentRequest("assistant", version=served.version), None
        )
        ghost = catalog.choose("default", "u", AgentRequest("assistant", version="0" * 64), None)
        assert await catalog.agent("default", pinned) is await catalog.agent("default", served)
        with pytest.raises(AgentVersionUnavailable):
            await catalog.agent("default", ghost)
        with pytest.raises(AgentVersionNotFound):  # agents given in code have no versions
            fixed.choose("default", "u", AgentRequest("assistant", version="0" * 64), None)
    finally:
        await catalog.aclose()

    assert pinned == AgentChoice("assistant", served.version, reason="explicit")
    assert ghost.version == "0" * 64


async def test_memory_and_limits_follow_the_spec_and_the_servers_settings_fill_the_rest(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(
        tmp_path,
        """\
kind: agent
id: keeper
model: runyard:demo
instructions: Keep things.
tools: [calculator, save_note]
memory:
  last_messages: 7
  working_memory: {scope: thread, template: "# Notes"}
  semantic_recall: true
limits:
  max_iterations: 3
  tool_call_concurrency: unlimited
  timeout_s: 5
  tool_timeout_s: 2.5
  max_output_tokens: 900
  requests_per_minute: 30
output_schema: {type: object, properties: {total: {type: number}}}
---
kind: routing
default_agent: keeper
""",
    )
    catalog = agents_of(path, store, Settings(embedder_model=""))
    try:
        with caplog.at_level(logging.WARNING):
            catalog.compile_all()
        (agent,) = catalog.loaded()
        choice = catalog.choose("default", "u", AgentRequest(), None)
        limits = catalog.limits("default", choice)
    finally:
        await catalog.aclose()

    assert isinstance(agent.memory, Memory)
    assert agent.memory.last_messages == 7
    assert agent.memory.working_memory is not None
    assert agent.memory.recall is None  # no embedder in the spec, none on the server
    assert agent.memory.observational is None
    assert sorted(agent.tools) == ["calculator", "save_note"]
    spec = agent._spec  # no public view of the limits yet
    assert (spec.max_iterations, spec.timeout_s, spec.tool_timeout_s) == (3, 5, 2.5)
    assert spec.max_output_tokens == 900
    assert math.isinf(spec.tool_call_concurrency)
    assert spec.output is not None
    assert spec.output.tool.parameters == {
        "type": "object",
        "properties": {"total": {"type": "number"}},
    }
    assert limits == AgentLimits(requests_per_minute=30)
    assert "not enforced" not in caplog.text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "tools: [{name: calculator, parameters: {precision: 2}}]",
            r"agents.yaml:4: tools\[0\]: agent 'x': tool 'calculator' \(calculator\): precision: "
            "Extra inputs are not permitted",
        ),
    ],
)
async def test_what_the_runtime_cannot_do_yet_is_refused_when_compiled(
    store: Store, tmp_path: Path, extra: str, message: str
) -> None:
    path = write(tmp_path, f"kind: agent\nid: x\nmodel: runyard:demo\n{extra}\n")
    catalog = agents_of(path, store)
    try:
        with pytest.raises(ConfigurationError, match=message):
            catalog.compile_all()
    finally:
        await catalog.aclose()


FETCH = "kind: tool\nid: fetch\nfactory: http_request\nparameters: {max_response_bytes: 0}\n"


@pytest.mark.parametrize(
    ("agent", "extra", "message"),
    [
        (
            "tools: [fetch]",
            FETCH,
            r"agents.yaml:9: parameters: tool 'fetch' \(http_request\): max_response_bytes: "
            r"Input should be greater than 0 \(listed by agent 'x' at .*agents.yaml:4\)",
        ),
        (
            "tools:\n  - calculator\n  - {name: agent, parameters: {agent: y}}",
            "kind: agent\nid: y\nmodel: runyard:demo\n",
            r"agents.yaml:6: tools\[1\]: agent 'x': tool 'agent' \(agent\): agent: 'y' is not "
            r"one of the agent's sub_agents \(none\); list it there",
        ),
        (
            "tools: [{name: calculator, grant: [calculator]}]",
            "",
            r"tools\[0\]: agent 'x': 'calculator' is one tool, not a toolkit: grant does not apply",
        ),
        (
            "tools: [{name: notes, grant: [delete_note]}]",
            "",
            r"tools\[0\]: agent 'x': toolkit 'notes' has no tool 'delete_note' "
            r"\(it has list_notes, save_note\)",
        ),
        (
            "tools: [{name: task_status, parameters: {a: 1}}]",
            "",
            r"'task_status' is a built-in tool: it takes no parameters or grant",
        ),
        (
            "tools: [{name: fetch, parameters: {timeout_s: 1}}]",
            FETCH,
            r"'fetch' is a kind: tool; set its parameters there \(.*agents.yaml:6\)",
        ),
    ],
)
async def test_a_tool_that_cannot_be_built_names_the_file_line_and_field(
    store: Store, tmp_path: Path, agent: str, extra: str, message: str
) -> None:
    text = f"kind: agent\nid: x\nmodel: runyard:demo\n{agent}\n---\n{extra}"
    catalog = agents_of(write(tmp_path, text), store)
    try:
        with pytest.raises(ConfigurationError, match=message):
            catalog.compile_all()
    finally:
        await catalog.aclose()


async def test_a_tenants_own_kind_tool_takes_the_shared_ones_place_in_a_shared_agent(
    store: Store, tmp_path: Path
) -> None:
    text = """\
kind: agent
id: reader
model: runyard:demo
tools: [fetch]
---
kind: tool
id: fetch
factory: http_request
description: The shared fetch.
---
kind: tool
id: fetch
tenant: acme
factory: http_request
description: Acme's fetch.
---
kind: routing
default_agent: reader
"""
    catalog = agents_of(write(tmp_path, text), store)
    try:
        catalog.compile_all()
        acme = await catalog.agent("acme", catalog.choose("acme", "u", AgentRequest(), None))
        other = await catalog.agent("other", catalog.choose("other", "u", AgentRequest(), None))
        again = await catalog.agent("acme", catalog.choose("acme", "u", AgentRequest(), None))
    finally:
        await catalog.aclose()

    assert acme.tools["fetch"].description == "Acme's fetch."
    assert other.tools["fetch"].description == "The shared fetch."
    assert again is acme
    assert len(list(catalog.loaded())) == 2


def test_a_new_choice_replaces_every_key_of_the_threads_earlier_one() -> None:
    earlier = AgentChoice("billing", "v1", "billing-page").recorded_in({"title": "kept"})
    later = AgentChoice("support", "v2").recorded_in(earlier)

    assert earlier == {
        "title": "kept",
        "agent": "billing",
        "agentVersion": "v1",
        "ruleId": "billing-page",
    }
    assert later == {"title": "kept", "agent": "support", "agentVersion": "v2"}
    assert AgentChoice.stored(later) == AgentChoice("support", "v2", None, "thread")
    assert AgentChoice("assistant").recorded_in({}) == {"agent": "assistant"}


async def test_every_version_keeps_its_checkpoints_in_one_store(store: Store) -> None:
    catalog = agents_of(EXAMPLES, store)
    try:
        catalog.compile_all()
        stores = {id(agent.checkpoints.store) for agent in catalog.loaded()}
    finally:
        await catalog.aclose()

    assert len(list(catalog.loaded())) == 5
    assert len(stores) == 1


async def test_the_specs_model_settings_reach_the_model_as_pydantic_ai_names_them(
    store: Store, tmp_path: Path
) -> None:
    seen: list[dict[str, object]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(dict(info.model_settings or {}))
        return ModelResponse(parts=[TextPart("ok")])

    path = write(
        tmp_path,
        """\
kind: agent
id: careful
model: openai-chat:gpt-4o
model_settings:
  temperature: 0.1
  top_p: 0.5
  seed: 7
  stop_sequences: [END]
  max_tokens: 300
  openai_reasoning_effort: low
""",
    )
    load = load_catalog(path, known_tools=catalog_tool_names())
    assert load.errors == []
    catalog = CatalogAgents(
        load, store, Settings(), model_for=lambda _: FunctionModel(answer), source=str(path)
    )
    try:
        catalog.compile_all()
        (agent,) = catalog.loaded()
        result = await agent.generate("hi")
    finally:
        await catalog.aclose()

    assert result.text == "ok"
    assert seen == [
        {
            "temperature": 0.1,
            "top_p": 0.5,
            "seed": 7,
            "stop_sequences": ["END"],
            "max_tokens": 300,
            "openai_reasoning_effort": "low",
        }
    ]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("{temperature: hot}", "model_settings: temperature: Input should be a valid number"),
        ("{openai_bogus: 1}", "model_settings: openai_bogus: not a setting of openai's models"),
        ("{anthropic_thinking: {}}", "anthropic_thinking: not a setting of openai's models"),
        ("{openai_reasoning_effort: huge}", "openai_reasoning_effort: Input should be"),
    ],
)
def test_a_setting_the_models_provider_does_not_take_is_a_catalog_error_naming_it(
    tmp_path: Path, settings: str, message: str
) -> None:
    path = write(tmp_path, f"kind: agent\nid: a\nmodel: openai:gpt-5\nmodel_settings: {settings}\n")
    load = load_catalog(path, known_tools=catalog_tool_names())
    assert [str(e) for e in load.errors] != []
    assert message in str(load.errors[0])
    assert "agents.yaml" in str(load.errors[0])


async def test_versions_no_longer_served_are_bounded_but_never_under_a_running_run(
    store: Store, tmp_path: Path
) -> None:
    """Every edit compiles a version; only ``kept_unserved`` of the unserved stay loaded, the
    least recently asked for evicted first, never one a run is in progress on; an evicted
    version a run asks for again is compiled anew from the database."""
    entered, release = asyncio.Event(), asyncio.Event()

    async def held(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        entered.set()
        await release.wait()
        return ModelResponse(parts=[TextPart("done")])

    def spec(n: int) -> str:
        return f"kind: agent\nid: a\nmodel: runyard:demo\ninstructions: v{n}\n"

    path = write(tmp_path, spec(0))
    load = load_catalog(path, known_tools=catalog_tool_names())
    catalog = CatalogAgents(
        load,
        store,
        Settings(),
        model_for=lambda _: FunctionModel(held),
        source=str(path),
        kept_unserved=2,
    )
    versions = []
    try:
        await catalog.record_versions(load)
        named = AgentRequest("a")
        first = await catalog.agent("default", catalog.choose("default", "u", named, None))
        running = asyncio.create_task(first.generate("hi"))
        await entered.wait()
        assert first.running
        for n in range(1, 7):  # six edits, each served
            path.write_text(spec(n))
            load = load_catalog(path, known_tools=catalog_tool_names())
            assert catalog.compile_new(load.catalog) == {}
            await catalog.record_versions(load)
            assert catalog.serve_files(load) is not None
            choice = catalog.choose("default", "u", named, None)
            versions.append(choice.version)
            await catalog.agent("default", choice)
        loaded = list(catalog.loaded())
        # served v6, the two most recent unserved (v4, v5), and v0 with its run in progress
        assert len(loaded) == 4
        assert first in loaded
        gauge = catalog.metrics.agents_loaded
        assert gauge.labels("true")._value.get() == 1
        assert gauge.labels("false")._value.get() == 3

        release.set()
        assert (await running).text == "done"
        # v1 was evicted: a run pinned to it gets it compiled again from the database.
        again = await catalog.agent("default", AgentChoice("a", versions[0]))
        assert again.instructions == "v1"
        loaded = list(catalog.loaded())
        assert first not in loaded  # idle now, so evicted at the next pass
        assert len(loaded) == 3
        assert gauge.labels("false")._value.get() == 2
    finally:
        release.set()
        await catalog.aclose()


def test_a_choice_keeps_its_runs_entry_and_reads_only_a_known_one_back() -> None:
    recorded = AgentChoice("assistant", entry="grpc").recorded_in({})

    assert recorded == {"agent": "assistant", "runEntry": "grpc"}
    assert AgentChoice.stored(recorded) == AgentChoice("assistant", None, None, "thread", "grpc")
    odd = AgentChoice.stored({"agent": "assistant", "runEntry": "carrier pigeon"})
    assert odd is not None
    assert odd.entry is None
