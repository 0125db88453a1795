"""The split of a recompute's weeks into batches: contiguous, covering, balanced by cost."""

import pytest

from agreement.engine.batches import SETUP_COST, WINDOW_COST, week_batches


def cost(sizes, weeks: range) -> float:
    """The planner's cost of a batch, written out: each window's judgments and fixed part, and the batch's
    reading of every judgment up to its last week."""
    through = [sum(sizes[: k + 1]) for k in range(len(sizes))]
    return sum(sizes[k] + through[k] + 2 * WINDOW_COST for k in weeks) + SETUP_COST * through[weeks[-1]]


@pytest.mark.parametrize("n_batches", [1, 2, 3, 5, 26, 40])
def test_batches_are_contiguous_non_empty_and_cover_every_week(n_batches):
    sizes = [38_000 + 500 * (k % 3) for k in range(26)]
    batches = week_batches(sizes, n_batches)
    assert len(batches) == min(n_batches, 26)
    assert all(len(b) for b in batches)
    assert [k for b in batches for k in b] == list(range(26))


def test_later_weeks_cost_more_so_later_batches_hold_fewer_weeks():
    sizes = [38_000] * 26
    batches = week_batches(sizes, 3)
    assert len(batches[0]) > len(batches[1]) > len(batches[2])
    # the split found is no worse than any other with the first cut moved by one week
    worst = max(cost(sizes, b) for b in batches)
    for shift in (-1, 1):
        a, b = batches[0].stop + shift, batches[1].stop
        moved = [range(0, a), range(a, b), range(b, 26)]
        assert max(cost(sizes, r) for r in moved) >= worst


def test_a_project_without_judgments_has_no_batches_and_at_least_one_is_asked_for():
    assert week_batches([], 4) == []
    with pytest.raises(ValueError, match="n_batches must be at least 1"):
        week_batches([10], 0)
