"""Adversarial checks of the dense counter of ``bins=`` (``_DenseCells``).

The hash counter (``_BinnedCells``, all rows in one slice) is the reference: the dense
slots, fed slice by slice, must give its cells exactly, or say they cannot (``result``
returns None) exactly when some group's hash shift is below its slot shift. Inputs aim
at the dense code's edges: small ``bins`` (pages of 1 slot, blocks of 1 entry),
order bits on page / block / directory boundaries, ranges growing in both
directions, late groups, the slot cap, Float32, signed zeros, infinities,
subnormals, zero weights and counts, one-row slices and the UInt32 -> Int64 counts.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core import score_table as st_mod
from polars_roc.core.validate import prepare

_I64_MAX = (1 << 63) - 1
# Order bits of -inf and +inf: every other integer between them but -1 (the order
# bits of -0.0, which is read as 0.0) is the image of one float.
_LOWEST = -0x7FF0000000000001
_HIGHEST = 0x7FF0000000000000


def _float(order_bits: int) -> float:
    """The Float64 whose order bits are ``order_bits`` (the inverse, written out)."""
    raw = order_bits ^ _I64_MAX if order_bits < 0 else order_bits
    return float(np.array([raw], dtype=np.int64).view(np.float64)[0])


def _edge_bits(draw: st.DrawFn) -> int:
    """Order bits near a multiple of a power of two (a page, block or directory
    boundary at some shift), or anywhere."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        bits = draw(st.integers(_LOWEST, _HIGHEST))
    else:
        m = draw(st.integers(0, 62))
        k = draw(st.integers(-(1 << min(8, 62 - m)), 1 << min(8, 62 - m)))
        base = draw(st.sampled_from([0, 0x3FF0000000000000, -0x3FF0000000000001, 1 << 62]))
        bits = base + k * (1 << m) + draw(st.integers(-1, 1))
    bits = min(max(bits, _LOWEST), _HIGHEST)
    return 0 if bits == -1 else bits


@st.composite
def _score(draw: st.DrawFn) -> float:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(
            st.sampled_from(
                [0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 2.2e-308, 1e300, -1e300, 1.0, 0.5]
            )
        )
    if kind == 1:
        return draw(st.floats(allow_nan=False))
    if kind == 2:
        return draw(st.floats(0.1, 0.1001))
    return _float(_edge_bits(draw))


