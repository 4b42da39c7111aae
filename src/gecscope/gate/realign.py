"""What is done with a plain-text hypothesis whose lines may not be one per source sentence
(``--hyp-level``, ``hyp_level=``): kept line by line, realigned (cut into the source's
sentences by :mod:`gecscope.alignment.sentences`), or refused. One decision, :func:`assess`,
serves ``gecscope evaluate`` (which scores or stops) and ``gecscope check`` (which reports),
so the two never disagree.

The rule (docs/raw-text.md): a cut is made only where it is certain. Under ``auto`` (the
default) a file with one line per source sentence is kept as it is, unless more than a few of
its lines (:data:`MAX_MISPLACED_SHARE`) are other sentences' outputs; a file with another line
count, or with many misplaced lines, is realigned when every sentence gets a confident piece
and no text is left over, and refused otherwise (exit 65), naming the source sentences and
hypothesis lines and the ``--allow`` code that scores it anyway; so is any realignment of
source sentences mostly too short to be evidence (fewer than half of them of
:data:`~gecscope.alignment.sentences.MIN_EVIDENCE` characters). ``paragraph`` always
realigns under the same rule; ``sentence`` never does (another line count is an error with
the first place the lines diverge). A file whose lines are like none of the source sentences
is refused under every level (the output for another test set).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from gecscope.alignment.sentences import (
    MAX_LOW_SHARE,
    MIN_EVIDENCE,
    SentenceAlignment,
    SentenceIndex,
    align_to_index,
)
from gecscope.errors import ConfigError, GecscopeError, LengthMismatchError
from gecscope.gate.findings import ERROR, WARNING, Finding, InputRefusedError, finding
from gecscope.gate.pairing import Pairing, pair_lines
from gecscope.hypothesis import Hypothesis

#: The choices of ``--hyp-level`` and ``hyp_level=``.
HYP_LEVELS = ("sentence", "paragraph", "auto")
#: a few misplaced lines (at most this share of the sentences, and at least 2: a swap) are
#: scored as given, with a warning naming them, as the reference scorers score them (NTHU's
#: official CoNLL-2014 output has 6); more are refused, or realigned when that is certain
MAX_MISPLACED_SHARE = 0.01
#: a hypothesis with this many times the source's characters (or lines) is refused before
#: anything is aligned: it is not an output for this test set (a JSON file given as --hyp)
MAX_SIZE_FACTOR = 4


@dataclass(frozen=True)
class Assessment:
    """What :func:`assess` decided: the hypothesis to score (as given or realigned), what was
    found and done, and the error when it is refused (``refusal``; the caller raises it or,
    in ``gecscope check``, reports it)."""

    hypothesis: Hypothesis
    findings: tuple[Finding, ...]
    refusal: GecscopeError | None = None
    pairing: Pairing | None = None


def check_level(level: str) -> str:
    if level not in HYP_LEVELS:
        raise ConfigError(f"unknown hypothesis level {level!r}; choose one of "
                          f"{', '.join(HYP_LEVELS)}")
    return level


def misplaced_cap(n: int) -> int:
    """How many misplaced lines are scored as given (with a warning) in a file of ``n``."""
    return max(2, int(MAX_MISPLACED_SHARE * n))


def assess(hyp: Hypothesis, index: SentenceIndex, level: str, allow: frozenset[str] = frozenset(),
           origin: str | None = None) -> Assessment:
    """Decide what is scored of ``hyp`` against the source sentences of ``index`` (see the
    module docstring); ``origin`` names the file the sentences come from, for messages."""
    check_level(level)
    where = hyp.path or hyp.name
    if hyp.m2 is not None or hyp.sources is not None:  # pairs every output with its source
        if level == "paragraph":
            return Assessment(hyp, (), InputRefusedError(finding(
                "hyp-level", ERROR, "--hyp-level paragraph needs a plain-text hypothesis (this "
                "one is an M2 or parallel file, which pairs every output with its source "
                "sentence)", file=where, system=hyp.name)))
        return Assessment(hyp, ())
    n, m = len(index), len(hyp)
    lines = [" ".join(t) for t in hyp.tokens]
    too_big = _too_big(hyp, lines, index, origin)
    if too_big is not None:
        return Assessment(hyp, (), too_big)
    pairing = pair_lines(index, lines)
    found: list[Finding] = []
    if pairing.foreign:
        f = _foreign(hyp, pairing, origin, allowed="other-test-set" in allow)
        if f.severity == ERROR:
            return Assessment(hyp, (f,), InputRefusedError(f, "other-test-set"), pairing)
        found.append(f)
        if m != n:
            return Assessment(hyp, tuple(found), _count_error(hyp, n, origin, pairing), pairing)
        return Assessment(hyp, tuple(found), None, pairing)
    if pairing.unlike and not pairing.foreign:
        found.append(_unlike(hyp, pairing))
    many = len(pairing.misplaced) > misplaced_cap(n)
    if m == n and (level == "sentence" or (level == "auto" and not many)):
        if pairing.misplaced:
            f = _misplaced(hyp, pairing, refuse=many and "misplaced-lines" not in allow)
            found.append(f)
            if f.severity == ERROR:
                return Assessment(hyp, tuple(found), InputRefusedError(f, "misplaced-lines"),
                                  pairing)
        return Assessment(hyp, tuple(found), None, pairing)
    if level == "sentence":  # m != n
        return Assessment(hyp, tuple(found), _count_error(hyp, n, origin, pairing), pairing)
    of = f" of {origin}" if origin else ""
    why = (f"{m} lines for {n} source sentences{of}" if m != n else
           f"{len(pairing.misplaced)} of its {m} lines are other source sentences' outputs"
           if many else f"{m} lines, one per source sentence")
    if "uncertain-alignment" not in allow and _too_short(index):
        f = finding("uncertain-alignment", ERROR,
                    f"{hyp.name}: {why}: fewer than half of the source sentences have "
                    f"{MIN_EVIDENCE} characters or more, too little text to realign it with "
                    "certainty; nothing was scored",
                    "give one line per source sentence; --allow uncertain-alignment "
                    "realigns it anyway", file=hyp.path or hyp.name, system=hyp.name,
                    short=f"{hyp.name}: realignment uncertain", origin=origin)
        return Assessment(hyp, (*found, f), InputRefusedError(f, "uncertain-alignment"),
                          pairing)
    aligned = align_to_index(index, lines)
    if m == n and many and "misplaced-lines" in allow and not aligned.certain:
        found.append(_misplaced(hyp, pairing, refuse=False))
        return Assessment(hyp, tuple(found), None, pairing)
    if not aligned.certain:
        refused = aligned.failures > MAX_LOW_SHARE * n or "uncertain-alignment" not in allow
        if refused:
            f = _uncertain(hyp, aligned, pairing, why, level, m == n and many, origin)
            return Assessment(hyp, (*found, f), InputRefusedError(f, "uncertain-alignment"
                              if aligned.failures <= MAX_LOW_SHARE * n else None), pairing)
    moves = ", ".join(f"{v} {k}" for k, v in sorted(aligned.moves().items(),
                                                   key=lambda kv: -kv[1]))
    done = (f"{hyp.name}: {why}: aligned to the source's sentences as paragraphs "
            f"(--hyp-level {level}; sentences per move {moves})")
    if aligned.failures:
        done += (f"; {aligned.failures} sentence(s) aligned with low confidence, scored as "
                 f"aligned (--allow uncertain-alignment): {aligned.problems(limit=20)}")
    found.append(finding("realigned", WARNING, done, "", file=where, system=hyp.name,
                         lines=[i + 1 for i in aligned.low],
                         short=f"{hyp.name}: cut from {m} lines"))
    tokens = [tuple(t.split()) for t in aligned.texts]
    out = hyp.prepared(tokens, f"cut from {m} {'paragraph ' if m < n else ''}"
                               f"line{'s' if m != 1 else ''} (--hyp-level {level})")
    return Assessment(out, tuple(found), None, pairing)


def _too_big(hyp: Hypothesis, lines: Sequence[str], index: SentenceIndex,
             origin: str | None) -> GecscopeError | None:
    n, m = len(index), len(lines)
    chars = sum(len(t) for t in lines)
    source_chars = sum(len(k) for k in index.keys) + n  # the keys have no spaces
    if chars <= MAX_SIZE_FACTOR * source_chars + 10_000 and m <= MAX_SIZE_FACTOR * n + 100:
        return None
    from gecscope.errors import FormatError

    return FormatError(f"has {m:,} lines and {chars:,} characters for {n:,} source sentences "
                       f"of {source_chars:,} characters{f' ({origin})' if origin else ''}: "
                       f"more than {MAX_SIZE_FACTOR} times the source, so it is not an output "
                       "for this test set (a wrong file given as --hyp?); nothing was aligned "
                       "or scored", hyp.path or hyp.name)


def _too_short(index: SentenceIndex) -> bool:
    """Whether most source sentences are too short to place text by (a toy corpus, a list
    of words): realigning them would be a guess."""
    return sum(len(k) >= MIN_EVIDENCE for k in index.keys) * 2 < len(index)


def _count_error(hyp: Hypothesis, n: int, origin: str | None, pairing: Pairing) -> GecscopeError:
    err = LengthMismatchError(n, len(hyp), hyp.path or hyp.name, "lines", origin)
    first = pairing.first_divergence() if pairing.sentence_file else None
    extra = f"; {first}" if first else ""
    err.args = ((f"{err}{extra}; if its lines are paragraphs or re-segmented sentences, "
                "--hyp-level auto realigns them"),)
    return err


def _foreign(hyp: Hypothesis, pairing: Pairing, origin: str | None, allowed: bool) -> Finding:
    share = pairing.foreign_share
    msg = (f"{hyp.name}: {share:.0%} of its sentences are like none of the {pairing.n_sources} source "
           f"sentences{f' of {origin}' if origin else ''} (character trigram similarity under "
           f"0.3 to every one; {len(pairing.unlike)} of its {pairing.n_lines} lines): it looks "
           "like the output for another test set")
    if allowed:
        return finding("other-test-set", WARNING, msg + "; scored line by line as asked "
                       "(--allow other-test-set)", "", file=hyp.path, system=hyp.name,
                       lines=[j + 1 for j in pairing.unlike], short=f"{hyp.name}: another "
                       "test set?", share=share)
    return finding("other-test-set", ERROR, msg + "; nothing was scored",
                   "give the system's output for this test set; --allow other-test-set "
                   "scores it anyway", file=hyp.path or hyp.name, system=hyp.name,
                   lines=[j + 1 for j in pairing.unlike], short=f"{hyp.name}: another test set?",
                   share=share)


def _unlike(hyp: Hypothesis, pairing: Pairing) -> Finding:
    k = len(pairing.unlike)
    return finding("unlike-lines", WARNING,
                   f"{hyp.name}: {k} line(s) are like none of the source sentences (character "
                   "trigram similarity under 0.3, their own included): rewritten beyond "
                   "recognition, or text of no source sentence (an LLM's comment)",
                   "check those lines", file=hyp.path, system=hyp.name,
                   lines=[j + 1 for j in pairing.unlike], short=f"{hyp.name}: {k} unlike lines")


def _misplaced(hyp: Hypothesis, pairing: Pairing, refuse: bool) -> Finding:
    k = len(pairing.misplaced)
    lines = sorted({m.line + 1 for m in pairing.misplaced})
    cap = misplaced_cap(pairing.n_sources)
    msg = (f"{hyp.name}: {k} line(s) look like the output of another source sentence: "
           f"{pairing.describe()}")
    if refuse:
        return finding("misplaced-lines", ERROR,
                       f"{msg}; {pairing.first_divergence() or ''}; more than {cap} such "
                       "lines, so nothing was scored",
                       "repair the file (one line per source sentence, in order); if the "
                       "system merged and split sentences across lines, --hyp-level paragraph "
                       "realigns them; --allow misplaced-lines scores the lines as they are",
                       file=hyp.path or hyp.name, system=hyp.name, lines=lines,
                       short=f"{hyp.name}: {k} misplaced lines")
    return finding("misplaced-lines", WARNING,
                   f"{msg}; scored as given (each against the source sentence of its line, "
                   "as the reference scorers do)",
                   "repair the file where lines were swapped, lost or added",
                   file=hyp.path, system=hyp.name, lines=lines,
                   short=f"{hyp.name}: {k} misplaced lines")


def _uncertain(hyp: Hypothesis, aligned: SentenceAlignment, pairing: Pairing, why: str,
               level: str, misplaced: bool, origin: str | None) -> Finding:
    n = len(aligned.pieces)
    first = pairing.first_divergence() if pairing.sentence_file else None
    looks = (f"; it looks like a sentence-per-line file with lines lost, added or moved: "
             f"{first}" if first else "")
    incomplete = "" if aligned.complete else (
        "; the text could not be placed within the alignment's band (text far from where "
        "its length puts it)")
    msg = (f"{hyp.name}: {why}{looks}; realigning it to the source's sentences (--hyp-level "
           f"{level}) left {aligned.failures} sentence(s) or stretch(es) of text without a "
           f"certain match: {aligned.problems()}{incomplete}; nothing was scored")
    if aligned.failures > MAX_LOW_SHARE * n:
        fix = (f"more than {MAX_LOW_SHARE:.0%} of the sentences: repair the file (give one line "
               "per source sentence, or the paragraphs the sentences came from)")
    else:
        fix = ("repair the file where lines were lost or added; if its lines are paragraphs "
               "and the sentences named were really dropped or rewritten, --allow "
               "uncertain-alignment scores them as aligned (listed)")
    if misplaced:
        fix += "; --allow misplaced-lines scores the lines as they are"
    lines = sorted({k + 1 for i in aligned.low for k in aligned.pieces[i].lines}
                   | {k + 1 for k, _ in aligned.extra})
    return finding("uncertain-alignment", ERROR, msg, fix, file=hyp.path or hyp.name,
                   system=hyp.name, lines=lines, short=f"{hyp.name}: realignment uncertain",
                   sentences=[i + 1 for i in aligned.low], origin=origin)


def realign(hyp: Hypothesis, index: SentenceIndex, level: str = "paragraph",
            allow: frozenset[str] = frozenset(), origin: str | None = None
            ) -> tuple[Hypothesis, list[Finding]]:
    """``hyp`` as :func:`assess` would score it, and the findings; a refusal is raised."""
    a = assess(hyp, index, level, allow, origin)
    if a.refusal is not None:
        raise a.refusal
    return a.hypothesis, list(a.findings)


def replace_severity(found: Finding, severity: str) -> Finding:
    return dataclasses.replace(found, severity=severity)
