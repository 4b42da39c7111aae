"""Machine translation backends for round trips, behind one interface, plus an on-disk cache.

Every backend translates a whole batch per call: Apertium in one process per batch and
direction, Hugging Face Marian and CTranslate2 models in padded mini-batches, an HTTP service
with one request per batch and direction. A round trip is ``source -> pivot -> source``.

Backend specs (``--backend``): ``apertium`` (default, offline; Debian packages),
``marian:DIR``, ``ct2:DIR``, ``argos[:PACKAGES_DIR]``, ``http:URL`` (LibreTranslate-style JSON API),
``llm:URL`` (an OpenAI-compatible chat-completions endpoint, :mod:`.llm_translator`).
For ``marian:`` and ``ct2:`` the directory holds one model directory per direction, named
``en-XX``/``XX-en`` or ``opus-mt-en-XX``/``opus-mt-XX-en``; the pivots are the ``XX`` found in
both directions.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gecscope._optional import require
from gecscope._sqlite_cache import SQLiteCache, row_digest
from gecscope.errors import ConfigError
from gecscope.rtt.backend import (  # re-exported: the interface lives in .backend
    CACHE_HINT,
    BackendUnavailableError,
    BaseTranslator,
    TranslationError,
    Translator,
)
from gecscope.rtt.backend import batched as _batched
from gecscope.rtt.backend import clean_text as _clean

__all__ = ["APERTIUM_PAIRS", "ApertiumTranslator", "ArgosTranslator", "BackendUnavailableError",
           "BaseTranslator", "CTranslate2Translator", "CachedTranslator", "HttpTranslator",
           "MarianTranslator", "RoundTripCache", "TranslationError", "Translator",
           "make_translator"]


# -- Apertium --------------------------------------------------------------------------------
#: pivot -> (English-to-pivot mode, pivot-to-English mode), first installed name wins.
APERTIUM_PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "spa": (("eng-spa", "en-es"), ("spa-eng", "es-en")),
    "cat": (("eng-cat", "en-ca"), ("cat-eng", "ca-en")),
    "glg": (("en-gl", "eng-glg"), ("gl-en", "glg-eng")),
    "epo": (("en-eo", "eng-epo"), ("eo-en", "epo-eng")),
    "hbs": (("eng-hbs", "en-sh"), ("hbs-eng", "sh-en")),
}
APERTIUM_ALIASES = {"es": "spa", "ca": "cat", "gl": "glg", "eo": "epo", "sh": "hbs",
                    "sr": "hbs", "hr": "hbs", "bs": "hbs"}
APERTIUM_DEBIAN = {"spa": "apertium-eng-spa", "cat": "apertium-eng-cat", "glg": "apertium-en-gl",
                   "epo": "apertium-eo-en", "hbs": "apertium-hbs-eng"}
_APERTIUM_MARK = re.compile(r"(?<=\w)[#@]|[#@](?=\w)")


class ApertiumTranslator(BaseTranslator):
    """Rule-based MT with the ``apertium`` command: one process per batch and direction.

    Sentences are sent as paragraphs separated by blank lines, which Apertium treats as
    sentence boundaries (no transfer rule reorders words across them), and read back the same
    way; ``-u`` drops the unknown-word marks and the generation marks ``#``/``@`` are removed.
    """

    name = "apertium"

    def __init__(self, executable: str = "apertium", datadir: str | None = None):
        self.executable = executable
        self.datadir = datadir
        self._modes: frozenset[str] | None = None

    def _cmd(self) -> list[str]:
        exe = shutil.which(self.executable)
        if exe is None:
            raise BackendUnavailableError(
                f"the Apertium translator ({self.executable!r}) is not installed; on Debian/"
                "Ubuntu: apt-get install apertium " + " ".join(APERTIUM_DEBIAN.values()),
                "apertium")
        return [exe] + (["-d", self.datadir] if self.datadir else [])

    def modes(self) -> frozenset[str]:
        """Translation directions the installed language pairs provide (``apertium -l``)."""
        if self._modes is None:
            res = subprocess.run([*self._cmd(), "-l"], capture_output=True, text=True,
                                 check=False)
            self._modes = frozenset(ln.strip() for ln in res.stdout.splitlines() if ln.strip())
        return self._modes

    def _pair(self, pivot: str) -> tuple[str, str] | None:
        there, back = APERTIUM_PAIRS[pivot]
        modes = self.modes()
        a = next((m for m in there if m in modes), None)
        b = next((m for m in back if m in modes), None)
        return (a, b) if a and b else None

    def available_pivots(self) -> tuple[str, ...]:
        return tuple(p for p in APERTIUM_PAIRS if self._pair(p))

    def check_pivot(self, pivot: str) -> str:
        p = APERTIUM_ALIASES.get(pivot, pivot)
        if p not in APERTIUM_PAIRS:
            raise ConfigError(f"apertium: unknown pivot {pivot!r}; known: "
                              f"{', '.join(APERTIUM_PAIRS)}")
        if self._pair(p) is None:
            raise BackendUnavailableError(
                f"apertium: the language pair for pivot {p!r} is not installed; on Debian/"
                f"Ubuntu: apt-get install {APERTIUM_DEBIAN[p]}", APERTIUM_DEBIAN[p])
        return p

    def _mode(self, source: str, target: str) -> str:
        if source == "en":
            pair = self._pair(self.check_pivot(target))
            return pair[0]  # type: ignore[index]
        if target == "en":
            pair = self._pair(self.check_pivot(source))
            return pair[1]  # type: ignore[index]
        raise ConfigError("apertium round trips go through English")

    def _run(self, mode: str, texts: list[str]) -> str:
        payload = "".join(t + "\n\n" for t in texts)
        res = subprocess.run([*self._cmd(), "-u", mode], input=payload, capture_output=True,
                             text=True, encoding="utf-8", check=False)
        if res.returncode != 0:
            raise TranslationError(f"apertium {mode} failed (exit {res.returncode}): "
                                   f"{res.stderr.strip()[:500]}")
        return res.stdout

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        mode = self._mode(source, target)
        cleaned = [_clean(t) for t in texts]
        todo = [t for t in cleaned if t]
        if not todo:
            return ["" for _ in cleaned]
        parts = [p for p in re.split(r"\n[ \t]*\n", self._run(mode, todo).strip("\n"))]
        if len(parts) != len(todo):
            # Paragraph structure not preserved (should not happen): translate one by one.
            parts = [self._run(mode, [t]).strip() for t in todo]
        it = iter(parts)
        out = []
        for src, t in zip(cleaned, texts):
            if not src:
                out.append("")
                continue
            tr = _clean(next(it))
            if "#" not in t and "@" not in t:
                tr = _APERTIUM_MARK.sub("", tr)
            out.append(tr)
        return out


# -- local model directories -----------------------------------------------------------------
def _direction_dirs(root: Path) -> dict[tuple[str, str], Path]:
    out: dict[tuple[str, str], Path] = {}
    if not root.is_dir():
        raise ConfigError(f"model directory {root} does not exist")
    for d in sorted(root.iterdir()):
        if not d.is_dir():
            continue
        name = d.name.removeprefix("opus-mt-")
        parts = name.split("-")
        if len(parts) == 2 and all(parts):
            out.setdefault((parts[0], parts[1]), d)
    return out


class _DirectoryTranslator(BaseTranslator):
    kind = "dir"

    def __init__(self, directory: str | os.PathLike[str], batch_size: int = 16,
                 beams: int = 1, max_length: int = 256):
        self.root = Path(directory).expanduser()
        self.name = f"{self.kind}:{self.root.resolve()}:beams={beams}"
        self.batch_size = batch_size
        self.beams = beams
        self.max_length = max_length
        self.dirs = _direction_dirs(self.root)
        if not self.dirs:
            raise ConfigError(f"{self.root}: no model directories named en-XX / XX-en "
                              "(or opus-mt-en-XX / opus-mt-XX-en) found")
        self._loaded: dict[tuple[str, str], Any] = {}

    def available_pivots(self) -> tuple[str, ...]:
        return tuple(sorted(t for (s, t) in self.dirs if s == self.source
                            and (t, self.source) in self.dirs))

    def _model(self, source: str, target: str) -> Any:
        key = (source, target)
        if key not in self.dirs:
            raise ConfigError(f"{self.root}: no model for {source}->{target}")
        if key not in self._loaded:
            self._loaded[key] = self._load(self.dirs[key])
        return self._loaded[key]

    @abstractmethod
    def _load(self, path: Path) -> Any:
        ...

    @abstractmethod
    def _translate_batch(self, model: Any, texts: list[str]) -> list[str]:
        ...

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        model = self._model(source, target)
        return _batched(texts, self.batch_size, lambda batch: self._translate_batch(model, batch))


class MarianTranslator(_DirectoryTranslator):
    """Hugging Face Marian/OPUS-MT models from local directories (transformers + torch)."""

    kind = "marian"

    def _load(self, path: Path) -> Any:
        from gecscope._hf import checkpoint_errors, offline

        transformers = require("transformers", "marian", "Marian translation models")
        require("torch", "marian", "Marian translation models")
        # a damaged or unsafe checkpoint is a FormatError naming the file (as the learned
        # metrics' loader does); a directory transformers cannot read is a ConfigError
        with offline(transformers, path):
            try:
                tok = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                with checkpoint_errors(path):  # inside: transformers 4 wraps them in an OSError
                    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(
                        str(path), local_files_only=True)
            except (OSError, ValueError, KeyError) as exc:
                raise ConfigError(f"cannot load a Marian model from {path}: {exc}") from None
        model.eval()
        return tok, model

    def _translate_batch(self, model: Any, texts: list[str]) -> list[str]:
        import torch

        tok, mdl = model
        batch = tok(texts, return_tensors="pt", padding=True, truncation=True,
                    max_length=self.max_length)
        with torch.no_grad():
            gen = mdl.generate(**batch, num_beams=self.beams, max_new_tokens=self.max_length)
        return tok.batch_decode(gen, skip_special_tokens=True)


class CTranslate2Translator(_DirectoryTranslator):
    """CTranslate2 models (e.g. OPUS-MT converted with ``ct2-transformers-converter``) with
    their SentencePiece models ``source.spm``/``target.spm`` in each direction's directory."""

    kind = "ct2"

    def _load(self, path: Path) -> Any:
        ct2 = require("ctranslate2", "ct2", "CTranslate2 translation models")
        spm = require("sentencepiece", "ct2", "CTranslate2 translation models")
        for f in ("source.spm", "target.spm", "model.bin"):
            if not (path / f).is_file():
                raise ConfigError(f"{path}: missing {f} (a CTranslate2 model directory needs "
                                  "model.bin, source.spm and target.spm)")
        return (ct2.Translator(str(path), device="cpu", inter_threads=1, intra_threads=1),
                spm.SentencePieceProcessor(model_file=str(path / "source.spm")),
                spm.SentencePieceProcessor(model_file=str(path / "target.spm")))

    def _translate_batch(self, model: Any, texts: list[str]) -> list[str]:
        translator, sp_src, sp_tgt = model
        tokens = [sp_src.encode(t, out_type=str) + ["</s>"] for t in texts]
        results = translator.translate_batch(tokens, beam_size=self.beams,
                                             max_decoding_length=self.max_length,
                                             max_batch_size=self.batch_size)
        out = []
        for r in results:
            hyp = [t for t in r.hypotheses[0] if t not in ("</s>", "<pad>", "<unk>")]
            out.append(sp_tgt.decode(hyp))
        return out


