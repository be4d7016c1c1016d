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


@pytest.mark.parametrize(
    ("shape", "itemsize", "expected"),
    [
        ((100, 100), 4, (104, 128)),
        ((8, 8), 4, (8, 128)),
        ((1, 1), 4, (8, 128)),
        ((100, 100), 2, (112, 128)),  # bfloat16 / float16: (16, 128) tiles
        ((3000, 100, 100), 4, (3000, 104, 128)),
        ((100,), 4, (128,)),
    ],
)
def test_tpu_padding_rounds_the_two_minor_dimensions_up_to_the_tile(shape, itemsize, expected):
    from engine.measure.roofline import padded_minor

    assert padded_minor(shape, itemsize) == expected


def test_padded_bytes_of_the_seed_problem_and_its_note():
    from engine.measure.roofline import tpu_padded_bytes, tpu_padding_note, traffic_bytes

    padded = tpu_padded_bytes(3000, 100, 100, 4)
    assert padded == 4 * (3000 * 104 * 128 + 3000 * 128 + 3000 * 128)
    assert 1.3 < padded / traffic_bytes(3000, 100, 100, 4) < 1.4
    assert "stored as 104x128" in tpu_padding_note(3000, 100, 100, 4)


def test_a_tpu_result_carries_both_roofline_fractions():
    from tests.factories import make_run

    run = make_run({"jax_vmap": [0.001] * 4})
    result = run.results[0]
    result.bytes_padded = 2 * result.bytes
    entry = run.to_dict()["results"][0]
    assert entry["roofline_fraction_padded"] == pytest.approx(2 * entry["roofline_fraction"])
    assert type(run).from_dict(run.to_dict()).results[0].bytes_padded == 2 * result.bytes
