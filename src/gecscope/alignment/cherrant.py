"""Chinese char-level edit extraction, as ChERRANT's ``parallel_to_m2.py -g char`` does it.

ChERRANT (Zhang et al. 2022, the MuCGEC scorer) aligns a source and a corrected sentence
character by character with ERRANT's weighted Levenshtein + transposition recurrence, where a
substitution costs

    semantic (Cilin thesaurus class distance / 6) + spelling (0 when the two characters share a
    pinyin reading or are listed as confusable, else 0.5; 0.5 for non-Chinese characters)
    + punctuation (0 when both or neither are punctuation, 0.25 / 0.499 otherwise)

collects **every** cheapest alignment (only the first when the lengths differ by more than 10),
merges each into edits (runs of D or I merged; S runs merged; S-M-S and D-M-I / I-M-D patterns
turned into word-order edits), and types them by operation: ``M`` (missing), ``R``
(redundant), ``S`` (substitution), ``W`` (word order). Distinct edit sets of one target are
written as alternatives ``T<k>-A<j>`` in its M2; the scorer reads all of them as annotator
``k``'s edits. Targets are converted to simplified Chinese with OpenCC ``t2s`` by default (the
sources are not), as the tool does.

The resource files (``cilin.txt``, GBK; ``confusion_dict.txt``) are ChERRANT's ``data/``
folder; they are not shipped or downloaded by gecscope: pass the folder, or set
``GECSCOPE_CHERRANT_DATA``. Without them extraction stops with :class:`MissingResourceError`
(exit 69) naming the files and where to get them.
``char_meta.txt`` (shape and pronunciation codes) is loaded by ChERRANT but used only for its
word-level spelling type, so char level does not need it. Output checked equal to the tool's
(MuCGEC 3922193) on its demo and on MuCGEC dev (``tests/regression/test_cherrant_extract.py``).
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import groupby
from pathlib import Path
from typing import Any

from gecscope.alignment.levenshtein import distance
from gecscope.errors import ConfigError, FormatError
from gecscope.formats.parallel import NO_ERROR
from gecscope.types import NA_TYPE, Annotation, Corpus, Edit, Sentence, Tokens

MISSING = "[缺失成分]"  # "missing constituent": one token, never split into characters
NOT_ANNOTATABLE = "无法标注"  # a target meaning "the annotator could not correct this"
DATA_ENV = "GECSCOPE_CHERRANT_DATA"
#: the tool's two punctuation sets (the alignment's and the merger's differ slightly)
_ALIGN_PUNCT = ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗"
                "〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏" + string.punctuation)
_MERGE_PUNCT = string.punctuation + ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃"
                                     "》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧.")
#: above this length difference only the first cheapest alignment is followed (as the tool)
ALL_ALIGNMENTS_MAX_DIFF = 10

Step = tuple[str, int, int, int, int]  # (op, src start, src end, tgt start, tgt end)


def char_tokens(text: str) -> Tokens:
    """ChERRANT's char tokenisation: whitespace removed, one token per character, except
    ``[缺失成分]`` which stays one token."""
    joined = "".join(text.split())
    if not joined:
        return ()
    return tuple(" ".join(joined).replace("[ 缺 失 成 分 ]", MISSING).split(" "))


def _all_chinese(word: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in word)


# --------------------------------------------------------------------------- resources


@dataclass(frozen=True)
class Resources:
    """ChERRANT's Cilin classes (word -> code) and confusion sets (char -> confusable chars)."""

    semantic: dict[str, str]
    confusion: dict[str, frozenset[str]]
    folder: str


#: ChERRANT's resource files char-level extraction reads (``char_meta.txt`` is not needed)
RESOURCE_FILES = ("cilin.txt", "confusion_dict.txt")
#: where to get them (gecscope neither ships nor downloads them)
RESOURCE_SOURCE = ("the data/ folder of scorers/ChERRANT in the MuCGEC repository, "
                   "https://github.com/HillZhang1999/MuCGEC (Apache-2.0)")
#: a Cilin line: an 8-character class code (e.g. ``Aa01A01=``) and its words
_CILIN_LINE = re.compile(r"[A-Za-z][a-z]\d\d[A-Z]\d\d[=#@] \S")