class ArgosTranslator(BaseTranslator):
    """Installed Argos Translate packages (no download at run time).

    Argos is used to find the installed packages (``$ARGOS_PACKAGES_DIR`` or ``packages_dir``);
    each package's CTranslate2 model and SentencePiece/BPE tokenizer are then run directly, one
    ``translate_batch`` per batch. Argos's own sentence splitter is skipped (it needs a model of
    its own, fetched on first use): the inputs are single sentences already.
    """

    name = "argos"

    def __init__(self, packages_dir: str | os.PathLike[str] | None = None, batch_size: int = 32,
                 beams: int = 1, max_length: int = 256):
        self._pkg_mod = require("argostranslate.package", "argos", "Argos Translate")
        self._ct2 = require("ctranslate2", "argos", "Argos Translate")
        self.packages_dir = Path(packages_dir).expanduser() if packages_dir is not None else None
        self.batch_size = batch_size
        self.beams = beams
        self.max_length = max_length
        self._models: dict[tuple[str, str], Any] = {}
        self._packages: dict[tuple[str, str], Any] | None = None

    def packages(self) -> dict[tuple[str, str], Any]:
        if self._packages is None:
            path = [self.packages_dir] if self.packages_dir is not None else None
            pkgs = self._pkg_mod.get_installed_packages(path)
            self._packages = {(p.from_code, p.to_code): p for p in pkgs
                              if getattr(p, "type", "translate") == "translate"}
        return self._packages

    def available_pivots(self) -> tuple[str, ...]:
        pk = self.packages()
        return tuple(sorted(t for (s, t) in pk if s == self.source and (t, s) in pk))

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        pkg = self.packages().get((source, target))
        if pkg is None:
            raise BackendUnavailableError(
                f"argos: no installed package for {source}->{target}; install one with "
                "argospm or argostranslate.package.install_from_path", "argostranslate",
                "argos")
        key = (source, target)
        if key not in self._models:
            self._models[key] = self._ct2.Translator(str(pkg.package_path / "model"),
                                                     device="cpu", inter_threads=1,
                                                     intra_threads=1)
        model = self._models[key]
        prefix = getattr(pkg, "target_prefix", "")

        def translate_batch(batch: list[str]) -> list[str]:
            toks = [pkg.tokenizer.encode(text) for text in batch]
            res = model.translate_batch(toks, beam_size=self.beams,
                                        max_decoding_length=self.max_length,
                                        target_prefix=[[prefix]] * len(toks) if prefix else None,
                                        replace_unknowns=True)
            out = []
            for r in res:
                value = pkg.tokenizer.decode(r.hypotheses[0])
                out.append(value[len(prefix):] if prefix and value.startswith(prefix) else value)
            return out

        return _batched(texts, self.batch_size, translate_batch)


