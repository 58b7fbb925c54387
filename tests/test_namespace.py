"""The ``roc`` namespace is a dispatch: each method is its module function less the frame."""

from __future__ import annotations

import inspect
import pydoc
import re
import textwrap
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc import charts
from polars_roc.namespace import _method_doc

# The contract: method -> the function it calls (docs/api.md lists the same pairs).
FUNCTIONS = {
    "auc": "roc_auc",
    "average_curve": "average_curve",
    "average_precision": "pr_average_precision",
    "best_threshold": "best_threshold",
    "bootstrap632": "bootstrap632_summary",
    "bootstrap_cutpoint": "bootstrap_cutpoint",
    "brier": "brier_decomposition",
    "calibration": "calibration_curve",
    "calibration_error": "calibration_error",
    "calibration_test": "calibration_test",
    "compare": "compare",
    "compare_curves": "compare_curves",
    "compare_curves_groups": "compare_curves_groups",
    "compare_groups": "compare_groups",
    "compare_long": "compare_long",
    "compare_power": "compare_power",
    "confusion": "confusion_matrix",
    "curve": "roc_curve",
    "decision_curve": "decision_curve",
    "det_curve": "det_curve",
    "disparity": "disparity",
    "disparity_summary": "disparity_summary",
    "drift": "drift",
    "estimated_auc": "estimated_auc",
    "estimated_confusion": "estimated_confusion",
    "folds": "folds",
    "fpr_at": "fpr_at",
    "gains": "gains_table",
    "grade_summary": "grade_summary",
    "grade_test": "grade_test",
    "hull": "roc_hull",
    "hull_auc": "hull_auc",
    "ks": "ks_statistic",
    "lift": "lift_curve",
    "multiclass_agreement": "multiclass_agreement",
    "multiclass_auc": "multiclass_auc",
    "multiclass_confusion": "multiclass_confusion",
    "multiclass_measures": "multiclass_measures",
    "one_vs_rest": "one_vs_rest",
    "optimal_cutpoint": "optimal_cutpoint",
    "optimal_point": "optimal_point",
    "plot": "plot",
    "pr_auc": "pr_auc",
    "prbe": "prbe",
    "pr_curve": "pr_curve",
    "psi": "psi",
    "score_table": "score_table",
    "summary": "fold_summary",
    "threshold_at": "threshold_at",
    "threshold_ci": "threshold_ci",
    "tpr_at": "tpr_at",
    "trend": "trend",
}
METHODS = sorted(FUNCTIONS)
LOG = pl.DataFrame(
    {
        "score": [0.9, 0.8, 0.8, 0.6, 0.4, 0.3, 0.2, 0.1],
        "label": [1, 1, 0, 1, 0, 1, 0, 0],
        "segment": ["a", "b", "a", "b", "a", "b", "a", "b"],
    }
)
FRAMES = pytest.mark.parametrize("frame", [LOG, LOG.lazy()], ids=["eager", "lazy"])


def function(method: str) -> object:
    if method == "plot":
        return charts.plot
    return getattr(pr, FUNCTIONS[method])


def test_the_methods_are_the_contract() -> None:
    public = [name for name in dir(LOG.roc) if not name.startswith("_")]
    assert public == METHODS


@FRAMES
@pytest.mark.parametrize("method", METHODS)
def test_signature_is_the_function_less_the_frame(frame: pl.DataFrame, method: str) -> None:
    theirs = inspect.signature(function(method))  # type: ignore[arg-type]
    assert next(iter(theirs.parameters)) == "frame"
    own = inspect.signature(getattr(frame.roc, method))
    assert own == theirs.replace(parameters=list(theirs.parameters.values())[1:])
    assert "frame" not in own.parameters


@pytest.mark.parametrize("method", METHODS)
def test_help_documents_no_frame_and_calls_the_method(method: str) -> None:
    shown = pydoc.render_doc(getattr(LOG.roc, method), renderer=pydoc.plaintext)
    signature = shown.splitlines()[2]
    assert signature.startswith(f"{method}(") and "frame" not in signature, signature
    doc = inspect.getdoc(getattr(LOG.roc, method))
    assert doc is not None
    parameters = doc.partition("Parameters\n----------\n")[2].partition("\n\n")[0]
    assert not re.search(r"(?m)^(\w+, )*frame\b", parameters), parameters
    examples = doc.partition("Examples\n--------\n")[2]
    assert f".roc.{method}(" in examples
    # Every namespace function in an example is written as a method call.
    assert not re.search(rf"\bpr\.({'|'.join(FUNCTIONS.values())})\(", examples)


def test_help_shows_the_roles_instead_of_pointing_to_score_table() -> None:
    doc = inspect.getdoc(LOG.roc.auc)
    assert doc is not None
    assert "score_table" not in doc
    assert "score\n    Column of classifier scores" in doc
    assert 'direction\n    ``"higher"`` (default)' in doc
    assert doc.index("direction\n") < doc.index("ci\n") < doc.index("Returns")


