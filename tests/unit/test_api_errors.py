"""The Python API's first-hour traps (#31 item 13): metric names in any case, options given as
strings, and missing-extra messages that say how to install (torch first, every package)."""

from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gecscope
from gecscope import EvalData, Hypothesis, get_metric, list_metrics
from gecscope.errors import ConfigError, MissingDependencyError

DEMO = Path(gecscope.__file__).parent / "data" / "demo"

# --------------------------------------------------------------------------- metric names


@pytest.mark.parametrize("spelling", ["ERRANT", "Errant", "eRRANT"])
def test_metric_names_differing_only_in_case_are_found(spelling: str) -> None:
    assert get_metric(spelling) is get_metric("errant")


def test_unknown_metric_name_suggests_the_right_spelling() -> None:
    with pytest.raises(ConfigError, match=r"unknown metric 'CLEMEE' \(did you mean 'cleme'\?\)"):
        get_metric("CLEMEE")
    with pytest.raises(ConfigError, match="did you mean 'llm_sent'"):
        get_metric("LLM-SENT")


def test_a_metric_named_by_module_and_class_is_the_class_itself() -> None:
    """``module:Class`` reaches a metric that is not registered (the one lookup the CLI's
    ``--metric`` and meta-eval's ``--metrics`` use); a wrong module or class is a ConfigError."""
    from gecscope.meta_eval.examples import CharLengthMetric

    assert get_metric("gecscope.meta_eval.examples:CharLengthMetric") is CharLengthMetric
    assert "charlen" not in list_metrics()
    for wrong in ("gecscope.meta_eval.examples:NoSuchMetric", "gecscope.no_such_module:Metric"):
        with pytest.raises(ConfigError, match=f"cannot import metric class '{wrong}'"):
            get_metric(wrong)


# --------------------------------------------------------------------------- option types


def _as_text(value: Any) -> str:
    """A value written as on the command line (``-o key=TEXT``)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def _text_options() -> list[tuple[str, str, str]]:
    """(metric, option, default as text) for every option of every metric whose default is a
    bool, number, string, None or tuple of strings."""
    out = []
    for name in list_metrics():
        config = get_metric(name).Config
        hints = typing.get_type_hints(config)
        for f in dataclasses.fields(config):
            if f.default is dataclasses.MISSING or hints[f.name] is str:
                continue
            out.append((name, f.name, _as_text(f.default)))
    return out


@pytest.mark.parametrize("metric, option, text", _text_options())
def test_every_option_reads_its_default_written_as_text(metric: str, option: str,
                                                        text: str) -> None:
    """An API caller's ``beta="0.5"`` is read as the command line reads ``-o beta=0.5``."""
    config = get_metric(metric).Config
    assert config(**{option: text}) == config()


def test_string_beta_scores_as_the_number() -> None:
    m2 = str(DEMO / "references.m2")
    hyp = (DEMO / "careful.txt").read_text(encoding="utf-8").splitlines()
    data = EvalData.from_m2(m2)
    metric = get_metric("m2")
    as_text = metric(beta="1.0").score(data, Hypothesis.from_texts(hyp))
    as_number = metric(beta=1.0).score(data, Hypothesis.from_texts(hyp))
    default = metric().score(data, Hypothesis.from_texts(hyp))
    assert as_text.value == as_number.value
    assert as_text.value != default.value  # beta=1 was applied, not the default 0.5


@pytest.mark.parametrize("options, message", [
    ({"beta": "abc"}, r"errant: beta must be a number \(float\), not 'abc'"),
    ({"beta": [1.0]}, r"errant: beta must be a number \(float\), not \[1.0\]"),
    ({"beta": True}, "errant: beta must be a number"),
    ({"single": "maybe"}, "errant: single must be yes or no"),
    ({"single": 2}, "errant: single must be yes or no"),
    ({"selection_rounding": 1.5}, "errant: selection_rounding must be a whole number"),
    ({"mode": 3}, "errant: mode must be a string"),
    ({"filt": 3}, "errant: filt must be a list"),
])
def test_wrong_option_types_name_the_option(options: dict[str, Any], message: str) -> None:
    errant = get_metric("errant")
    with pytest.raises(ConfigError, match=message):
        errant(**options)
    with pytest.raises(ConfigError, match=message):  # a Config built directly, too
        errant.Config(**options)


def test_replace_and_positional_config_values_are_read_too() -> None:
    config = get_metric("m2").Config("2")
    assert config.beta == 2.0
    assert get_metric("m2").Config(verbose=1).verbose is True
    assert dataclasses.replace(config, max_unchanged_words="3").max_unchanged_words == 3


# --------------------------------------------------------------------------- missing extras


def _bertscore() -> None:  # pterrant's and ptm2's edit weights
    from gecscope.metrics.bertscore import BERTScorer

    BERTScorer()


def _ucca_parser() -> None:  # usim's default parser
    from gecscope.semantics.parser import get_parser

    get_parser("ucca")


def _usim_alignment() -> None:  # usim's leaf alignment (scipy's assignment solver)
    from gecscope.metrics.usim import usim
    from gecscope.semantics.ucca import Passage

    usim(Passage.from_bracketed("s", "[H [A I] [P has] [A [E a] [C apple]]] [U .]"),
         Passage.from_bracketed("c", "[H [A I] [P have] [A [E an] [C apple]]] [U .]"))


def _chinese_targets() -> None:  # --lang zh: targets converted to simplified characters
    from gecscope.alignment.cherrant import _t2s

    _t2s()


@pytest.mark.parametrize("load, hidden, expected", [
    (_bertscore, ("torch",),
     ["pip install torch==2.13.0 && pip install 'gecscope[sim]'", "transformers"]),
    (_ucca_parser, ("safetensors", "safetensors.numpy"),
     ["pip install torch==2.13.0 && pip install 'gecscope[parser]'", "tokenizers"]),
    (_chinese_targets, ("opencc",), ["pip install 'gecscope[zh]'", "pypinyin==", "opencc=="]),
    (_usim_alignment, ("scipy", "scipy.optimize"),
     ["scipy is needed for USIM", "pip install 'gecscope[ucca]'", "rapidfuzz"]),
    (_usim_alignment, ("numpy",), ["numpy is needed for USIM", "pip install 'gecscope[ucca]'"]),
])
def test_missing_extra_messages_give_the_whole_install(
        load: Callable[[], None], hidden: tuple[str, ...], expected: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A package of the extra made unimportable: the message gives the README's steps (torch
    first for the torch extras) and names the extra's packages (zh: pypinyin and opencc)."""
    for module in hidden:
        monkeypatch.setitem(sys.modules, module, None)  # `import module` now fails
    with pytest.raises(MissingDependencyError) as info:
        load()
    for text in expected:
        assert text in str(info.value)
