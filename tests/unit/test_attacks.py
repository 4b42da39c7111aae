"""Attack systems of the attack audit, built on real data (CoNLL-2014 via GJG15): each attack's
construction checked against what it claims (gecscope.meta_eval.attacks), and the published-
attack reader attacked with tampered files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gecscope.errors import ConfigError, FormatError, LengthMismatchError
from gecscope.meta_eval import attacks as A
from gecscope.types import apply_edits

pytestmark = pytest.mark.requires_data


@pytest.fixture(scope="module")
def gjg15(shared_data: Path) -> object:
    from gecscope.meta_eval.benchmarks import load_gjg15

    c = shared_data / "conll14"
    return load_gjg15(shared_data / "gjg15", c / "submissions", c / "official-2014.combined.m2")


@pytest.fixture(scope="module")
def ctx(gjg15: object) -> A.AttackContext:
    from gecscope.meta_eval.audit import benchmark_test_set

    ts = benchmark_test_set(gjg15)  # type: ignore[arg-type]
    assert ts.human_best == "AMU"  # GJG15 Table 3, Expected Wins
    return A.AttackContext(tuple(ts.source.tokens), ts.data.m2, ts.real, "AMU", ts.data, seed=0)


def test_copy_source_is_input(ctx: A.AttackContext, gjg15: object) -> None:
    out = A.CopySource().build(ctx)
    assert out.name == "attack:copy-source"
    assert out.hypothesis.tokens == gjg15.hypotheses["INPUT"].tokens  # type: ignore[attr-defined]
    assert len(out.hypothesis) == 1312


@pytest.mark.requires_spacy
def test_union_edits_come_from_systems_and_never_overlap(ctx: A.AttackContext) -> None:
    out = A.Union().build(ctx)
    assert out.edits is not None and len(out.edits) == 1312
    per_system = {s: ctx.edits(s) for s in ctx.systems}
    from_two = 0
    for i, edits in enumerate(out.edits):
        for k, e in enumerate(edits):
            for f in edits[k + 1:]:
                assert not A.overlaps(e, f), (i, e, f)
            owners = [s for s, es in per_system.items()
                      if A.edit_key(e) in {A.edit_key(x) for x in es[i]}]
            assert owners, (i, e)  # every edit is some system's
            from_two += len(owners) >= 2
        assert out.hypothesis.tokens[i] == apply_edits(ctx.sources[i], edits)
    # and it is a union: more edits than any one system, many proposed by several systems
    n_union = sum(len(e) for e in out.edits)
    assert n_union > max(sum(len(e) for e in es) for es in per_system.values())
    assert from_two > 100


@pytest.mark.requires_spacy
def test_precise_types_is_a_subset_of_the_best_systems_edits(ctx: A.AttackContext) -> None:
    out = A.PreciseTypes().build(ctx)
    assert ctx.references is not None and out.edits is not None
    best = ctx.edits("AMU")
    table = A.type_precision(best, ctx.references)
    kept = set(out.notes["kept_types"])
    assert kept and kept < set(table)  # some types kept, some dropped
    for t in kept:
        assert table[t].proposed >= A.PreciseTypes.min_edits
        assert table[t].precision >= A.PreciseTypes.min_precision
    for i, (mine, theirs) in enumerate(zip(out.edits, best, strict=True)):
        assert set(mine) <= set(theirs), i
        assert {e for e in theirs if e.type in kept} == set(mine), i
        assert out.hypothesis.tokens[i] == apply_edits(ctx.sources[i], mine)
    assert 0 < out.notes["edits_kept"] < out.notes["edits_of_best"]
    assert out.notes["precision_kept"] > out.notes["precision_of_best"]


def test_chatter_lines_start_or_end_with_the_chatter(ctx: A.AttackContext) -> None:
    best = ctx.systems["AMU"].tokens
    pre = A.ChatterPrefix().build(ctx).hypothesis.tokens
    post = A.ChatterSuffix().build(ctx).hypothesis.tokens
    n = len(A.CHATTER_PREFIX)
    m = len(A.CHATTER_SUFFIX)
    for b, p, q in zip(best, pre, post, strict=True):
        assert p[:n] == A.CHATTER_PREFIX and p[n:] == b
        assert q[-m:] == A.CHATTER_SUFFIX and q[:-m] == b


def test_other_reference_takes_another_rows_reference(ctx: A.AttackContext) -> None:
    refs = ctx.references
    assert refs is not None
    own = [s.reference(0) for s in refs]
    out = A.OtherReference().build(ctx).hypothesis.tokens
    again = A.OtherReference().build(ctx).hypothesis.tokens
    assert out == again  # seeded
    import dataclasses

    other_seed = A.OtherReference().build(dataclasses.replace(ctx, seed=1)).hypothesis.tokens
    assert other_seed != out
    index = {}
    for i, r in enumerate(own):
        index.setdefault(r, []).append(i)
    for i, t in enumerate(out):
        assert t in index, i  # some row's reference...
        assert index[t] != [i], i  # ...not its own (unless two rows share it)
    assert len(set(out)) > 1200  # a permutation, not one sentence repeated


def test_shuffled_and_truncated_references(ctx: A.AttackContext) -> None:
    refs = ctx.references
    assert refs is not None
    shuffled = A.ShuffledReference().build(ctx).hypothesis.tokens
    truncated = A.TruncatedReference().build(ctx).hypothesis.tokens
    moved = 0
    for s, sh, tr in zip(refs, shuffled, truncated, strict=True):
        ref = s.reference(0)
        assert Counter(sh) == Counter(ref)
        if ref and ref[-1] in ".!?":
            assert sh[-1] == ref[-1] and tr[-1] == ref[-1]
            body = ref[:-1]
            assert tr[:-1] == body[:(len(body) + 1) // 2]
        moved += sh != ref
    assert moved > 1100


def test_attacks_needing_references_are_skipped_without(ctx: A.AttackContext) -> None:
    import dataclasses

    bare = dataclasses.replace(ctx, references=None)
    outs, skipped = A.build_attacks(bare, ["copy-source", "other-reference", "truncated-reference"])
    assert [o.attack for o in outs] == ["copy-source"]
    assert set(skipped) == {"other-reference", "truncated-reference"}
    with pytest.raises(ConfigError, match="needs the references"):
        A.OtherReference().build(bare)


def test_user_attack_through_module_class_and_registry(ctx: A.AttackContext, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_attacks.py").write_text(
        "from gecscope.meta_eval.attacks import Attack\n"
        "class Exclaim(Attack):\n"
        "    name = 'exclaim'\n"
        "    description = 'every sentence ends with !'\n"
        "    def build(self, ctx):\n"
        "        return self.output(ctx, [(*t, '!') for t in ctx.sources])\n"
        "class NotAnAttack:\n"
        "    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    outs, _ = A.build_attacks(ctx, ["my_attacks:Exclaim"])
    assert outs[0].name == "attack:exclaim"
    assert all(t[-1] == "!" and t[:-1] == s for t, s in zip(outs[0].hypothesis.tokens,
                                                            ctx.sources, strict=True))
    monkeypatch.setitem(A.ATTACKS, "exclaim", "my_attacks:Exclaim")
    assert A.get_attack("exclaim").__name__ == "Exclaim"
    with pytest.raises(ConfigError, match="not a subclass"):
        A.get_attack("my_attacks:NotAnAttack")
    with pytest.raises(ConfigError, match="unknown attack 'nope'"):
        A.get_attack("nope")
    with pytest.raises(ConfigError, match="module:Class"):
        A.register_attack("x", "no_colon")


def test_context_refuses_a_best_system_it_does_not_have(ctx: A.AttackContext) -> None:
    import dataclasses

    with pytest.raises(ConfigError, match="best system 'NOPE'"):
        dataclasses.replace(ctx, best="NOPE")


def test_overlap_rule() -> None:
    from gecscope.types import Edit

    assert A.overlaps(Edit(1, 3, ("x",)), Edit(2, 4, ("y",)))
    assert not A.overlaps(Edit(1, 3, ("x",)), Edit(3, 4, ("y",)))  # touching
    assert A.overlaps(Edit(2, 2, ("x",)), Edit(2, 2, ("y",)))  # two insertions, one place
    assert A.overlaps(Edit(2, 2, ("x",)), Edit(1, 3, ("y",)))  # inside a replaced span
    assert not A.overlaps(Edit(3, 3, ("x",)), Edit(1, 3, ("y",)))  # at its end


# ---------------------------------------------------------------- published attack files

def _write_full(path: Path, ctx: A.AttackContext) -> None:
    path.write_text("\n".join(" ".join(t) for t in ctx.sources), encoding="utf-8")


def test_attack_dir_reads_whole_test_set_files_and_subsets(ctx: A.AttackContext,
                                                           tmp_path: Path) -> None:
    _write_full(tmp_path / "conll14-some.txt", ctx)
    _write_full(tmp_path / "mine.txt", ctx)
    (tmp_path / "notes.md").write_text("not an attack")
    outs = A.read_attack_dir(tmp_path, tuple(range(1312)), 1312)
    assert [o.name for o in outs] == ["attack:Attack-SOME", "attack:mine"]
    assert outs[0].hypothesis.tokens == ctx.sources
    rows = (4, 9, 1311)
    sub = A.read_attack_dir(tmp_path, rows, 1312, "conll14-*.txt")
    assert sub[0].hypothesis.tokens == tuple(ctx.sources[i] for i in rows)


@pytest.mark.parametrize("damage, message", [
    ("truncated", r"conll14-some\.txt:(\d+): has \1 lines, expected 1312 lines .*truncated"),
    ("extra", r"conll14-some\.txt:1313: has 1313 lines"),
    ("empty", r"conll14-some\.txt: file is empty"),
    ("blank", r"conll14-some\.txt: file is empty"),
    ("latin1", r"conll14-some\.txt:3: byte 0xe9 is not valid UTF-8"),
])
def test_attack_dir_refuses_damaged_files(ctx: A.AttackContext, tmp_path: Path, damage: str,
                                          message: str) -> None:
    path = tmp_path / "conll14-some.txt"
    lines = [" ".join(t) for t in ctx.sources]
    if damage == "truncated":
        path.write_text("\n".join(lines)[: len("\n".join(lines)) // 2], encoding="utf-8")
    elif damage == "extra":
        path.write_text("\n".join([*lines, "one more"]), encoding="utf-8")
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "blank":
        path.write_text("\n" * 1312)
    else:
        data = "\n".join(lines).encode("utf-8")
        cut = data.index(b"\n", data.index(b"\n") + 1) + 1  # start of line 3
        path.write_bytes(data[:cut] + "café".encode("latin-1") + data[cut:])
    with pytest.raises(FormatError, match=message):
        A.read_attack_dir(tmp_path, tuple(range(1312)), 1312)


def test_attack_dir_missing_or_without_matches(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="attack directory not found"):
        A.read_attack_dir(tmp_path / "absent", (0,), 1)
    (tmp_path / "a.tsv").write_text("x\n")
    with pytest.raises(FormatError, match=r"no attack output matches '\*\.txt'"):
        A.read_attack_dir(tmp_path, (0,), 1)


@pytest.mark.parametrize("body, error, message", [
    # one sentence lost (an AttackOutput made by hand, not with self.output)
    ("AttackOutput('attack:short', 'short', Hypothesis('attack:short', ctx.sources[:-1]), 'x')",
     LengthMismatchError, (r"attack '{mod}:Bad' \(attack:short\): has 1311 sentences "
                           r"but 1312 were expected \(as in the test set's sources\)")),
    ("AttackOutput('attack:empty', 'empty', Hypothesis('attack:empty', []), 'x')",
     LengthMismatchError, r"has 0 sentences but 1312 were expected"),
    ("[list(t) for t in ctx.sources]",  # the tokens, not an AttackOutput
     ConfigError, (r"attack '{mod}:Bad': build\(\) returned list, expected an "
                   r"AttackOutput")),
])
def test_a_user_attack_that_builds_a_wrong_output_is_refused(
        ctx: A.AttackContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str,
        error: type[Exception], message: str) -> None:
    import hashlib

    mod = "bad_attack_" + hashlib.sha256(body.encode()).hexdigest()[:8]  # one module a case
    (tmp_path / f"{mod}.py").write_text(
        "from gecscope.data import Hypothesis\n"
        "from gecscope.meta_eval.attacks import Attack, AttackOutput\n"
        "class Bad(Attack):\n"
        "    name = 'bad'\n"
        "    def build(self, ctx):\n"
        f"        return {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(error, match=message.replace("{mod}", mod)):
        A.build_attacks(ctx, ["copy-source", f"{mod}:Bad"])