class MissingResourceError(ConfigError):
    """ChERRANT's resource files are not there: exit 69 (a missing optional resource, like a
    missing optional package), not 64; still a :class:`ConfigError` for callers that catch
    that. The message names the missing files, where to get them and how to point at them."""

    exit_code = 69


def _how_to_point() -> str:
    return (f"give the folder with --zh-data DIR (Python: zh_data=DIR) or set {DATA_ENV}=DIR; "
            "char-level M2 inputs need no resources")


def resource_folder(folder: str | os.PathLike[str] | None = None) -> Path:
    """The folder with ChERRANT's ``cilin.txt`` and ``confusion_dict.txt``: ``folder``, else
    ``$GECSCOPE_CHERRANT_DATA``. No folder given, or one without the files, is a
    :class:`MissingResourceError` (exit 69); a folder given that does not exist or is not a
    directory, or an empty ``folder``, is a bad value (:class:`ConfigError`, exit 64)."""
    files = " and ".join(RESOURCE_FILES)
    if folder is not None:
        where, named = os.fspath(folder), "--zh-data"
        if not where.strip():
            raise ConfigError("--zh-data (zh_data) is empty: give ChERRANT's data/ folder "
                              f"({files})")
    else:
        where, named = os.environ.get(DATA_ENV, ""), DATA_ENV
        if not where.strip():
            raise MissingResourceError(
                f"Chinese edit extraction (--lang zh on raw text) needs ChERRANT's resource "
                f"files {files}, which gecscope does not ship or download: get them from "
                f"{RESOURCE_SOURCE}; then {_how_to_point()}")
    p = Path(where)
    if not p.exists():
        raise ConfigError(f"{named} {where}: no such folder (expected ChERRANT's data/ "
                          f"folder with {files})")
    if not p.is_dir():
        raise ConfigError(f"{named} {where}: not a folder (expected ChERRANT's data/ folder "
                          f"with {files}, not one of its files)")
    missing = [name for name in RESOURCE_FILES if not (p / name).is_file()]
    if missing:
        raise MissingResourceError(
            f"{p}: no {' or '.join(missing)} here; Chinese edit extraction needs ChERRANT's "
            f"resource files {files}: get them from {RESOURCE_SOURCE}; then {_how_to_point()}")
    return p


def _bad_resource(path: Path, line: int, expected: str) -> FormatError:
    return FormatError(f"expected {expected}; is this ChERRANT's file "
                       f"(from {RESOURCE_SOURCE})?", path, line)


def _unreadable(path: Path, exc: OSError) -> MissingResourceError:
    return MissingResourceError(f"{path}: cannot be read ({exc.strerror or exc}); Chinese edit "
                                "extraction needs it readable: fix its permissions, or "
                                f"{_how_to_point()}")


