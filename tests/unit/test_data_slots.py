"""Derived data of an EvalData lives in typed slots declared by the component that fills them:
a portable slot travels to worker processes (pickled by reference, so the worker finds the
same slot object), a slot with a cut is cut by ``subset``, the rest stays behind."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from gecscope import EvalData, Hypothesis
from gecscope.data import HYPOTHESIS_EDITS, REFERENCE_EDITS
from gecscope.metrics.imeasure.metric import GOLD, REGION_CACHE, load_gold
from gecscope.signature import REFERENCE_HASH, reference_hash
from gecscope.types import Corpus, Slot

DEMO = Path(__file__).resolve().parents[2] / "src" / "gecscope" / "data" / "demo"


def _data() -> EvalData:
    return EvalData.from_m2(DEMO / "references.m2")


def test_a_slot_pickles_as_the_declared_object() -> None:
    assert pickle.loads(pickle.dumps(GOLD)) is GOLD
    assert pickle.loads(pickle.dumps(REFERENCE_EDITS)) is REFERENCE_EDITS
    stray = Slot("gecscope.data", "EvalData")  # a name that is not a slot
    try:
        pickle.loads(pickle.dumps(stray))
    except AssertionError:
        pass
    else:
        raise AssertionError("a pickled slot must resolve to a declared Slot")


def test_portable_slots_travel_and_the_rest_stays_behind() -> None:
    data = _data()
    gold = load_gold(data)
    data.slot(REGION_CACHE, lambda: [{} for _ in range(len(gold))])
    digest = reference_hash(data)
    hyp = Hypothesis.from_file(DEMO / "careful.txt")
    edits = data.reference_edits()  # the M2 itself: any corpus of the right length will do
    data.set_hypothesis_m2(hyp, edits)
    copy = pickle.loads(pickle.dumps(data))
    assert copy.peek(GOLD) == gold  # portable
    assert copy.peek(REGION_CACHE) is None and copy.peek(REFERENCE_HASH) is None  # not
    assert data.peek(REFERENCE_HASH) == digest == reference_hash(copy)
    assert copy.known_hypothesis_m2(hyp) == edits
    assert copy.references == data.references and copy.sources == data.sources


def test_a_fresh_process_finds_the_slots_by_reference(tmp_path: Path) -> None:
    """The worker has not imported the metric that declared the slot: unpickling imports it."""
    data = _data()
    load_gold(data)
    blob = tmp_path / "data.pickle"
    blob.write_bytes(pickle.dumps(data))
    code = ("import pickle, sys\n"
            f"d = pickle.loads(open({str(blob)!r}, 'rb').read())\n"
            "from gecscope.metrics.imeasure.metric import GOLD\n"
            "g = d.peek(GOLD)\n"
            "print(len(g), 'gecscope.metrics.imeasure.metric' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(len(data)), "True"]


def test_subset_cuts_the_slots_that_say_how() -> None:
    data = _data()
    gold = load_gold(data)
    data.slot(REGION_CACHE, lambda: [{} for _ in range(len(gold))])
    assert data.m2 is not None
    data.put(REFERENCE_EDITS, Corpus(data.m2.sentences, "annotated"))
    part = data.subset(2, 5)
    assert part.peek(GOLD) is not None and part.peek(GOLD).sentences == gold.sentences[2:5]
    cut = part.peek(REFERENCE_EDITS)
    assert cut is not None and len(cut) == 3 and cut.path == "annotated"
    assert part.peek(REGION_CACHE) is None  # no cut: a range starts without it
    hyp = Hypothesis.from_file(DEMO / "careful.txt")
    data.set_hypothesis_m2(hyp, data.reference_edits())
    assert data.known_hypothesis_m2(hyp) is not None
    assert part.known_hypothesis_m2(hyp.subset(2, 5)) is None  # hypothesis data: by content
    assert HYPOTHESIS_EDITS.portable and not REGION_CACHE.portable