@st.composite
def _logs(draw: st.DrawFn) -> tuple[pl.DataFrame, int]:
    """A log of rows in slices: each slice's scores may drift from the last (up, then
    far down), groups may first appear late; and a slice size."""
    n_slices = draw(st.integers(1, 8))
    chunk = draw(st.sampled_from([1, 2, 5, 17, 60]))
    groups = draw(st.sampled_from([1, 2, 5, 30]))
    drift = draw(st.sampled_from([1.0, 2.0, 1e4, -1.0]))
    rows = []
    for i in range(n_slices):
        late = min(groups, 1 + i * max(groups // n_slices, 1))  # groups seen so far
        for _ in range(chunk):
            s = draw(_score())
            if draw(st.booleans()) and np.isfinite(s):
                s = s * drift**i if drift != -1.0 else (s if i < n_slices - 1 else -1e200)
                if not np.isfinite(s) or np.isnan(s):
                    s = 0.0
            rows.append(
                (
                    draw(st.sampled_from([None, *range(late)])) if groups > 1 else 0,
                    s,
                    draw(st.booleans()),
                    draw(st.sampled_from([0.0, 0.25, 1.0, 3.0])),
                    draw(st.integers(0, 3)),
                )
            )
    schema = {"g": pl.Int64, "score": pl.Float64, "label": pl.Boolean, "w": pl.Float64}
    log = pl.DataFrame(rows, schema={**schema, "n": pl.Int64}, orient="row")
    return log, chunk


def _prep(log: pl.DataFrame, bins: int, weighting: str | None, float32: bool):  # type: ignore[no-untyped-def]
    if float32:
        log = log.with_columns(pl.col("score").cast(pl.Float32))
    options: dict = {}
    if weighting == "w":
        options["weight"] = "w"
    elif weighting == "n":
        options["count"] = "n"
    return prepare(log.lazy(), score="score", label="label", by="g", bins=bins, **options)


def _hashed(frame: pl.DataFrame, prep) -> st_mod._BinnedCells:  # type: ignore[no-untyped-def]
    hashed = st_mod._BinnedCells(prep)
    hashed.add(frame.lazy())
    return hashed


def _check_dense(
    frame: pl.DataFrame, prep, chunk: int, *, exact: bool, promote_at: int | None = None
) -> bool:  # type: ignore[no-untyped-def]
    """Feed ``frame`` to a dense counter in slices of ``chunk`` rows; its cells equal
    the hash counter's, or it gives none exactly when it must. True when it gave them."""
    hashed = _hashed(frame, prep)
    expected = hashed.result(["g"])
    dense = st_mod._DenseCells(prep)
    for i, start in enumerate(range(0, max(frame.height, 1), chunk)):
        if promote_at is not None and i == promote_at:
            dense.rows_added = (1 << 32) - 1  # the next rows pass 2**32: Int64 counts
        assert dense.add(frame.slice(start, chunk).lazy())
    assert_frame_equal(dense.classes(), hashed.classes(), check_row_order=False)
    slot_shift = dict(zip(dense.known["g"].to_list(), dense.shift.tolist(), strict=True))
    found = dense.result(["g"])
    hash_shift = dict(expected.select("g", "shift").unique().iter_rows())
    # The slots can give the cells iff no group's hash shift is below its slot shift.
    needed = any(hash_shift[g] < slot_shift.get(g, 0) for g in hash_shift)
    assert (found is None) == needed, (slot_shift, hash_shift)
    if found is not None:
        assert_frame_equal(found, expected, check_exact=exact)
    return found is not None


@settings(max_examples=120, deadline=None)
@given(
    case=_logs(),
    bins=st.sampled_from([2, 3, 4, 5, 8, 16, 33, 64, 127, 128, 300]),
    weighting=st.sampled_from([None, "w", "n"]),
    float32=st.booleans(),
    move_slots=st.sampled_from([1, 3, 16, 1 << 20]),
)
def test_dense_slots_give_the_hash_cells_or_say_they_cannot(
    case: tuple[pl.DataFrame, int],
    bins: int,
    weighting: str | None,
    float32: bool,
    move_slots: int,
) -> None:
    # MOVE_SLOTS small: re-slotting goes in many blocks of groups, as it does on
    # large logs (a group's pages past 2**20 slots alone fill a block).
    log, chunk = case
    prep = _prep(log, bins, weighting, float32)
    frame = prep.frame.collect()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod, "MOVE_SLOTS", move_slots)
        _check_dense(frame, prep, chunk, exact=weighting != "w")


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.sampled_from([2, 3, 7, 16, 128, 256]),
    step=st.sampled_from([1, 3, 12]),
)
def test_a_range_growing_both_ways_slice_after_slice(seed: int, bins: int, step: int) -> None:
    # Group 0's scores climb an exponent band or more each slice (its directory start
    # and shift move up), then one far negative score; group 1 holds still.
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(10):
        n = 40
        score = (1 + rng.random(n)) * 2.0 ** (step * i)
        if i == 9:
            score[-1] = -(2.0**300)
        parts.append(
            pl.DataFrame(
                {
                    "g": np.r_[np.zeros(n - 5, int), np.ones(5, int)],
                    "score": np.r_[score[: n - 5], rng.random(5)],
                    "label": rng.random(n) < 0.4,
                    "w": 1.0,
                    "n": 1,
                }
            )
        )
    log = pl.concat(parts)
    prep = _prep(log, bins, None, False)
    _check_dense(prep.frame.collect(), prep, 40, exact=True)
    # Reversed: the range grows downwards, then a far positive score ends it.
    rev = log.with_columns(-pl.col("score"))
    prep = _prep(rev, bins, None, False)
    _check_dense(prep.frame.collect(), prep, 40, exact=True)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), bins=st.sampled_from([2, 5, 64, 300]))
