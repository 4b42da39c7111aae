"""Findings about an evaluation's inputs, each with its severity, file, lines and fix: what
``gecscope check`` reports in full and ``gecscope evaluate`` summarises in one line.

Every finding here is a way to get a wrong number with no error: shifted lines, empty lines,
another character width than the references', a hypothesis that is the source or a
reference, repeated lines, line ends and byte-order marks other tools read differently, and a
test set recognised by hash with the scorer its papers report. The detokenisation, M2-role and
Unicode-form checks are the gate's (:mod:`gecscope.gate.warnings`, the warnings of every
evaluation), and what is done with lines out of place is the gate's decision
(:func:`gecscope.gate.realign.assess`): ``check`` reports the same findings, so each is
detected in one place.

The checks on sentences work on tokens (``Sequence[Sequence[str]]``) already read, so
:func:`content_findings` is cheap enough to run on every evaluation; :func:`file_findings`
reads a file's bytes again (line ends, BOM, encoding).
"""

from __future__ import annotations

import dataclasses
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gecscope.data import EvalData
from gecscope.gate.findings import (
    ERROR,
    INFO,
    SEVERITIES,
    WARNING,
    Finding,
    counts,
    finding,
    format_lines,
)
from gecscope.gate.warnings import hypothesis_warnings
from gecscope.hypothesis import Hypothesis
from gecscope.testsets import KnownFile, identify
from gecscope.types import Tokens

__all__ = ["SEVERITIES", "Finding", "check_files", "counts", "evaluation_findings",
           "format_lines", "summary_line"]

Lines = Sequence[Tokens]
_finding = finding


# -- files ------------------------------------------------------------------------------------

#: characters str.splitlines() ends a line at (and Python's io does not): tools that split
#: with it see more lines than gecscope, which splits at \n (and CR)
_SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True)
class RawFile:
    """A text file read without failing: its lines (line ends removed, nothing else) and how
    its bytes looked."""

    path: str
    data: bytes
    lines: list[str]
    bom: bool
    crlf: int
    lone_cr: int
    #: (line, byte offset) of the first byte that is not UTF-8, if any
    bad_utf8: tuple[int, int] | None
    nul_line: int | None


def read_raw(path: str | Path) -> RawFile:
    """``path`` read leniently (bad UTF-8 replaced), for checks that report what a reader
    would refuse; ``-`` is standard input (read once, kept for the readers after). A missing
    file raises :class:`~gecscope.errors.FormatError` (the caller reports it)."""
    from gecscope.formats.base import read_bytes

    data = read_bytes(path)
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    bad: tuple[int, int] | None = None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = (body[: exc.start].count(b"\n") + 1, exc.start)
        text = body.decode("utf-8", errors="replace")
    nul = body.find(b"\x00")
    crlf = body.count(b"\r\n")
    lone = body.count(b"\r") - crlf
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return RawFile(str(path), data, lines, body is not data, crlf, lone, bad,
                   body[:nul].count(b"\n") + 1 if nul >= 0 else None)


