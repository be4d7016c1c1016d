import numpy as np
import pytest

from engine.measure.stats import Measurement


def test_statistics_come_from_the_samples():
    samples = (1.0, 2.0, 3.0, 4.0, 100.0)
    m = Measurement(samples, calls_per_sample=10)
    assert m.median_s == 3.0
    assert m.mean_s == 22.0
    assert m.min_s == 1.0
    assert m.iqr_s == pytest.approx(2.0)  # q1=2, q3=4 with linear interpolation
    assert m.p5_s == pytest.approx(np.percentile(samples, 5))
    assert m.p95_s == pytest.approx(np.percentile(samples, 95))
    assert m.std_s == pytest.approx(np.std(samples, ddof=1))
    assert set(m.summary()) == {"median_s", "mean_s", "min_s", "p5_s", "p95_s", "iqr_s", "std_s"}


def test_noise_warning_names_the_ratio():
    quiet = Measurement((1.0, 1.0, 1.01, 1.0, 0.99), 1)
    assert quiet.noise_warning is None
    noisy = Measurement((1.0, 2.0, 1.0, 2.0, 1.5), 1)
    assert "IQR is 67% of the median" in noisy.noise_warning


def test_few_samples_are_flagged_and_single_sample_has_zero_std():
    m = Measurement((0.5,), 1)
    assert m.std_s == 0.0 and m.median_s == 0.5
    assert "only 1 sample" in m.noise_warning


def test_empty_measurement_is_refused():
    with pytest.raises(ValueError):
        Measurement((), 1)