@lru_cache(maxsize=4)
def _load_resources(folder: str) -> Resources:
    p = Path(folder)
    cilin, conf = p / "cilin.txt", p / "confusion_dict.txt"
    try:
        text = cilin.read_text(encoding="gbk")
    except OSError as exc:  # permission denied, an I/O error
        raise _unreadable(cilin, exc) from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"not GBK text (ChERRANT's Cilin file is GBK-encoded): {exc}",
                          cilin) from None
    if not text.strip():
        raise FormatError(f"empty; expected ChERRANT's Cilin thesaurus (from {RESOURCE_SOURCE})",
                          cilin)
    semantic: dict[str, str] = {}
    for i, line in enumerate(text.strip().split("\n"), 1):
        if not _CILIN_LINE.match(line):
            raise _bad_resource(cilin, i, "a Cilin class code and its words "
                                          "('Aa01A01= word word ...')")
        code, *words = line.split(" ")
        for w in words:
            semantic[w] = code
    confusion: dict[str, frozenset[str]] = {}
    try:
        with open(conf, encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                fields = line.rstrip("\n").split(" ")
                if len(fields) < 2:  # (a first field may be empty: line 4762 of the tool's)
                    raise _bad_resource(conf, i, "a character and its confusable characters, "
                                                 "separated by spaces")
                confusion[fields[0]] = frozenset(fields[1:])
    except OSError as exc:
        raise _unreadable(conf, exc) from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text (ChERRANT's confusion set is UTF-8): {exc}",
                          conf) from None
    if not confusion:
        raise FormatError(f"empty; expected ChERRANT's confusion set (from {RESOURCE_SOURCE})",
                          conf)
    return Resources(semantic, confusion, str(p))


def load_resources(folder: str | os.PathLike[str] | None = None) -> Resources:
    """Read (once per process) the resource files of :func:`resource_folder`."""
    return _load_resources(str(resource_folder(folder).resolve()))


@cache
def _readings(char: str) -> frozenset[str]:
    from gecscope._optional import require

    pypinyin = require("pypinyin", "zh", "Chinese edit extraction (pinyin readings)")
    return frozenset(pypinyin.pinyin(char, style=pypinyin.Style.NORMAL, heteronym=True)[0])


def _t2s() -> Callable[[str], str]:
    from gecscope._optional import require

    opencc = require("opencc", "zh", "traditional-to-simplified conversion of targets")
    converter = opencc.OpenCC("t2s")
    return converter.convert  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- alignment


class _Costs:
    """Substitution costs of char granularity, memoised per character pair."""

    def __init__(self, res: Resources) -> None:
        self.res = res
        self._memo: dict[tuple[str, str], float] = {}

    def _semantic(self, a: str, b: str) -> int:
        ca, cb = self.res.semantic.get(a), self.res.semantic.get(b)
        if ca is None or cb is None:
            return 4
        ka, kb = (ca[0], ca[1], ca[2:4]), (cb[0], cb[1], cb[2:4])
        if ka == kb:
            return 0
        return 2 * (3 - sum(x == y for x, y in zip(ka, kb)))

    def _spelling(self, a: str, b: str) -> float:
        if not (_all_chinese(a) and _all_chinese(b)):
            return 0.5
        if len(a) > len(b):
            a, b = b, a
        if a == b:
            return 0
        conf = self.res.confusion
        shared = bool(_readings(a) & _readings(b))  # the tool compares whole-token readings
        count = 0
        for ca in a:
            for cb in b:
                if ca == cb or shared or ca in conf.get(cb, ()) or cb in conf.get(ca, ()):
                    count += 1
                    break
        return (len(a) - count) / (len(a) * 2)

    def __call__(self, a: str, b: str) -> float:
        if a == b:
            return 0
        key = (a, b)
        got = self._memo.get(key)
        if got is None:
            semantic = self._semantic(a, b) / 6.0
            pa, pb = a in _ALIGN_PUNCT, b in _ALIGN_PUNCT  # substring tests, as the tool's
            punct = 0.0 if pa and pb else 0.25 if not pa and not pb else 0.499
            got = self._memo[key] = semantic + self._spelling(a, b) + punct
        return got


#: a cell's cheapest last steps other than a transposition, by which of (substitution,
#: insertion, deletion) reach the cell's cost, in the tool's order
_STEPS = {(s, i, d): tuple(op for op, on in zip("SID", (s, i, d), strict=True) if on)
          for s in (False, True) for i in (False, True) for d in (False, True)}


def _tables(src: Sequence[str], tgt: Sequence[str],
            sub: _Costs) -> list[list[Sequence[str]]]:
    """The operation table of the tool's recurrence: every cheapest last step of each cell,
    in its order (transposition, substitution, insertion, deletion). The costs are computed
    row by row (the memoised substitution costs read directly, the transposition's character
    multisets compared incrementally) as this is most of the extraction's time."""
    n, m = len(src), len(tgt)
    memo = sub._memo
    inf = float("inf")
    prev = [float(j) for j in range(m + 1)]
    cost = [prev]
    ops: list[list[Sequence[str]]] = [[(), *(("I",),) * m]]
    match, delete = ("M",), ("D",)
    for i in range(n):
        s = src[i]
        row = [prev[0] + 1.0]
        cells: list[Sequence[str]] = [delete]
        left = row[0]
        for j in range(m):
            t = tgt[j]
            diag = prev[j]
            if s == t:
                row.append(diag)
                cells.append(match)
                left = diag
                continue
            d = prev[j + 1] + 1
            ins = left + 1
            c = memo.get((s, t))
            sb = diag + (sub(s, t) if c is None else c)
            tr = inf
            k = 1
            if i and j:
                # the shortest k with the same characters in src[i-k..i] and tgt[j-k..j],
                # looked for while the diagonal's cost changes: counts of src minus tgt
                counts = {s: 1, t: -1}
                unequal = 2
                while i - k >= 0 and j - k >= 0 and \
                        cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                    for ch, step in ((src[i - k], 1), (tgt[j - k], -1)):
                        before = counts.get(ch, 0)
                        counts[ch] = before + step
                        unequal += (before + step != 0) - (before != 0)
                    if not unequal:
                        tr = cost[i - k][j - k] + k
                        break
                    k += 1
            # min(tr, sb, ins, d) without the call (10 million cells in MuCGEC dev)
            best = sb if sb < ins else ins  # noqa: FURB136
            if d < best:  # noqa: PLR1730
                best = d
            if tr < best:  # noqa: PLR1730
                best = tr
            row.append(best)
            left = best
            steps = _STEPS[sb == best, ins == best, d == best]
            cells.append((f"T{k + 1}", *steps) if tr == best else steps)
        cost.append(row)
        ops.append(cells)
        prev = row
    return ops


def cheapest_alignments(ops: list[list[Sequence[str]]], first_only: bool) -> Iterator[list[Step]]:
    """Every path through the operation table in the tool's depth-first order (only the first
    option of each cell with ``first_only``), each from the start of the sentences."""
    n, m = len(ops) - 1, len(ops[0]) - 1
    # explicit stack of (i, j, steps so far from the end); children pushed in reverse order
    stack: list[tuple[int, int, tuple[Any, ...]]] = [(n, m, ())]
    while stack:
        i, j, tail = stack.pop()
        if i + j == 0:
            path: list[Step] = []
            node: Any = tail
            while node:
                path.append(node[0])
                node = node[1]
            yield path
            continue
        cell = ops[i][j]
        if first_only:
            cell = cell[:1]
        children = []
        for op in cell:
            if op in ("M", "S"):
                children.append((i - 1, j - 1, ((op, i - 1, i, j - 1, j), tail)))
            elif op == "D":
                children.append((i - 1, j, ((op, i - 1, i, j, j), tail)))
            elif op == "I":
                children.append((i, j - 1, ((op, i, i, j - 1, j), tail)))
            else:
                k = int(op[1:])
                children.append((i - k, j - k, ((op, i - k, i, j - k, j), tail)))
        stack.extend(reversed(children))


# --------------------------------------------------------------------------- merging


def _merged(seq: list[Step], tag: str) -> list[Step]:
    return [(tag, seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])] if seq else seq


