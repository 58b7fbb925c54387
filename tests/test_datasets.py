"""The bundled credit log is what its generator makes.

``datasets._generate_credit`` is how ``data/credit.parquet`` was made; this test keeps it
from being dead code: the file and its recipe cannot drift apart unnoticed.
"""

from __future__ import annotations

from polars.testing import assert_frame_equal

from polars_roc import datasets


def test_the_bundled_credit_log_is_its_generator_output() -> None:
    assert_frame_equal(datasets._generate_credit(), datasets.load_credit())


def test_another_seed_gives_another_log() -> None:
    # The comparison above can fail: the generator's output depends on its seed.
    other = datasets._generate_credit(seed=1)
    assert other.shape == datasets.load_credit().shape
    assert not other.equals(datasets.load_credit())
