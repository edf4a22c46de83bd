"""Usage sums and its dict form."""

from __future__ import annotations

from decimal import Decimal

from pydantic_ai import messages as pai
from pydantic_ai.usage import RequestUsage

from runyard.models import Usage, response_cost


def test_usages_add_field_by_field() -> None:
    total = Usage(1, 2, 3, 4, 5, 0.5, 1) + Usage(10, 20, 30, 40, 50, 0.25, 2)
    assert total == Usage(11, 22, 33, 44, 55, 0.75, 3)


def test_an_unknown_cost_counts_as_zero_unless_both_are_unknown() -> None:
    assert (Usage(cost=None) + Usage(cost=None)).cost is None
    assert (Usage(cost=None) + Usage(cost=0.2)).cost == 0.2
    assert (Usage(cost=0.3) + Usage(cost=None)).cost == 0.3


def test_to_dict_includes_total_tokens() -> None:
    assert Usage(input_tokens=3, output_tokens=4, cost=0.0, requests=1).to_dict() == {
        "input_tokens": 3,
        "output_tokens": 4,
        "total_tokens": 7,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
        "cost": 0.0,
        "requests": 1,
        "models": [],
    }


def test_usages_name_each_answering_model_once_in_the_order_they_answered() -> None:
    total = Usage(models=("a:x",)) + Usage(models=("b:y",)) + Usage(models=("a:x",))
    assert total.models == ("a:x", "b:y")


def test_a_cost_the_provider_reported_wins_over_the_catalog() -> None:
    response = pai.ModelResponse(
        parts=[], usage=RequestUsage(input_tokens=5), model_name="gpt-4o", provider_name="openai"
    )
    catalog = response_cost(response)
    assert catalog is not None
    assert catalog > 0
    response.usage.cost = Decimal("0.5")
    assert response_cost(response) == 0.5


def test_a_response_without_a_model_name_has_an_unknown_cost() -> None:
    assert response_cost(pai.ModelResponse(parts=[], usage=RequestUsage(input_tokens=5))) is None