def test_counts_promoted_to_int64_mid_read(seed: int, bins: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    log = pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "score": np.where(rng.random(n) < 0.1, 0.0, rng.normal(size=n) * 5),
            "label": rng.random(n) < 0.5,
            "w": 1.0,
            "n": 1,
        }
    )
    prep = _prep(log, bins, None, False)
    frame = prep.frame.collect()
    dense_used = st_mod._DenseCells(prep)
    dense_used.add(frame.lazy())
    assert dense_used.pos.dtype == np.uint32  # plain rows: UInt32 slots
    _check_dense(frame, prep, 50, exact=True, promote_at=int(rng.integers(0, 8)))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    groups=st.integers(2, 12),
    room=st.integers(1, 12),
    bins=st.sampled_from([2, 16, 64]),
)
def test_groups_near_the_slot_cap_and_first_seen_late(
    seed: int, groups: int, room: int, bins: int
) -> None:
    # The cap leaves room for `room` groups' budgets; groups arrive over the slices.
    # Past the cap the one read counts again by hash: the same cells and classes.
    rng = np.random.default_rng(seed)
    n = 600
    g = np.minimum(np.arange(n) // (n // groups), groups - 1)
    log = pl.DataFrame(
        {
            "g": g,
            "score": rng.normal(size=n) * 10.0 ** rng.integers(-3, 3, n),
            "label": rng.random(n) < 0.5,
            "w": 1.0,
            "n": 1,
        }
    )
    prep = _prep(log, bins, None, False)
    frame = prep.frame.collect()
    hashed = _hashed(frame, prep)
    probe = st_mod._DenseCells(prep)
    cap = room * (probe.limit + probe.width // 4)
    slices = [frame.slice(s, 50).lazy() for s in range(0, n, 50)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod, "DENSE_BINNED_MAX_CELLS", cap)
        reads = [0]

        def again():  # type: ignore[no-untyped-def]
            reads[0] += 1
            return iter(slices)

        counter = st_mod._OneRead(prep, again)
        for part in slices:
            counter.add(part)
        cells = counter.result()
        classes = counter.classes()
    assert_frame_equal(cells, hashed.result(["g"]))
    assert_frame_equal(classes, hashed.classes(), check_row_order=False)
    if room < groups:
        assert reads[0] == 1  # the dense counter could not hold them all


def test_one_read_with_one_slice_and_with_none() -> None:
    # One slice: counted by hash, no dense counter; no slice at all: no cells.
    log = pl.DataFrame({"g": [0, 1], "score": [0.25, -0.0], "label": [True, False]})
    prep = _prep(log, 2, None, False)
    counter = st_mod._OneRead(prep, lambda: iter([]))
    counter.add(prep.frame)
    assert counter.dense is None
    assert_frame_equal(counter.result(), _hashed(prep.frame.collect(), prep).result(["g"]))
    empty = st_mod._OneRead(prep, lambda: iter([]))
    assert empty.result().height == 0


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.sampled_from([2, 3, 10, 100, 400]),
    chunk=st.sampled_from([5, 90]),  # one-row slices: in the tests above
    kind=st.sampled_from(["probabilities", "logits", "spread", "float32", "weighted"]),
    grouped=st.booleans(),
    lower=st.booleans(),
)
def test_binned_auc_within_the_bound_of_the_exact_auc(
    seed: int, bins: int, chunk: int, kind: str, grouped: bool, lower: bool
) -> None:
    # Sliced (the dense counter, or its second read by hash) against one slice (the
    # hash counter): the same AUC and bound; and the exact AUC within that bound.
    rng = np.random.default_rng(seed)
    n = 300
    label = rng.random(n) < 0.4
    latent = rng.normal(size=n) + label
    score = {
        "probabilities": np.where(rng.random(n) < 0.05, 0.0, 1 / (1 + np.exp(-latent))),
        "logits": latent * 3,
        "spread": latent * 10.0 ** rng.integers(-200, 200, n),
        "float32": latent.astype(np.float32).astype(np.float64) * 1e-30,
        "weighted": latent,
    }[kind]
    log = pl.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "score": pl.Series(score, dtype=pl.Float32 if kind == "float32" else pl.Float64),
            "label": label,
            "w": rng.choice([0.0, 0.5, 2.0], n),
        }
    )
    options: dict = {"by": "g"} if grouped else {}
    if kind == "weighted":
        options["weight"] = "w"
    if lower:
        options["direction"] = "lower"
    exact = pr.roc_auc(log, **options)
    one_slice = pr.roc_auc(log, bins=bins, **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod, "CHUNK_ROWS", chunk)
        binned = pr.roc_auc(log.lazy(), bins=bins, **options).collect()
    assert_frame_equal(binned, one_slice, check_exact=kind != "weighted")
    counts = ["g", "n_pos", "n_neg"] if grouped else ["n_pos", "n_neg"]
    assert binned.select(counts).equals(exact.select(counts))
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-12).all()


@pytest.mark.parametrize("move_slots", [1, 2, 1 << 20])
def test_a_first_moved_group_filling_a_move_block_alone(move_slots: int) -> None:
    # Found by the property above: when the first group to re-slot costs MOVE_SLOTS
    # slots or more (bins >= 2**18 at the default), the block cut at 0 read the page
    # list from its end, and the groups after it kept their old pages at their new
    # shifts (shift 122 = 63 + 59, cells at keys of the wrong shift).
    log = pl.DataFrame(
        {"g": [0, 0, 0, 0], "score": [0.0, np.inf, -np.inf, 2.0], "label": [0, 1, 0, 1]}
    )
    prep = prepare(log.lazy(), score="score", label="label", by="g", bins=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod, "MOVE_SLOTS", move_slots)
        assert _check_dense(prep.frame.collect(), prep, 1, exact=True)