class HttpTranslator(BaseTranslator):
    """A LibreTranslate-style service: ``POST URL/translate`` with JSON
    ``{"q": [...], "source": "en", "target": "es", "format": "text"}`` answering
    ``{"translatedText": [...]}``; pivots from ``GET URL/languages``. One request per batch."""

    def __init__(self, url: str, api_key: str | None = None, batch_size: int = 64,
                 timeout: float = 120.0, pivots: Sequence[str] | None = None):
        self.url = url.rstrip("/")
        self.name = f"http:{self.url}"
        self.api_key = api_key or os.environ.get("GECSCOPE_TRANSLATE_API_KEY")
        self.batch_size = batch_size
        self.timeout = timeout
        self._pivots = tuple(pivots) if pivots else None

    def _request(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """JSON from the service: one deadline (``timeout``) for the whole request, retries
        included; transient failures retried twice; the answer capped at 16 MB."""
        from gecscope._http import request_json

        return request_json(self.url + path, payload, deadline=self.timeout,
                            error=TranslationError)  # the key travels in the payload

    def available_pivots(self) -> tuple[str, ...]:
        if self._pivots is None:
            langs = self._request("/languages")
            targets = {d["code"]: set(d.get("targets", ())) for d in langs}
            en = targets.get(self.source, set())
            self._pivots = tuple(sorted(c for c in en if c != self.source
                                        and self.source in targets.get(c, set())))
        return self._pivots

    def check_pivot(self, pivot: str) -> str:
        """Checked against ``/languages`` when the service has that endpoint; a service
        without it is trusted (an unsupported pivot then fails at the first request)."""
        try:
            self.available_pivots()
        except TranslationError:
            return pivot
        return super().check_pivot(pivot)

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str]:
        def translate_batch(batch: list[str]) -> list[str]:
            payload: dict[str, Any] = {"q": batch, "source": source, "target": target,
                                       "format": "text"}
            if self.api_key:
                payload["api_key"] = self.api_key
            ans = self._request("/translate", payload)
            got = ans.get("translatedText") if isinstance(ans, dict) else None
            if isinstance(got, str) and len(batch) == 1:
                got = [got]
            if not isinstance(got, list) or len(got) != len(batch):
                raise TranslationError(f"{self.url}/translate: expected {len(batch)} "
                                       f"translations, got {str(ans)[:200]}")
            return [str(tr) for tr in got]

        return _batched(texts, self.batch_size, translate_batch)