def file_findings(raw: RawFile, role: str) -> list[Finding]:
    """What a file's bytes show: not UTF-8, NUL bytes, no content (errors: gecscope refuses
    them); a BOM and CRLF line ends (gecscope reads them, other scorers may not); stray CRs
    and other line separators (a line-count difference between tools)."""
    f = raw.path
    out: list[Finding] = []
    if raw.bad_utf8 is not None:
        line, offset = raw.bad_utf8
        out.append(_finding("encoding", ERROR, f"{role} is not UTF-8 (byte offset {offset})",
                            "convert it to UTF-8, e.g. `iconv -f LATIN1 -t UTF-8`",
                            file=f, lines=[line], short="not UTF-8"))
    if raw.nul_line is not None:
        out.append(_finding("nul-bytes", ERROR, f"{role} contains NUL bytes (a binary or "
                            "UTF-16 file?)", "give the text file, in UTF-8", file=f,
                            lines=[raw.nul_line], short="NUL bytes"))
    if not any(ln.strip() for ln in raw.lines):
        out.append(_finding("empty-file", ERROR, f"{role} has no text", "give the right file",
                            file=f, short="empty file"))
    if raw.bom:
        out.append(_finding("bom", INFO, f"{role} starts with a UTF-8 byte-order mark; gecscope "
                            "drops it, but m2scorer and errant read it as part of the first "
                            "token", "remove it for other tools: `sed -i '1s/^\\xEF\\xBB\\xBF//' "
                            "FILE`", file=f, lines=[1], short="BOM"))
    if raw.crlf:
        lf = raw.data.count(b"\n") - raw.crlf
        mixed = f" and {lf} LF" if lf else ""
        out.append(_finding("crlf", INFO, f"{role} has {raw.crlf} CRLF (Windows){mixed} line "
                            "ends; gecscope reads them as line ends, scripts that split at "
                            "'\\n' keep a '\\r' on every token at a line end",
                            "convert for other tools: `sed -i 's/\\r$//' FILE`", file=f,
                            short="CRLF line ends", crlf=raw.crlf, lf=lf))
    if raw.lone_cr:
        where = [i + 1 for i, ln in enumerate(_lf_lines(raw)) if "\r" in ln.rstrip("\r")]
        out.append(_finding("lone-cr", WARNING, f"{role} has {raw.lone_cr} carriage return(s) "
                            "that do not end a CRLF: gecscope (and Python's text files) read "
                            "each as a line end, `wc -l` and awk do not, so lines are counted "
                            "differently", "remove them (`tr -d '\\r'`) or make them line ends "
                            "on purpose", file=f, lines=where, short="stray CR"))
    seps = [i + 1 for i, ln in enumerate(raw.lines) if any(c in ln for c in _SPLITLINES_ONLY)]
    if seps:
        out.append(_finding("line-separator", WARNING, f"{role} has Unicode line or page "
                            "separators (U+2028, U+0085, form feed ...) inside lines: gecscope "
                            "keeps them in the line, tools that split with str.splitlines() "
                            "see more lines", "replace them by spaces", file=f, lines=seps,
                            short="line separators"))
    return out


def _lf_lines(raw: RawFile) -> list[str]:
    text = raw.data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.split("\n")


def testset_findings(raw: RawFile, role: str, registry: Iterable[KnownFile],
                     metrics: Sequence[str] | None = None,
                     said: set[tuple[str, str]] | None = None) -> list[Finding]:
    """Which known test-set file ``raw`` is (an ``info`` finding with the scorer and flags its
    papers report, plus the entry's own warning); a hypothesis that is a known reference or
    source is a warning. ``metrics``: the metrics asked for, compared with the entry's
    flags. ``said``: the (scorer, flags) already reported for another file (they are not
    repeated), updated."""
    match = identify(raw.data, registry)
    if match is None:
        return []
    e = match.entry
    how = "" if match.exact else (" (its normalised form: it differs from the registered "
                                  "file only by line ends, a BOM or trailing blanks)")
    out = []
    if role == "hypothesis" and e.role != "system output":
        out.append(_finding("hypothesis-is-testset", WARNING,
                            f"the hypothesis is {e.name} ({e.role}){how}, not a system output",
                            "give the system's output as --hyp", file=raw.path,
                            short=f"hypothesis is {e.name}", testset=e.to_json()))
        return out
    text = f"{role} is {e.name}{how}"
    fix = f"score with {e.flags}" if e.flags else ""
    if said is not None and (e.scorer, e.flags) in said:
        fix = ""  # said for another file of the same test set
    else:
        if e.scorer:
            text += f"; its papers report {e.scorer}"
        if e.note:
            text += f" ({e.note})"
        asked = list(metrics or [])
        named = {t for t in e.flags.split() if t and not t.startswith("-")}
        if asked and "-m" in e.flags.split() and not named & set(asked):
            text += f"; you asked for {', '.join(asked)}"
        if said is not None and (e.scorer or e.flags):
            said.add((e.scorer, e.flags))
    out.append(_finding("testset", INFO, text, fix, file=raw.path, short=e.name,
                        testset=e.to_json(), exact=match.exact))
    if e.warning:
        out.append(_finding("testset-warning", WARNING, f"{role} is {e.name}: {e.warning}",
                            fix or "see the registry entry", file=raw.path,
                            short=f"{e.name}: {e.warning.split(';')[0]}", testset=e.to_json()))
    return out


