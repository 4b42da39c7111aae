"""A minimal reader of the WordNet 3.0 database files: lemmatisation (morphy) and synonymy.

TERp counts two words as a synonym match when they share a WordNet synset. This module reads the
``index.{noun,verb,adj,adv}`` and ``{pos}.exc`` files of a WordNet 3.0 installation (Debian
package ``wordnet-base``: ``/usr/share/wordnet``) directly, so no NLTK corpus download is needed.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from gecscope.errors import MissingDependencyError

POS = ("noun", "verb", "adj", "adv")
DEFAULT_DIRS = ("/usr/share/wordnet", "/usr/local/share/wordnet", "/usr/share/wordnet/dict",
                "/opt/homebrew/share/wordnet")

# morphy's detachment rules (WordNet's morph.c, documented in morphy(7WN)).
_RULES = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}


def find_wordnet_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The WordNet database directory: ``path``, ``$WNSEARCHDIR`` or a standard location."""
    candidates = [Path(path)] if path is not None else []
    if path is None and os.environ.get("WNSEARCHDIR"):
        candidates.append(Path(os.environ["WNSEARCHDIR"]))
    if path is None:
        candidates += [Path(d) for d in DEFAULT_DIRS]
    for cand in candidates:
        if (cand / "index.noun").is_file():
            return cand
    raise MissingDependencyError(
        "wordnet-base", "rtt",
        f"WordNet synonym matches (looked for index.noun in {', '.join(map(str, candidates))}; "
        "on Debian/Ubuntu run: apt-get install wordnet-base, or set WNSEARCHDIR)")


class WordNet:
    """Lemma -> synset offsets for the four parts of speech, plus the exception lists."""

    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.directory = find_wordnet_dir(directory)
        self._index: dict[str, dict[str, tuple[int, ...]]] = {}
        self._exc: dict[str, dict[str, tuple[str, ...]]] = {}
        for pos in POS:
            self._index[pos] = self._read_index(self.directory / f"index.{pos}")
            exc_path = self.directory / f"{pos}.exc"
            self._exc[pos] = self._read_exc(exc_path) if exc_path.is_file() else {}
        self._synsets: dict[str, frozenset[tuple[str, int]]] = {}

    @staticmethod
    def _read_index(path: Path) -> dict[str, tuple[int, ...]]:
        out: dict[str, tuple[int, ...]] = {}
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue  # licence header
                f = line.split()
                if len(f) < 6:
                    continue
                n_synsets = int(f[2])
                n_ptr = int(f[3])
                offsets = f[6 + n_ptr: 6 + n_ptr + n_synsets]
                out[f[0]] = tuple(int(o) for o in offsets)
        return out

    @staticmethod
    def _read_exc(path: Path) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                f = line.split()
                if len(f) >= 2:
                    out[f[0]] = tuple(f[1:])
        return out

    def lemmas(self, word: str, pos: str) -> tuple[str, ...]:
        """Base forms of ``word`` as ``pos`` that are in WordNet (morphy)."""
        w = word.lower().replace(" ", "_")
        index = self._index[pos]
        found: list[str] = []
        for base in self._exc[pos].get(w, ()):
            if base in index and base not in found:
                found.append(base)
        if w in index and w not in found:
            found.append(w)
        for suffix, repl in _RULES[pos]:
            if w.endswith(suffix) and len(w) > len(suffix):
                base = w[: len(w) - len(suffix)] + repl
                if base in index and base not in found:
                    found.append(base)
        return tuple(found)

    def synsets(self, word: str) -> frozenset[tuple[str, int]]:
        """Every (part of speech, synset offset) that ``word`` (any inflection) belongs to."""
        found = self._synsets.get(word)
        if found is None:
            out: set[tuple[str, int]] = set()
            for pos in POS:
                for lemma in self.lemmas(word, pos):
                    out.update((pos, off) for off in self._index[pos][lemma])
            found = frozenset(out)
            if len(self._synsets) < 200_000:
                self._synsets[word] = found
        return found

    def are_synonyms(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` share a synset (in any part of speech)."""
        return bool(self.synsets(a) & self.synsets(b))


@lru_cache(maxsize=4)
def load_wordnet(directory: str | None = None) -> WordNet:
    """A process-wide cached :class:`WordNet` (reading the index files takes about a second)."""
    return WordNet(directory)
