"""The gate: everything a user hands in passes here before a metric sees it.

:func:`admit` takes the references (:class:`~gecscope.data.EvalData`) and the hypotheses as
read, and returns them aligned and checked, with what was found and done
(:class:`Admitted`), or raises a typed error (exit 65 on the command line). Every entry point
calls it: ``gecscope evaluate``, ``compare``, ``explain``, ``usim``, ``check`` (which reports
instead of raising), :func:`gecscope.evaluate`, ``Metric.corpus_score`` /
``sentence_scores`` / ``score`` / ``evaluate``, and the meta-evaluation, which scores through
:func:`gecscope.evaluate`. In order, for each hypothesis:

1. **size and pairing** (:mod:`~gecscope.gate.realign`, :mod:`~gecscope.gate.pairing`): a
   plain-text file far larger than the source is refused; lines like none of the source
   sentences (another test set) are refused; lines that are other sentences' outputs
   (swapped, shifted, lost and added) are named, and refused when more than a few; a file
   with another line count is realigned to the source's sentences only where that is
   certain (``hyp_level``);
2. **consistency** (:mod:`~gecscope.gate.consistency`): parallel rows matched by id, one
   sentence per reference sentence with the references' ids and sources;
3. **limits** (:mod:`~gecscope.gate.limits`): sentences over ``max_tokens`` refused (or
   scored as the source, ``long_lines="source"``), in the sources and references too;
4. **tokens** (:mod:`~gecscope.gate.retokenise`): typography written as the references write
   it and the text re-tokenised the way they were made (``hyp_normalise``, ``hyp_tokenise``);
5. **warnings** (:mod:`~gecscope.gate.warnings`): what can be scored but looks wrong.

What was found is data (:class:`~gecscope.gate.findings.Finding`): the CLI prints each as a
line, Python callers get an :class:`~gecscope.errors.InputWarning` with the same text
(:func:`emit`). A refusal names the ``allow`` code that scores anyway, when there is one.
"""

from __future__ import annotations

import warnings as pywarnings  # gate.warnings, the submodule, takes the name
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gecscope.alignment.sentences import SentenceIndex
from gecscope.data import EvalData
from gecscope.errors import InputWarning
from gecscope.gate.consistency import align_hypothesis, check_hypothesis
from gecscope.gate.findings import (
    ALLOWABLE,
    ERROR,
    INFO,
    WARNING,
    Finding,
    InputRefusedError,
    check_allow,
)
from gecscope.gate.limits import (
    LONG_LINES,
    MAX_TOKENS,
    check_data_lines,
    check_limit,
    guard_long_lines,
)
from gecscope.gate.realign import HYP_LEVELS, Assessment, assess, check_level
from gecscope.gate.retokenise import (
    HYP_NORMALISE,
    HYP_TOKENISE,
    check_mode,
    check_normalise,
    retokenise,
    typography,
)
from gecscope.gate.warnings import input_warnings
from gecscope.hypothesis import Hypothesis
from gecscope.types import Slot

__all__ = ["ALLOWABLE", "HYP_LEVELS", "HYP_NORMALISE", "HYP_TOKENISE", "LONG_LINES",
           "MAX_TOKENS", "Admitted", "Finding", "GateOptions", "InputRefusedError", "admit",
           "align_hypothesis", "assess", "check_hypothesis", "emit", "source_index"]


@dataclass(frozen=True)
class GateOptions:
    """How inputs are prepared, the same on the command line and in Python:
    ``hyp_tokenise`` (``--hyp-tokenise``: none, spacy, nltk, auto), ``hyp_level``
    (``--hyp-level``: sentence, paragraph, auto), ``hyp_normalise`` (``--hyp-normalise``:
    auto writes typographic quotes, dashes and ellipses as the references do when a
    hypothesis is re-tokenised; none keeps them), ``max_tokens`` and ``long_lines``
    (``--max-tokens``, ``--long-lines``) and ``allow`` (``--allow CODE``: what to score
    anyway, :data:`~gecscope.gate.findings.ALLOWABLE`)."""

    hyp_tokenise: str = "none"
    hyp_level: str = "auto"
    hyp_normalise: str = "auto"
    max_tokens: int = MAX_TOKENS
    long_lines: str = "error"
    allow: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        check_mode(self.hyp_tokenise)
        check_level(self.hyp_level)
        check_normalise(self.hyp_normalise)
        check_limit(self.max_tokens, self.long_lines)
        object.__setattr__(self, "allow", check_allow(self.allow))

    @classmethod
    def of(cls, options: GateOptions | None = None, **given: object) -> GateOptions:
        """``options`` with the keyword arguments given (``None`` values ignored)."""
        import dataclasses

        base = options or cls()
        changes = {k: v for k, v in given.items() if v is not None}
        return dataclasses.replace(base, **changes) if changes else base  # type: ignore[arg-type]