def incomplete_sets(found: Sequence[Finding]) -> list[Finding]:
    """A warning when the reference files recognised (``testset`` findings) are some of the
    files of a set (registry keys ``set`` and ``set_size``: JFLEG's four references) and not
    all: GLEU with one reference is not the published number."""
    sets: dict[str, dict[str, Any]] = {}
    for f in found:
        entry = f.data.get("testset", {})
        if isinstance(entry.get("set"), str) and isinstance(entry.get("set_size"), int):
            got = sets.setdefault(entry["set"], {"size": entry["set_size"], "files": {},
                                                 "flags": entry.get("flags", "")})
            got["files"].setdefault(entry.get("sha256"), f.file)
    out = []
    for name, got in sets.items():
        files = [p for p in got["files"].values() if p]
        if len(got["files"]) < got["size"]:
            out.append(_finding(
                "testset-incomplete", WARNING,
                f"the references are {len(got['files'])} of the {got['size']} files of "
                f"{name} ({', '.join(files)}); the published numbers use all of them",
                f"give all {got['size']}" + (f": {got['flags']}" if got["flags"] else ""),
                file=files[0] if files else None, short=f"only {len(got['files'])} of the {got['size']} {name}",
                set=name))
    return out


# -- sentences --------------------------------------------------------------------------------


#: the full-width punctuation of Chinese text and its half-width (ASCII) form; NFKC maps all
#: but the ideographic full stop, which has no compatibility form
CJK_PUNCTUATION = {"，": ",", "。": ".", "？": "?", "！": "!", "：": ":", "；": ";", "（": "(",
                   "）": ")"}


#: the typographic quotes LLMs write ("don’t", “so”) and the straight ones of tokenised
#: English test sets (NUCLE's "do n't"): no compatibility form, but every one is an edit
#: (CoNLL-2014 AMU detokenised with them, --hyp-tokenise auto: M2 F0.5 0.3490 -> 0.3325)
TYPOGRAPHIC_QUOTES = {"’": "'", "‘": "'", "“": '"', "”": '"'}


def _compat_pairs(chars: Iterable[str]) -> dict[str, str]:
    """Characters whose NFKC form differs (full-width letters and punctuation, ligatures,
    '…'), and typographic quotes, with that form; whitespace forms (no-break space) are left
    out, tokens split there anyway."""
    out = {}
    for c in chars:
        if c in CJK_PUNCTUATION or c in TYPOGRAPHIC_QUOTES:
            out[c] = CJK_PUNCTUATION.get(c) or TYPOGRAPHIC_QUOTES[c]
            continue
        d = unicodedata.normalize("NFKC", c)
        if d != c and d.strip() and not c.isspace():
            out[c] = d
    return out


_JOINED: dict[int, tuple[Sequence[Lines], str, frozenset[str]]] = {}


def _joined(references: Sequence[Lines]) -> tuple[str, frozenset[str]]:
    """The references' text and its characters, kept for the last references seen (every
    hypothesis of an evaluation is compared with the same ones)."""
    key = id(references[0])
    hit = _JOINED.get(key)
    if hit is None or len(hit[0]) != len(references) or \
            any(a is not b for a, b in zip(hit[0], references, strict=True)):
        text = "\n".join(" ".join(t) for r in references for t in r)
        _JOINED.clear()
        hit = _JOINED[key] = (list(references), text, frozenset(text))
    return hit[1], hit[2]


