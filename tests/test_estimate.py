"""`prove --estimate`: the projection's 95% interval and the sample a ±25% interval needs
(issue 35), checked on hand-computed figures and against a search over every sample size."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from boggle_dafsa.output.jsonable import estimate_json
from boggle_dafsa.output.proof import estimate_text
from boggle_dafsa.search import prove as P


def test_the_projection_and_its_interval_by_hand() -> None:
    # 5 classes of 100 taking 1 to 5 s: mean 3, standard deviation sqrt(2.5) = 1.5811;
    # 1.96 x 1.5811 / sqrt(5) x sqrt(95 / 99) x 100 = 135.76.
    projected, margin = P.projection([1.0, 2.0, 3.0, 4.0, 5.0], 100)
    assert projected == pytest.approx(300.0)
    assert margin == pytest.approx(135.764, abs=1e-3)
    # Every class sampled: the projection is the sum, with no margin.
    assert P.projection([1.0, 2.0, 3.0], 3) == (pytest.approx(6.0), 0.0)
    # One class: no spread, no margin (and no sample size can be told from it).
    assert P.projection([7.0], 50) == (pytest.approx(350.0), 0.0)
    assert P.sample_needed([7.0], 50) is None


def test_the_sample_for_25_percent_by_hand() -> None:
    # n0 = (1.96 x 1.5811 / (0.25 x 3))^2 = 17.07 for an endless population;
    # 17.07 / (1 + 16.07 / 100) = 14.71 for 100 classes: 15.
    assert P.sample_needed([1.0, 2.0, 3.0, 4.0, 5.0], 100) == 15
    assert P.sample_needed([1.0, 2.0, 3.0, 4.0, 5.0], 100, relative=0.5) == 5  # 4.27 / 1.0327: 4.13
    assert P.sample_needed([2.0, 2.0, 2.0], 1000) == 2  # no spread: any two classes
    assert P.sample_needed([1.0, 100.0], 10) == 10  # at most every class


def _relative_margin(spread: float, mean: float, sample: int, total: int) -> float:
    return P.Z_95 * spread / math.sqrt(sample) * math.sqrt((total - sample) / (total - 1)) / mean


@pytest.mark.parametrize("seed", range(20))
def test_the_sample_for_25_percent_is_the_smallest_that_reaches_it(seed: int) -> None:
    rng = random.Random(seed)
    total = rng.choice([50, 1_863, 27_135, 531_441])
    times = [rng.lognormvariate(0, rng.uniform(0.2, 1.5)) for _ in range(rng.randint(2, 60))]
    spread, mean = statistics.stdev(times), statistics.fmean(times)
    needed = P.sample_needed(times, total)
    assert needed is not None and 2 <= needed <= total
    assert _relative_margin(spread, mean, needed, total) <= 0.25 + 1e-12
    if needed > 2:
        assert _relative_margin(spread, mean, needed - 1, total) > 0.25


def test_the_estimate_reports_the_interval_in_cpu_hours_and_the_sample_needed() -> None:
    estimate = P.Estimate(1_000, 5, 15.0, 3_000.0, 1_200.0, 10, 290, 0, sample_for_25=47)
    low, high = estimate.interval_hours
    assert (low, high) == (pytest.approx(1_800 / 3600), pytest.approx(4_200 / 3600))
    data = estimate_json(estimate, seed=3)
    assert data["interval_95_cpu_hours"] == [0.5, 1.167] and data["projected_cpu_hours"] == 0.833
    assert data["relative_margin_95"] == 0.4 and data["sample_for_25_percent"] == 47 and data["seed"] == 3
    text = estimate_text(estimate)
    assert "95% interval: 0.50 to 1.17 CPU-hours (±40%); --sample 47 for ±25%" in text
    # The low end is never under what the sample itself took.
    wide = P.Estimate(1_000, 5, 900.0, 1_000.0, 5_000.0, 10, 290, 0, sample_for_25=12)
    assert wide.interval_hours[0] == pytest.approx(900 / 3600)
    assert "(this sample is enough)" not in text
    assert "(this sample is enough)" in estimate_text(P.Estimate(1_000, 50, 1.0, 20.0, 1.0, 1, 29, 0, sample_for_25=12))
    assert "--sample 2 or more" in estimate_text(P.Estimate(1_000, 1, 1.0, 1_000.0, 0.0, 1, 29, 0))