def test_a_group_of_more_than_move_slots_re_slotted_at_the_default_sizes() -> None:
    # The same defect at the default MOVE_SLOTS, no patching: bins=2**19 (a budget of
    # 2**21 slots), one group whose scores climb 2**55 order bits a slice, so its
    # pages pass 2**20 slots before its third move. Before the fix the dense cells
    # were 418,196 against the hash counter's 471,170.
    rng = np.random.default_rng(21)
    n, chunk = 1_200_000, 300_000
    low = np.array([1e-30]).view(np.int64)[0]
    bits = low + (np.arange(n) // chunk) * (1 << 55) + rng.integers(0, 1 << 55, n)
    log = pl.DataFrame(
        {"g": np.zeros(n, int), "score": bits.view(np.float64), "label": bits % 3 == 0}
    )
    prep = prepare(log.lazy(), score="score", label="label", by="g", bins=1 << 19)
    costs: list[int] = []
    move = st_mod._DenseCells._move_groups

    def recorded(self, chunk, shift, base, rows):  # type: ignore[no-untyped-def]
        costs.append(int(self._cost(self.n_pages[chunk], self.n_blocks[chunk]).sum()))
        return move(self, chunk, shift, base, rows)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod._DenseCells, "_move_groups", recorded)
        assert _check_dense(prep.frame.collect(), prep, chunk, exact=True)
    assert max(costs) >= st_mod.MOVE_SLOTS


def _edge_scores(rng: np.random.Generator, n: int, drift: int) -> np.ndarray:
    """Scores whose order bits cluster about multiples of powers of two (page, block
    and directory boundaries at many shifts), moved ``drift`` bits up a slice."""
    m = rng.integers(0, 60, n)
    k = rng.integers(-64, 65, n)
    centre = rng.choice([0, 0x3FF0000000000000, -0x3FF0000000000001, 1 << 61], n)
    bits = centre + (k << m) + rng.integers(-1, 2, n) + (drift << rng.integers(40, 58, n))
    bits = np.clip(bits, _LOWEST, _HIGHEST)
    bits[bits == -1] = 0
    raw = np.where(bits < 0, bits ^ _I64_MAX, bits)
    return raw.view(np.float64)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.sampled_from([2, 6, 128, 200, 513, 1000]),
    groups=st.sampled_from([1, 3, 8]),
    chunk=st.sampled_from([250, 1000]),
    move_slots=st.sampled_from([7, 1 << 20]),
    weighting=st.sampled_from([None, "w"]),
)
def test_larger_slices_of_boundary_scores(
    seed: int, bins: int, groups: int, chunk: int, move_slots: int, weighting: str | None
) -> None:
    # Enough rows a slice to pass the budget of larger pages (p > 0 from bins=128), so
    # the shift rises by fewer and by more bits than a page holds.
    rng = np.random.default_rng(seed)
    n = 4000
    log = pl.DataFrame(
        {
            "g": rng.integers(0, groups, n),
            "score": np.concatenate([_edge_scores(rng, chunk, i) for i in range(-(-n // chunk))])[
                :n
            ],
            "label": rng.random(n) < 0.4,
            "w": rng.choice([0.0, 0.5, 1.0, 7.0], n),
            "n": 1,
        }
    )
    prep = _prep(log, bins, weighting, False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(st_mod, "MOVE_SLOTS", move_slots)
        _check_dense(prep.frame.collect(), prep, chunk, exact=weighting is None)


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(_LOWEST, _HIGHEST),
    b=st.integers(_LOWEST, _HIGHEST),
    width=st.sampled_from([2, 32, 256]),  # the directory holds 32 entries or more
)
def test_range_shift_and_top_bits_against_python_integers(a: int, b: int, width: int) -> None:
    # The directory's shift, written with unbounded integers: numpy's spans wrap past
    # 2**63 (logits of both signs, -inf to +inf), which must read as "does not fit".
    low, high = min(a, b), max(a, b)
    expected = next(s for s in range(64) if (high >> s) - (low >> s) < width)
    found = st_mod._range_shift(np.array([low]), np.array([high]), width)
    assert found.tolist() == [expected]
    xor = np.array([low ^ high], dtype=np.int64).view(np.uint64)
    assert st_mod._top_bits(xor).tolist() == [((low ^ high) % (1 << 64)).bit_length()]