def width_findings(name: str, path: str | None, hypothesis: Lines,
                   references: Sequence[Lines], sources: Lines | None = None) -> list[Finding]:
    """Characters the hypothesis writes in another Unicode compatibility form than the
    references (full-width '，' where they have ',', or the reverse; '…' against '...',
    full-width letters and digits; the CJK punctuation ChERRANT's inputs use): each is an
    edit no reference has. Without references, the sources are compared."""
    against = [r for r in references if r] or ([sources] if sources else [])
    if not against:
        return []
    hyp_lines = [" ".join(t) for t in hypothesis]
    src_lines = [" ".join(t) for t in sources or ()]
    hyp_text = "\n".join(hyp_lines)
    ref_text, ref_chars = _joined(against)
    pairs = _compat_pairs(set(hyp_text) | ref_chars)
    if not pairs:
        return []

    def written(form: str) -> list[int]:
        """Per hypothesis line, the occurrences of ``form`` its source line does not have
        (a form kept from the source against a reference that changed it is the system's
        miss, not a question of form)."""
        return [max(0, ln.count(form) - (src_lines[i].count(form) if i < len(src_lines)
                                         else 0)) if form in ln else 0
                for i, ln in enumerate(hyp_lines)]

    found: list[tuple[str, str, int]] = []  # (hypothesis form, references' form, count)
    where: set[int] = set()
    for c, d in sorted(pairs.items()):
        per_c, per_d = written(c), written(d)
        hc, hd = sum(per_c), sum(per_d)
        rc, rd = ref_text.count(c), ref_text.count(d)
        # the references write c (not d) and the hypothesis d, or the reverse: once is
        # enough when the references never use the hypothesis' form
        if rc and (not rd and hd or rc > 4 * rd and hd > hc and hd >= 2):
            found.append((d, c, hd))
            where.update(i + 1 for i, k in enumerate(per_d) if k)
        elif rd and (not rc and hc or rd > 4 * rc and hc > hd and hc >= 2):
            found.append((c, d, hc))
            where.update(i + 1 for i, k in enumerate(per_c) if k)
    if not found:
        return []
    lines = sorted(where)
    listed = ", ".join(f"'{h}' for '{r}' ({n})" for h, r, n in found[:8])
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    full = sum(1 for h, _, _ in found if unicodedata.east_asian_width(h[0]) in "FW")
    quotes = sum(1 for h, r, _ in found if h in TYPOGRAPHIC_QUOTES or r in TYPOGRAPHIC_QUOTES)
    kind = ("typographic-quote" if quotes == len(found) else "full-width" if full == len(found)
            else "half-width" if not full and not quotes else "other compatibility")
    what = "the references" if references and any(references) else "the source"
    return [_finding("width", WARNING,
                     f"{name} writes {kind} forms where {what} have the other: {listed}{more}, "
                     f"on {len(lines)} line(s); each is an edit no reference contains",
                     "write the hypothesis in the references' forms (docs/check.md#width: "
                     "NFKC gives the half-width ones; ChERRANT's inputs use full-width "
                     "Chinese punctuation; typographic quotes: replace ’ ‘ with ' and “ ” "
                     "with \" as the references write them); if the source file the system "
                     "corrected has the hypothesis' forms, give it with -s beside the M2", file=path, system=name, lines=lines,
                     short=f"{kind} characters",
                     pairs=[{"hypothesis": h, "references": r, "count": n}
                            for h, r, n in found])]


def content_findings(name: str, path: str | None, hypothesis: Lines, sources: Lines,
                     references: Sequence[Lines] = (),
                     hypothesis_sources: Lines | None = None) -> list[Finding]:
    """What the sentences show, line by line against the source: empty lines, a hypothesis
    that is the source or a reference, repeated lines, other character forms than the
    references' (lines out of place are the gate's pairing, :mod:`gecscope.gate.pairing`). ``hypothesis`` and ``sources`` may differ in length (the common
    lines are compared)."""
    out: list[Finding] = []
    n = min(len(hypothesis), len(sources))
    empty = [i + 1 for i in range(n) if not hypothesis[i] and len(sources[i]) >= 2]
    if empty:
        out.append(_finding("empty-lines", WARNING,
                            f"{name}: {len(empty)} empty line(s) where the source has text; "
                            "scored as deleting the whole sentence",
                            "check the system's output there (a failed request, a lost line); "
                            "write the source back if it was meant unchanged",
                            file=path, system=name, lines=empty,
                            short=f"{name}: {len(empty)} empty lines"))
    filled = [i + 1 for i in range(n) if hypothesis[i] and not sources[i]]
    if filled:
        out.append(_finding("text-for-empty-source", WARNING,
                            f"{name}: {len(filled)} line(s) have text where the source line "
                            "is empty", "align the file with the source (one line per source "
                            "line, empty lines kept)", file=path, system=name, lines=filled,
                            short=f"{name}: text for empty source lines"))
    texts = [tuple(t) for t in hypothesis[:n]]
    content = [i for i in range(n) if sources[i]]
    if len(content) >= 10:
        same = [i + 1 for i in content if texts[i] == tuple(sources[i])]
        if len(same) >= 0.99 * len(content):
            out.append(_finding(
                "identical-to-source", WARNING,
                f"{name}: {len(same)} of {len(content)} lines ({100 * len(same) / len(content):.0f}%) "
                "are the source unchanged: the source given as the hypothesis, or the system "
                "did not run", "give the system's output as --hyp (a do-nothing baseline looks "
                "like this on purpose)", file=path, system=name, lines=[],
                short=f"{name} is the source", share=len(same) / len(content)))
        for k, ref in enumerate(references):
            if len(ref) < n:
                continue
            hit = sum(1 for i in content if texts[i] == tuple(ref[i]))
            changed = sum(1 for i in content if tuple(ref[i]) != tuple(sources[i]))
            if changed and hit >= 0.95 * len(content) and \
                    hit - (len(content) - changed) >= 0.9 * changed:
                out.append(_finding(
                    "identical-to-reference", WARNING,
                    f"{name}: {hit} of {len(content)} lines are reference {k}: a reference "
                    "given as the hypothesis", "give the system's output as --hyp",
                    file=path, system=name, short=f"{name} is reference {k}", reference=k))
                break
    repeated = [i + 1 for i in range(1, n)
                if len(texts[i]) >= 3 and texts[i] == texts[i - 1] and
                tuple(sources[i]) != tuple(sources[i - 1]) and texts[i] != tuple(sources[i])]
    if repeated:
        out.append(_finding("repeated-lines", WARNING,
                            f"{name}: {len(repeated)} line(s) repeat the line before while "
                            "their sources differ (a retry written twice, a lost line)",
                            "repair the file: each line is the output for its source line",
                            file=path, system=name, lines=repeated,
                            short=f"{name}: {len(repeated)} repeated lines"))
    # the forms the edits are found against: the -s file beside an M2 when one was given
    # (EvalData.hypothesis_sources; ChERRANT's demo.input has the '：' its M2 writes ':')
    out += width_findings(name, path, hypothesis, references, hypothesis_sources or sources)
    return out


