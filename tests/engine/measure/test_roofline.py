"""Work, traffic and rates of a batched matvec: exact counters, derived rates."""

import pytest

from engine.measure import roofline


def test_counters_are_exact_functions_of_the_shape():
    assert roofline.flops(3000, 100, 100) == 2 * 3000 * 100 * 100
    assert roofline.traffic_bytes(3000, 100, 80, 4) == 4 * 3000 * (100 * 80 + 80 + 100)


def test_intensity_tends_to_two_over_itemsize():
    assert roofline.arithmetic_intensity(1000, 1000, 4) == pytest.approx(0.5, rel=1e-2)
    assert roofline.arithmetic_intensity(1000, 1000, 2) == pytest.approx(1.0, rel=1e-2)
    assert roofline.arithmetic_intensity(1, 1, 4) == pytest.approx(2 / 12)


def test_rates_from_one_time_and_the_peak():
    rates = roofline.rates(
        work_flops=2e9, work_bytes=4e9, matrices=1000, seconds=0.5, peak_bytes_per_s=16e9
    )
    assert rates == {
        "gflops_per_s": pytest.approx(4.0),
        "gbytes_per_s": pytest.approx(8.0),
        "matrices_per_s": pytest.approx(2000.0),
        "roofline_fraction": pytest.approx(0.5),
    }


@pytest.mark.parametrize("seconds", [None, 0.0, -1.0])
def test_no_time_no_rates(seconds):
    assert set(roofline.rates(1, 1, 1, seconds, 1e9).values()) == {None}


def test_no_peak_no_fraction_but_rates():
    rates = roofline.rates(10, 10, 1, 1.0, None)
    assert rates["roofline_fraction"] is None and rates["gbytes_per_s"] == pytest.approx(1e-8)