def test_the_docstring_rewrite() -> None:
    doc = """Something per group.

        Parameters
        ----------
        frame
            A polars ``DataFrame`` or ``LazyFrame``
            with one row per prediction.
        scores
            Score columns.
        score, nulls
            As in :func:`polars_roc.score_table`.
        frame, label
            As in :func:`polars_roc.score_table`; ``label`` holds the class.

        Examples
        --------
        >>> pr.roc_auc(df)
        >>> curve = pr.roc_curve(log, by="g").select("tpr")
        >>> pr.roc_auc(pl.DataFrame(x))
        """
    got = _method_doc(doc, {"roc_auc": "auc", "roc_curve": "curve"})
    roles = inspect.getdoc(pr.score_table)
    assert roles is not None
    score = roles[roles.index("score\n") : roles.index("label\n")]
    nulls = roles[roles.index("nulls\n") : roles.index("direction\n")]
    assert got == (
        "Something per group.\n\nParameters\n----------\nscores\n    Score columns.\n"
        f"{score}{nulls}"
        "label\n    As in :func:`polars_roc.score_table`; ``label`` holds the class.\n\n"
        "Examples\n--------\n>>> df.roc.auc()\n"
        '>>> curve = log.roc.curve(by="g").select("tpr")\n'
        ">>> pr.roc_auc(pl.DataFrame(x))"
    )


@FRAMES
def test_a_method_is_its_function_on_the_frame(frame: pl.DataFrame) -> None:
    got = frame.roc.confusion([0.5, 0.7], by="segment")
    assert isinstance(got, type(frame))
    expected = pr.confusion_matrix(frame, [0.5, 0.7], by="segment")
    assert_frame_equal(got, expected)
    assert_frame_equal(frame.roc.auc(ci="delong"), pr.roc_auc(frame, ci="delong"))


def test_doctests_run_the_method_examples() -> None:
    import doctest

    import polars_roc.namespace as namespace

    names = {test.name for test in doctest.DocTestFinder().find(namespace) if test.examples}
    assert {f"polars_roc.namespace.RocNamespace.{m}" for m in METHODS if m != "plot"} <= names


def test_every_view_with_weight_takes_count_and_direction() -> None:
    # bootstrap632 weighs rows by their in-bag draws already (a count table of bootstrap
    # predictions has no meaning); multi-class scores are probabilities (higher wins), as
    # are the scores of the calibration, grade and stability views and a decision curve's
    # (its threshold is also the odds of harm to benefit).
    probabilities = {"brier", "calibration", "calibration_error", "calibration_test"}
    probabilities |= {"grade_summary", "grade_test", "psi", "decision_curve"}
    probabilities |= {"estimated_auc", "estimated_confusion"}
    for method in METHODS:
        names = inspect.signature(getattr(LOG.roc, method)).parameters
        if "weight" in names:
            assert "count" in names or method in ("bootstrap632", "compare_long"), method
            if not method.startswith("multiclass") and method not in probabilities:
                assert "direction" in names, method


def test_docs_api_lists_every_method_and_its_function() -> None:
    page = (Path(__file__).parents[1] / "docs" / "api.md").read_text()
    pair = r"\| `df\.roc\.(\w+)\(\.\.\.\)` \| \[`(?:pr|polars_roc\.charts)\.(\w+)`\]"
    assert dict(re.findall(pair, page)) == FUNCTIONS


def test_mypy_sees_each_method_parameters(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    # Polars and the other libraries are not followed (Any), which keeps a cold run at
    # ~2 s; the parameters come from polars_roc's own functions. CI's mypy on the package
    # checks the eager-in, eager-out return types of namespace.py.
    skipped = "polars.*,altair.*,narwhals.*,numpy.*,scipy.*,pyarrow.*,duckdb.*"
    # The package under test: a source tree is named (mypy refuses site-packages there).
    root = Path(pr.__file__).parents[1]
    source = "" if root.name.endswith("-packages") else f"mypy_path = {root}\n"
    skip = "follow_imports = skip\nfollow_imports_for_stubs = True\n"
    (tmp_path / "mypy.ini").write_text(f"[mypy]\n{source}[mypy-{skipped}]\n{skip}")
    checked = tmp_path / "check.py"
    checked.write_text(
        textwrap.dedent(
            """
            import polars as pl
            from polars_roc.namespace import RocNamespace

            roc = RocNamespace(pl.DataFrame())
            roc.auc(by="segment", ci="delong", n_boot=10)
            roc.confusion([0.5], by=["a", "b"])
            roc.auc(frame=None)
            roc.confusion(0.5, n_boot=3)
            roc.compare(["a", "b"], n_boot="many")
            roc.plot(kind="roc", columns=3)
            roc.plot(colour="segment")
            """
        )
    )
    config = ["--config-file", str(tmp_path / "mypy.ini"), "--cache-dir", str(tmp_path)]
    out, _, _ = api.run([*config, "--no-error-summary", str(checked)])
    errors = [line.split(": error: ")[1] for line in out.splitlines()]
    assert errors == [
        'Unexpected keyword argument "frame"  [call-arg]',
        'Unexpected keyword argument "n_boot"  [call-arg]',
        'Argument "n_boot" has incompatible type "str"; expected "int"  [arg-type]',
        'Unexpected keyword argument "colour"; did you mean "color"?  [call-arg]',
    ], out