def line_count_finding(name: str, path: str, got: int, expected: int, expected_from: str,
                       raw_lines: Sequence[str] | None = None, *,
                       realigned: bool = False) -> Finding:
    """The hypothesis (or a plain-text reference) has another number of lines than the
    source, with what may explain it (blank lines at the end, sentences split or merged). An
    error, unless ``realigned``: ``evaluate --hyp-level auto`` (its default) or ``paragraph``
    then aligns the lines to the source's sentences, and it is a warning."""
    tail = 0
    for ln in reversed(raw_lines or ()):
        if ln.strip():
            break
        tail += 1
    why = f" (it ends with {tail} blank line(s))" if tail and got > expected else ""
    if tail and got - tail == expected:
        fix = "remove the blank lines at the end"
    elif realigned:
        fix = ("if the system merged or split sentences or wrote paragraphs, the alignment "
               "is what you want (check its low-confidence lines); otherwise repair the "
               "file where lines were lost or added (the misplaced-lines finding names them)")
    elif got > expected:
        fix = ("if the system split sentences, score with --hyp-level auto (sentences "
               "re-aligned to the source's); otherwise find the extra lines (the "
               "misplaced-lines finding names them)")
    else:
        fix = ("if the system merged sentences or wrote paragraphs, score with --hyp-level "
               "auto; otherwise find the lost lines (the misplaced-lines finding names them)")
    then = ("; evaluate will align its lines to the source's sentences (--hyp-level)"
            if realigned else "")
    return _finding("line-count", WARNING if realigned else ERROR,
                    f"{name} has {got} lines, {expected_from} has {expected}{why}{then}", fix,
                    file=path, system=name, short=f"{name}: {got} lines for {expected}",
                    got=got, expected=expected)


def summary_line(findings: Sequence[Finding], hint: str) -> str | None:
    """One line for the errors and warnings among ``findings`` ("2 warnings (AMU: detokenised
    hypothesis (above); NTHU: lines 40-43 shifted)") and ``hint``; ``None`` when there are
    none, or when every one was printed in full already (``data["shown"]``)."""
    serious = [f for f in findings if f.severity in (ERROR, WARNING)]
    if all(f.data.get("shown") for f in serious):
        return None  # nothing the warnings printed in full have not said
    c = counts(serious)
    parts = [f"{c[s]} {s}{'s' if c[s] > 1 else ''}" for s in (ERROR, WARNING) if c[s]]
    shorts = list(dict.fromkeys(f.short + (" (above)" if f.data.get("shown") else "")
                                for f in serious))
    listed = "; ".join(shorts[:4]) + (f"; {len(shorts) - 4} more" if len(shorts) > 4 else "")
    return f"{' and '.join(parts)} ({listed}); {hint}"


# -- whole inputs -----------------------------------------------------------------------------