def _process(seq: list[Step]) -> list[Step]:
    if len(seq) <= 1:
        return seq
    kinds = {s[0] for s in seq}
    if kinds == {"D"} or kinds == {"I"}:
        return _merged(seq, kinds.pop())
    if kinds == {"D", "I"}:
        return seq
    if kinds == {"M"}:
        return _merged(seq, "M")
    return _merged(seq, "S")  # S runs (char level) and any other mix


def _is_word_order(a: str, b: str) -> bool:
    return a not in _MERGE_PUNCT and b not in _MERGE_PUNCT and len(a) - len(b) <= 1 and (
        a == b if len(b) == 1 else
        distance(a, b) <= 1 or (len(a) == len(b) and b in a + a))


def merge(align: list[Step], src: Sequence[str], tgt: Sequence[str]) -> list[Step]:
    """The tool's merger (char granularity): alignment steps -> edits."""
    edits: list[Step] = []
    for op, group in groupby(align, lambda x: x[0][0] if x[0][0] in ("M", "T") else ""):
        steps = list(group)
        edits.extend(steps if op == "T" else _process(steps))

    def text(side: Sequence[str], a: int, b: int) -> str:
        return "".join(side[a:b])

    kept: list[Step] = []
    i = 0
    while i < len(edits):
        e1 = edits[i][0][0]
        if i < len(edits) - 2:
            e2, e3 = edits[i + 1][0][0], edits[i + 2][0][0]
            order = False
            if e1 == "S" and e2 == "M" and e3 == "S":
                w1 = text(src, edits[i][1], edits[i][2])
                w2 = text(tgt, edits[i][3], edits[i][4])
                w3 = text(src, edits[i + 2][1], edits[i + 2][2])
                w4 = text(tgt, edits[i + 2][3], edits[i + 2][4])
                if min(len(w1), len(w2), len(w3), len(w4)) == 1:
                    order = w1 == w4 and w2 == w3
                else:
                    order = distance(w1, w4) <= 1 and distance(w2, w3) <= 1
                if not order:
                    kept.append(edits[i])
                    i += 1
                    continue
            elif (e1 == "D" and e2 in ("M", "T") and e3 == "I") or (
                    e1 == "I" and e2 in ("M", "T") and e3 == "D"):
                d, ins = (edits[i], edits[i + 2]) if e1 == "D" else (edits[i + 2], edits[i])
                a, b = text(src, d[1], d[2]), text(tgt, ins[3], ins[4])
                if len(a) < len(b):
                    a, b = b, a
                order = _is_word_order(a, b)
                if not order:
                    kept.append(edits[i])
                    i += 1
                    continue
            if order:
                kept.extend(_merged(edits[i:i + 3], f"T{edits[i + 2][2] - edits[i][1]}"))
                i += 3
                continue
        if e1 != "M":
            kept.append(edits[i])
        i += 1
    return [e for e in (_trim(e, src, tgt) for e in kept) if e is not None]