def make_translator(spec: str | None = None, **llm_options: Any) -> BaseTranslator:
    """Build a backend from ``apertium``, ``marian:DIR``, ``ct2:DIR``, ``argos``, ``http:URL``
    or ``llm:URL``; ``llm_options`` (``model=`` is required) go to
    :class:`~gecscope.rtt.llm_translator.LLMTranslator`."""
    spec = (spec or "apertium").strip()
    kind, _, arg = spec.partition(":")
    if kind == "llm":
        from gecscope.rtt.llm_translator import LLMTranslator

        if not arg:
            raise ConfigError("llm backend needs the URL of an OpenAI-compatible API: "
                              "llm:http://127.0.0.1:8080/v1")
        if "model" not in llm_options:
            raise ConfigError("the llm backend needs a model name (--llm-model NAME; the "
                              "name the server serves)")
        return LLMTranslator(arg, **llm_options)
    if llm_options:
        raise ConfigError(f"{', '.join(sorted(llm_options))}: only the llm backend "
                          f"(llm:URL) takes these options, not {spec!r}")
    if kind == "apertium":
        return ApertiumTranslator(datadir=arg or None)
    if kind == "marian":
        return MarianTranslator(arg)
    if kind in ("ct2", "ctranslate2"):
        return CTranslate2Translator(arg)
    if kind == "argos":
        return ArgosTranslator(arg or None)
    if kind == "http":
        if not arg:
            raise ConfigError("http backend needs a URL: http:http://host:port")
        return HttpTranslator(arg if "://" in arg else "http://" + arg)
    if kind == "https":
        return HttpTranslator(spec)
    raise ConfigError(f"unknown translation backend {spec!r}; use apertium, marian:DIR, "
                      "ct2:DIR, argos, http:URL or llm:URL")