def _error(exc: Exception, code: str = "unreadable") -> Finding:
    """A reader's error as a finding (what ``gecscope evaluate`` would stop at)."""
    from gecscope.errors import LengthMismatchError

    path = getattr(exc, "path", None)
    line = getattr(exc, "line", None)
    message = getattr(exc, "message", None) or str(exc)
    if isinstance(exc, LengthMismatchError):
        code = "line-count"
    return _finding(code, ERROR, message, "`gecscope evaluate` stops here: fix the file",
                    file=path, lines=[line] if line else [], short=code)


def _collect(out: list[Finding], caught: Iterable[warnings.WarningMessage],
             path: str | None) -> None:
    """The :class:`InputWarning` s a reader gave (what a file was read as) as findings."""
    from gecscope.errors import InputWarning

    for w in caught:
        if issubclass(w.category, InputWarning):
            out.append(_finding("read-as", WARNING, str(w.message),
                                "give the format (--hyp-format) if it was meant otherwise",
                                file=path, short="format guessed"))


def check_files(references: Sequence[str], source: str | None, hypotheses: Sequence[str],
                names: Sequence[str] | None = None, *, lang: Any = None,
                hyp_format: str = "auto", registry: Iterable[KnownFile] = (),
                metrics: Sequence[str] | None = None, hyp_level: str = "auto",
                hyp_tokenise: str = "none", allow: Iterable[str] = ()) -> list[Finding]:
    """Every finding about an evaluation's files, as ``gecscope check`` reports them: what
    makes ``gecscope evaluate`` stop (a wrong line count, a file it cannot read) is reported
    as an error finding and the other checks still run on what could be read. Nothing is
    annotated (no edit extraction): files are read as text, so it is fast in any language.
    ``hyp_level`` and ``hyp_tokenise`` are evaluate's ``--hyp-level`` and ``--hyp-tokenise``:
    what they will repair is said, as a warning or a note; ``allow`` is ``--allow`` (what
    evaluate scores anyway is a warning, not an error)."""
    from gecscope.errors import GecscopeError
    from gecscope.formats.base import split_lines
    from gecscope.formats.m2 import parse_m2
    from gecscope.formats.parallel import NO_ERROR, parse_parallel
    from gecscope.formats.references import (
        corpus_references,
        read_hypothesis_text,
        read_references,
    )
    from gecscope.gate.warnings import glued_share
    from gecscope.hypothesis import system_names
    from gecscope.languages import as_language

    tok = as_language(lang).tokeniser()
    registry = list(registry)
    out: list[Finding] = []
    said: set[tuple[str, str]] = set()

    def raw(path: str, role: str) -> RawFile | None:
        try:
            r = read_raw(path)
        except (OSError, GecscopeError) as exc:
            why = getattr(exc, "message", None) or getattr(exc, "strerror", None) or exc
            out.append(_finding("unreadable", ERROR, f"{role}: cannot read it ({why})",
                                "give the right path", file=path, short=f"{path} unreadable"))
            return None
        out.extend(file_findings(r, role))
        out.extend(testset_findings(r, role, registry, metrics, said))
        return r

    ref_raws = [raw(p, "reference") for p in references]
    out.extend(incomplete_sets([f for f in out if f.code == "testset"]))
    src_raw = raw(source, "source") if source else None
    sources: Lines | None = None
    refs: list[Lines] = []
    ref_ids: list[str] | None = None
    m2_annotators: Sequence[int] = ()
    origin = source or "the source"
    plain = bool(references)
    if len(references) == 1 and ref_raws[0] is not None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                rf = read_references(references[0], parallel=source is None)
                if rf.rows is not None:
                    sources = [tok(r.source) for r in rf.rows]
                    per = [[tok(r.source if t.strip() == NO_ERROR else t)
                            for t in r.targets] for r in rf.rows]
                    refs = [[p[k % len(p)] for p in per]
                            for k in range(max((len(p) for p in per), default=0))]
                    ids = [r.id for r in rf.rows]
                    ref_ids = ids if len(set(ids)) == len(ids) else None
                    origin, plain = references[0], False
                elif rf.m2 is not None:
                    sources, refs = rf.m2.sources, list(corpus_references(rf.m2, rf.cycle))
                    m2_annotators = rf.m2.annotators
                    origin, plain = references[0], False
                elif source is None:
                    out.append(_finding("no-source", ERROR, "plain-text references need the "
                                        "source file too", "give it with --source",
                                        file=references[0], short="no --source"))
            except GecscopeError as exc:
                if not any(f.code == "empty-file" and f.file == references[0] for f in out):
                    out.append(_error(exc))  # an empty file is said once
                plain = False
        _collect(out, caught, references[0])
    given_sources: Lines | None = None  # the -s file beside an M2: edits are found against it
    if sources is None and src_raw is not None:
        sources = [tok(ln.strip()) for ln in src_raw.lines]
    elif src_raw is not None and sources is not None and len(src_raw.lines) == len(sources):
        given_sources = [tok(ln.strip()) for ln in src_raw.lines]
    if plain and sources is not None:
        for path, r in zip(references, ref_raws, strict=True):
            if r is None:
                continue
            lines = [tok(ln.strip()) for ln in r.lines]
            if len(lines) != len(sources):
                out.append(line_count_finding(path, path, len(lines), len(sources), origin,
                                              r.lines))
            refs.append(lines)
    ref_share = glued_share(refs[0]) if refs else None
    labels = list(names) if names and len(names) == len(hypotheses) else \
        system_names(hypotheses)
    for path, name in zip(hypotheses, labels, strict=True):
        r = raw(path, "hypothesis")
        if r is None:
            continue
        tokens: Lines | None = None
        hyp_m2 = None
        fmt = "plain"
        own_sources = given_sources  # what its edits are found against (its own, if any)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fmt, text = read_hypothesis_text(path, hyp_format)
                if fmt == "m2":
                    hyp_m2 = parse_m2(text, path)
                    tokens = hyp_m2.hypotheses()
                    own_sources = hyp_m2.sources
                elif fmt == "parallel":
                    rows = parse_parallel(text, path, targets=1)
                    if ref_ids is None or [r.id for r in rows] == ref_ids:
                        own_sources = [tok(r.source) for r in rows]
                    tokens = _by_id(out, path, [r.id for r in rows],
                                    [tok(r.targets[0]) for r in rows], ref_ids)
                else:
                    tokens = [tok(ln.strip()) for ln in split_lines(text)]
            except GecscopeError as exc:
                out.append(_error(exc))
        _collect(out, caught, path)
        if tokens is None:
            tokens = [tok(ln.strip()) for ln in r.lines]
        if sources is None:
            continue
        if hyp_m2 is None and fmt != "parallel":
            tokens = _assessed(out, name, path, tokens, sources, origin, r.lines, hyp_level,
                               frozenset(allow))
        elif len(tokens) != len(sources):
            out.append(line_count_finding(name, path, len(tokens), len(sources), origin,
                                          r.lines))
        out.extend(content_findings(name, path, tokens, sources, refs, own_sources))
        warned = hypothesis_warnings(name, path, tokens, sources, ref_share,
                                     hyp_m2.annotators if hyp_m2 is not None else None,
                                     m2_annotators)
        if hyp_tokenise != "none" and hyp_m2 is None:
            warned = [dataclasses.replace(
                f, severity=INFO, message=f"{f.message} (--hyp-tokenise {hyp_tokenise} "
                "re-tokenises it)", fix="") if f.code == "detokenised" else f for f in warned]
        out.extend(warned)
    return out