def _trim(edit: Step, src: Sequence[str], tgt: Sequence[str]) -> Step | None:
    """Drop an edit whose two sides read the same; shrink a substitution whose sides share a
    token-aligned head or tail (the tool's second filter)."""
    op, s0, s1, t0, t1 = edit
    span1, span2 = "".join(src[s0:s1]), "".join(tgt[t0:t1])
    if span1 == span2:
        return None
    if op != "S":
        return edit
    changed = False
    common, tmp_start = "", s0
    for k in range(s0, s1):
        if not span2.startswith(common + src[k]):
            break
        common += src[k]
        tmp_start = k + 1
    new_s0, new_t0 = s0, t0
    if common:
        acc = ""
        for k in range(t0, t1):
            acc += tgt[k]
            if acc == common:
                new_s0, new_t0 = tmp_start, k + 1
                changed = True
                break
            if len(acc) > len(common):
                break
    common, tmp_end = "", s1
    new_s1, new_t1 = s1, t1
    for k in reversed(range(new_s0, s1)):
        if not span2.endswith(src[k] + common):
            break
        common = src[k] + common
        tmp_end = k
    if common:
        acc = ""
        for k in reversed(range(new_t0, t1)):
            acc = tgt[k] + acc
            if acc == common:
                new_s1, new_t1 = tmp_end, k
                changed = True
                break
            if len(acc) > len(common):
                break
    if not changed:
        return edit
    kind = "I" if new_s0 == new_s1 else "D" if new_t0 == new_t1 else "S"
    return (kind, new_s0, new_s1, new_t0, new_t1)


def classify(edits: Iterable[Step], tgt: Sequence[str]) -> tuple[Edit, ...]:
    """Char-level types: ``W`` word order, ``R`` redundant, ``M`` missing, ``S`` substitution."""
    out = []
    for op, s0, s1, t0, t1 in edits:
        kind = {"T": "W", "D": "R", "I": "M", "S": "S"}[op[0]]
        out.append(Edit(s0, s1, () if kind == "R" else tuple(tgt[t0:t1]), kind))
    return tuple(out)


# --------------------------------------------------------------------------- annotator


@dataclass(frozen=True)
class TargetEdits:
    """One target's annotation: ``status`` is ``edits``, ``noop`` (no change, or the target
    says 没有错误) or ``NA`` (无法标注); ``alternatives`` holds each distinct edit set."""

    annotator: int
    target: Tokens
    status: str
    alternatives: tuple[tuple[Edit, ...], ...] = ()