# -- cache -----------------------------------------------------------------------------------
class RoundTripCache(SQLiteCache):
    """Round trips stored in SQLite, keyed by (backend, pivot, sentence). Opened as every
    gecscope cache is (:func:`gecscope._sqlite_cache.open_cache`): proven writable first, a
    busy file waited on for ``timeout`` seconds, only a damaged regular file moved aside.

    Each row carries :func:`~gecscope._sqlite_cache.row_digest` over its backend, pivot,
    sentence and output. :meth:`get_many` uses only rows that match it; any other row
    (changed by hand or by another program, or written by a version without digests) is
    counted in ``rejected`` and reads as a miss, so :class:`CachedTranslator` translates the
    sentence again and :meth:`put_many` replaces the row.
    """

    WHAT = "round-trip cache"
    FILE = "rtt-round-trips.sqlite"
    TABLE = "round_trip"
    ROW_FORMAT = "gecscope-round-trip/1"
    SCHEMA = ("CREATE TABLE IF NOT EXISTS round_trip (backend TEXT, pivot TEXT, sentence TEXT, "
              "output TEXT, digest TEXT, PRIMARY KEY (backend, pivot, sentence))")
    HINT = CACHE_HINT
    rejected: list[tuple[str, str, str]]

    def _digest(self, backend: str, pivot: str, sentence: str, output: str) -> str:
        return row_digest(self.ROW_FORMAT, backend, pivot, sentence, output)

    def get_many(self, backend: str, pivot: str, sentences: Sequence[str]) -> dict[str, str]:
        """The stored outputs of those ``sentences`` that have a verified row (a row that
        fails its digest is left out and added to ``rejected``)."""
        out: dict[str, str] = {}
        uniq = list(dict.fromkeys(sentences))
        for b in range(0, len(uniq), 500):
            chunk = uniq[b:b + 500]
            q = ",".join("?" * len(chunk))
            with self._guard():
                rows = self._db.execute(
                    f"SELECT sentence, output, digest FROM round_trip WHERE backend=? AND "
                    f"pivot=? AND sentence IN ({q})", (backend, pivot, *chunk)).fetchall()
            for s, o, digest in rows:
                if isinstance(o, str) and digest == self._digest(backend, pivot, s, o):
                    out[s] = o
                else:
                    self.rejected.append((backend, pivot, s))
        return out

    def put_many(self, backend: str, pivot: str, pairs: Sequence[tuple[str, str]]) -> None:
        with self._guard():
            self._db.executemany(
                "INSERT OR REPLACE INTO round_trip (backend, pivot, sentence, output, digest) "
                "VALUES (?, ?, ?, ?, ?)",
                [(backend, pivot, s, o, self._digest(backend, pivot, s, o)) for s, o in pairs])
            self._db.commit()


class CachedTranslator:
    """Wraps a translator: cached round trips are reused, the rest go in one batch."""

    def __init__(self, translator: BaseTranslator, cache: RoundTripCache):
        self.translator = translator
        self.cache = cache
        self.name = translator.name
        self.hits = 0
        self.misses = 0

    def available_pivots(self) -> tuple[str, ...]:
        return self.translator.available_pivots()

    def check_pivot(self, pivot: str) -> str:
        return self.translator.check_pivot(pivot)

    def round_trip(self, sentences: Sequence[str], pivot: str) -> list[str]:
        pivot = self.translator.check_pivot(pivot)
        keys = [_clean(s) for s in sentences]
        rejected = len(self.cache.rejected)
        found = self.cache.get_many(self.name, pivot, keys)
        if len(self.cache.rejected) > rejected:
            import warnings

            warnings.warn(f"{len(self.cache.rejected) - rejected} row(s) of the round-trip "
                          f"cache {self.cache.path} do not match their digest (changed after "
                          "they were written, or written by an older gecscope); not used: "
                          "translated again, and replaced", RuntimeWarning, stacklevel=2)
        missing = [s for s in dict.fromkeys(keys) if s not in found]
        missing_set = set(missing)
        self.hits += sum(1 for k in keys if k not in missing_set)
        self.misses += len(missing)
        if missing:
            outs = self.translator.round_trip(missing, pivot)
            self.cache.put_many(self.name, pivot, list(zip(missing, outs)))
            found.update(zip(missing, outs))
        return [found[k] for k in keys]