@dataclass(frozen=True)
class Admitted:
    """What passed the gate: the data, the hypotheses as they will be scored (realigned,
    re-tokenised...: their :attr:`~gecscope.hypothesis.Hypothesis.notes` say how) and what
    was found and done."""

    data: EvalData
    hypotheses: list[Hypothesis]
    findings: list[Finding]


#: the source sentences' trigram index, built once per data
SOURCE_INDEX: Slot[SentenceIndex] = Slot(__name__, "SOURCE_INDEX")


def source_index(data: EvalData) -> SentenceIndex:
    """The :class:`~gecscope.alignment.sentences.SentenceIndex` of ``data``'s sources."""
    return data.slot(SOURCE_INDEX, lambda: SentenceIndex.of([" ".join(t)
                                                             for t in data.sources]))


def origin(data: EvalData) -> str | None:
    """The file the source sentences come from, for messages."""
    return data.reference_paths[0] if data.m2 is not None else data.source_path


def admit(data: EvalData, hypotheses: Sequence[Hypothesis],
          options: GateOptions | None = None) -> Admitted:
    """``hypotheses`` aligned and checked against ``data`` (see the module docstring), or a
    typed error: :class:`~gecscope.gate.findings.InputRefusedError`,
    :class:`~gecscope.errors.FormatError`, :class:`~gecscope.errors.LengthMismatchError`
    (exit 65), :class:`~gecscope.errors.ConfigError` (64)."""
    opts = options or GateOptions()
    len(data)  # reads the references (and their ids)
    check_data_lines(data, opts.max_tokens)
    out: list[Hypothesis] = []
    found: list[Finding] = []
    for hyp in hypotheses:
        h, f = admit_one(data, hyp, opts)
        out.append(h)
        found += f
    found += input_warnings(data, out)
    return Admitted(data, out, found)


#: derived-data key of an admitted hypothesis (with its options)
_ADMITTED = "gate.admitted"


def admit_one(data: EvalData, hyp: Hypothesis, opts: GateOptions
              ) -> tuple[Hypothesis, list[Finding]]:
    """One hypothesis through steps 1-4 of the module docstring (its warnings, step 5, are
    :func:`admit`'s); cached by content, so a training loop that scores the same output
    again pays nothing."""
    # keyed by name and path too: two files with one content keep their own names and findings
    return data.derived(hyp, (_ADMITTED, opts, hyp.name, hyp.path),
                        lambda: _admit_one(data, hyp, opts))


def _admit_one(data: EvalData, hyp: Hypothesis, opts: GateOptions
               ) -> tuple[Hypothesis, list[Finding]]:
    found: list[Finding] = []
    if hyp.m2 is None and hyp.sources is None or opts.hyp_level == "paragraph":
        a: Assessment = assess(hyp, source_index(data), opts.hyp_level, opts.allow, origin(data))
        if a.refusal is not None:
            raise a.refusal
        hyp = a.hypothesis
        found += a.findings
    hyp = align_hypothesis(data, hyp)
    hyp, long = guard_long_lines(hyp, data, opts.max_tokens, opts.long_lines)
    if long is not None:
        found.append(long)
    if opts.hyp_tokenise != "none":
        if opts.hyp_normalise == "auto":
            hyp, said = typography(data, hyp)
            found += _note(hyp, said)
        hyp, said = retokenise(data, hyp, opts.hyp_tokenise)
        found += _note(hyp, said)
    return hyp, found


def _note(hyp: Hypothesis, message: str | None) -> list[Finding]:
    from gecscope.gate.findings import finding

    if not message:
        return []
    return [finding("prepared", INFO, message, file=hyp.path, system=hyp.name)]


def emit(findings: Iterable[Finding], stacklevel: int = 3) -> None:
    """Warn with :class:`~gecscope.errors.InputWarning` for every finding (the text the CLI
    prints), errors aside (they were raised)."""
    for f in findings:
        if f.severity in (WARNING, INFO):
            pywarnings.warn(f.message, InputWarning, stacklevel=stacklevel)


__all__ += ["ERROR", "INFO", "WARNING"]