@dataclass(frozen=True)
class CherrantBlock:
    """A source sentence and its targets' annotations (one ChERRANT M2 block)."""

    source: Tokens
    targets: tuple[TargetEdits, ...]

    def sentence(self) -> Sentence:
        """As gecscope's model: each target an annotator with its first edit set and the
        others as alternatives (ChERRANT's scorer reads their union); NA targets flagged."""
        anns = []
        for t in self.targets:
            first, *more = t.alternatives or ((),)
            anns.append(Annotation(t.annotator, first, not_annotatable=t.status == NA_TYPE,
                                   alternatives=tuple(more)))
        return Sentence(self.source, tuple(anns))

    def m2(self) -> str:
        """The block as ChERRANT writes it (with its ``T`` lines), ending in a blank line."""
        lines = ["S " + " ".join(self.source)]
        for t in self.targets:
            k = t.annotator
            if t.status != "edits":
                word, op = (NO_ERROR, "noop") if t.status == "noop" else (NOT_ANNOTATABLE, "NA")
                lines.append(f"T{k} {word}")
                lines.append(f"A -1 -1|||{op}|||-NONE-|||REQUIRED|||-NONE-|||{k}")
                continue
            for j, alt in enumerate(t.alternatives):
                lines.append(f"T{k}-A{j} " + " ".join(t.target))
                lines.extend(f"A {e.start} {e.end}|||{e.type}|||"
                             f"{' '.join(e.correction) or '-NONE-'}|||REQUIRED|||-NONE-|||{k}"
                             for e in alt)
        return "\n".join(lines) + "\n\n"


class CherrantAnnotator:
    """ChERRANT's char-level annotator (``parallel_to_m2.py -g char``).

    ``simplified`` converts targets to simplified Chinese first (the tool's default);
    ``all_alignments=False`` is its ``-s first`` (one cheapest alignment per target).
    """

    name = "cherrant-char"

    def __init__(self, data: str | os.PathLike[str] | None = None, *, simplified: bool = True,
                 all_alignments: bool = True) -> None:
        self.resources = load_resources(data)
        self.simplified = simplified
        self.all_alignments = all_alignments
        self._costs = _Costs(self.resources)
        self._convert = _t2s() if simplified else None

    def target_tokens(self, text: str) -> Tokens:
        """A target as the tool tokenises it (whitespace dropped, OpenCC t2s unless disabled)."""
        joined = "".join(text.split())
        if self._convert is not None:
            joined = self._convert(joined)
        return char_tokens(joined)

    def annotate_target(self, source: Tokens, target: Tokens, annotator: int) -> TargetEdits:
        src_str, tgt_str = "".join(source), "".join(target)
        if tgt_str == NO_ERROR or src_str == tgt_str:
            return TargetEdits(annotator, target, "noop")
        if tgt_str == NOT_ANNOTATABLE:
            return TargetEdits(annotator, target, NA_TYPE)
        ops = _tables(source, target, self._costs)
        first = not self.all_alignments or abs(len(source) - len(target)) > ALL_ALIGNMENTS_MAX_DIFF
        seen: list[list[Step]] = []
        alts = []
        for path in cheapest_alignments(ops, first):
            edits = merge(path, source, target)
            if edits not in seen:
                seen.append(edits)
                alts.append(classify(edits, target))
        return TargetEdits(annotator, target, "edits", tuple(alts))

    def annotate(self, source: str, targets: Sequence[str]) -> CherrantBlock:
        """One source and its targets, all raw text."""
        src = char_tokens(source)
        return CherrantBlock(src, tuple(
            self.annotate_target(src, self.target_tokens(t), k) for k, t in enumerate(targets)))

    def annotate_tokens(self, source: Tokens, targets: Sequence[Tokens]) -> CherrantBlock:
        """Pre-tokenised input (characters), re-tokenised the tool's way."""
        return self.annotate("".join(source), ["".join(t) for t in targets])

    def annotate_corpus(self, sources: Sequence[Tokens],
                        corrections: Sequence[Sequence[Tokens]],
                        progress: Callable[[int], None] | None = None) -> Corpus:
        """gecscope's annotator interface: ``corrections`` as ``[annotator][sentence]``."""
        out = []
        for i, src in enumerate(sources):
            out.append(self.annotate_tokens(src, [c[i] for c in corrections]).sentence())
            if progress is not None:
                progress(1)
        return Corpus(tuple(out))
