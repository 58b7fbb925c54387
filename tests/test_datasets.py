"""The bundled credit log is what its generator makes.

:func:`generate_credit` is how ``polars_roc/data/credit.parquet`` was made; kept beside
the test that compares them, the file and its recipe cannot drift apart unnoticed.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from polars_roc import datasets


def generate_credit(seed: int = 20261122) -> pl.DataFrame:
    """Regenerate the credit log (how ``data/credit.parquet`` was made).

    A latent creditworthiness drives both the default and the scores; the champion sees
    it with segment-dependent noise, the challenger with more noise in retail.
    """
    rng = np.random.default_rng(seed)
    segments = np.array(["retail", "sme", "corporate"])
    sizes = np.array([3000, 1800, 1200])
    base_rate = np.array([0.11, 0.12, 0.065])
    signal = np.array([1.05, 1.25, 1.55])
    segment_idx = np.repeat(np.arange(3), sizes)
    n = int(sizes.sum())
    month = rng.integers(1, 7, n)
    latent = rng.normal(size=n)
    intercept = np.log(base_rate / (1 - base_rate))[segment_idx] - 0.5
    drift = 0.06 * (month - 3.5)  # later months default a little more
    p_default = 1 / (1 + np.exp(-(intercept + drift + 1.3 * latent)))
    label = rng.random(n) < p_default
    noise = rng.normal(size=n)
    champion_logit = intercept + signal[segment_idx] * (latent + 0.8 * noise) / 1.4
    challenger_noise = np.where(segment_idx == 0, 1.1, 0.7) * rng.normal(size=n)
    challenger_logit = intercept + 1.2 * (latent + challenger_noise) / 1.5
    frame = pl.DataFrame(
        {
            "loan_id": np.arange(1, n + 1),
            "segment": segments[segment_idx],
            "month": [f"2026-{m:02d}" for m in month],
            "score": np.round(1 / (1 + np.exp(-champion_logit)), 3),
            "score_challenger": np.round(1 / (1 + np.exp(-challenger_logit)), 4),
            "exposure": np.round(rng.lognormal(3.0, 0.8, n), 1),
            "label": label,
        }
    )
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def test_the_bundled_credit_log_is_its_generator_output() -> None:
    assert_frame_equal(generate_credit(), datasets.load_credit())


def test_another_seed_gives_another_log() -> None:
    # The comparison above can fail: the generator's output depends on its seed.
    other = generate_credit(seed=1)
    assert other.shape == datasets.load_credit().shape
    assert not other.equals(datasets.load_credit())