def _assessed(out: list[Finding], name: str, path: str, tokens: Lines, sources: Lines,
              origin: str, raw_lines: Sequence[str], hyp_level: str,
              allow: frozenset[str] = frozenset()) -> Lines:
    """What the gate finds about a plain-text hypothesis' lines as given (before any
    realignment): lines lost, added, swapped or shifted, lines like no source sentence,
    another test set, and what ``evaluate --hyp-level`` would do with it
    (:func:`gecscope.gate.realign.assess`, the code evaluate runs). A refusal is an error
    finding; the sentences returned are what evaluate would score (the lines as given when
    it would stop)."""
    from gecscope.alignment.sentences import SentenceIndex
    from gecscope.gate.findings import InputRefusedError
    from gecscope.gate.realign import assess

    index = SentenceIndex.of([" ".join(t) for t in sources])
    a = assess(Hypothesis(name, tokens, None, path), index, hyp_level, allow, origin)
    out.extend(a.findings)
    if a.refusal is None:
        if len(tokens) != len(sources):
            f = line_count_finding(name, path, len(tokens), len(sources), origin, raw_lines,
                                   realigned=True)
            out.append(f)
        return list(a.hypothesis.tokens)
    if isinstance(a.refusal, InputRefusedError):
        if a.refusal.finding not in a.findings:
            out.append(a.refusal.finding)
        return tokens
    f = line_count_finding(name, path, len(tokens), len(sources), origin, raw_lines)
    lines = tuple(sorted({m.line + 1 for m in a.pairing.misplaced}))[:50] if a.pairing else ()
    from gecscope.errors import LengthMismatchError

    if isinstance(a.refusal, LengthMismatchError):  # the count, and where the lines diverge
        first = a.pairing.first_divergence() if a.pairing and a.pairing.sentence_file else None
        message = f.message + (f"; {first}" if first else "")
    else:  # too large to be an output for this test set
        message = str(a.refusal).removeprefix(f"{path}: ")
    out.append(dataclasses.replace(f, message=message,
                                   lines=lines or f.lines,
                                   count=len(a.pairing.misplaced) if lines and a.pairing else f.count))
    return tokens


def _by_id(out: list[Finding], path: str, ids: list[str], tokens: list[Tokens],
           ref_ids: list[str] | None) -> list[Tokens]:
    """A parallel hypothesis' sentences in the references' order (matched by id, as
    ``evaluate`` does); ids the references do not have are an error finding."""
    if ref_ids is None or ids == ref_ids:
        return tokens
    position = {k: i for i, k in enumerate(ids)}
    unknown = [i + 1 for i, k in enumerate(ids) if k not in set(ref_ids)]
    missing = [k for k in ref_ids if k not in position]
    if unknown or missing or len(position) != len(ids):
        out.append(_finding("ids", ERROR, f"its ids are not the references' ({len(unknown)} "
                            f"unknown, {len(missing)} missing, {len(ids) - len(position)} "
                            "repeated)", "give one line per reference id", file=path,
                            lines=unknown, short="ids differ"))
        return tokens
    out.append(_finding("reordered", INFO, "its lines are in another order than the "
                        "references'; evaluate matches them by id", "", file=path,
                        short="matched by id"))
    return [tokens[position[k]] for k in ref_ids]


def evaluation_findings(data: EvalData, hyps: Sequence[Hypothesis],
                        registry: Iterable[KnownFile] = (),
                        shown: Iterable[Finding] = ()) -> list[Finding]:
    """The cheap findings for inputs the gate admitted (``gecscope evaluate``'s one-line
    summary): the sentences' (:func:`content_findings`), the hypothesis files' bytes, the
    registry's warning for a reference file, and ``shown``, the gate's own findings, marked
    ``data["shown"]`` (``evaluate`` has printed them in full)."""
    out: list[Finding] = []
    registry = list(registry)
    known: list[Finding] = []
    for p in data.reference_paths:
        raw = _read_quietly(p)
        if raw is not None:
            known += testset_findings(raw, "reference", registry)
    out += [f for f in known if f.severity != INFO] + incomplete_sets(known)
    refs = data.references if data.has_references else []
    for h in hyps:
        raw = _read_quietly(h.path)
        if raw is not None:
            out += [f for f in file_findings(raw, "hypothesis") if f.severity != INFO]
            out += [f for f in testset_findings(raw, "hypothesis", registry)
                    if f.severity != INFO]
        own = h.m2.sources if h.m2 is not None else h.sources  # an M2's or parallel file's
        out += content_findings(h.name, h.path, h.tokens, data.sources, refs,
                                list(own) if own is not None else _hypothesis_sources(data))
    out += [dataclasses.replace(f, data={**f.data, "shown": True}) for f in shown]
    return out


def _hypothesis_sources(data: EvalData) -> Lines | None:
    """:attr:`EvalData.hypothesis_sources`, or ``None`` when they cannot be read (a summary
    never stops an evaluation)."""
    from gecscope.errors import GecscopeError

    try:
        return list(data.hypothesis_sources)
    except (GecscopeError, OSError):
        return None


def _read_quietly(path: str | None) -> RawFile | None:
    """The file at ``path`` (a file already read by the evaluation), or ``None`` when there
    is none (in-memory data)."""
    from gecscope.errors import GecscopeError

    if not path or path.startswith("<"):
        return None
    try:
        return read_raw(path)
    except (OSError, GecscopeError):
        return None
