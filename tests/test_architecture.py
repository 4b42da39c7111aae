"""Architecture checks: a light ``import gecscope``, no import cycles, imports that follow the
layer table (docs/architecture.md)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _lazy_names() -> dict[str, str]:
    """``gecscope.NAME`` -> the module that defines it, for the names the package root loads
    lazily (its ``_LAZY`` table): ``from gecscope import evaluate`` imports the evaluation."""
    tree = ast.parse((SRC / "gecscope" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and \
                "_LAZY" in {getattr(t, "id", None) for t in
                            (node.targets if isinstance(node, ast.Assign) else [node.target])}:
            assert node.value is not None
            return {f"gecscope.{k}": v for k, v in ast.literal_eval(node.value).items()}
    raise AssertionError("gecscope/__init__.py has no _LAZY table")


def _imports(path: Path, name: str, modules: set[str],
             lazy: dict[str, str] | None = None) -> set[str]:
    """Modules of the package imported anywhere in ``path`` (module level or inside functions,
    a name the package root loads lazily counting as its module, and
    ``importlib.import_module("gecscope...")`` with a literal name), except under
    ``if TYPE_CHECKING:`` (those never execute)."""
    lazy = lazy or {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            test = node.test
            if getattr(test, "id", None) == "TYPE_CHECKING" or \
                    getattr(test, "attr", None) == "TYPE_CHECKING":
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            found.update(a.name for a in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            for a in node.names:
                found.add(lazy.get(f"{base}.{a.name}", f"{base}.{a.name}"))

        def visit_Call(self, node: ast.Call) -> None:
            func = node.func
            if getattr(func, "attr", getattr(func, "id", None)) == "import_module" and \
                    node.args and isinstance(node.args[0], ast.Constant) and \
                    isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
            self.generic_visit(node)

    Visitor().visit(tree)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in (SRC / "gecscope").rglob("*.py")}
    modules = set(paths)
    lazy = _lazy_names()
    return {name: _imports(p, name, modules, lazy) for name, p in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles() -> None:
    graph = _graph()
    assert len(graph) > 80  # the whole package was read
    assert _cycles(graph) == []


def test_cycle_detection_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


#: The layers, bottom first (docs/architecture.md draws them and names the same layers).
LAYER_NAMES = (
    "base",                                # 0: types, errors, optional imports, caches, versions
    "formats, stats",                      # 1: file formats, resampling and significance
    "alignment, semantics, languages",     # 2: edit extraction, UCCA, per-language pipelines
    "data",                                # 3: the evaluation data model
    "gate",                                # 4: reading, realigning and checking the inputs
    "metrics",                             # 5: the metrics and their registry
    "execution, explain",                  # 6: executors, worker pools, Ray, streams; attribution
    "reports, evaluation",                 # 7: one evaluation, its report and signature
    "meta_eval, rtt",                      # 8: applications built on evaluation
    "cli",                                 # 9: the command line
)

#: Module prefix -> layer (an index of LAYER_NAMES). A module belongs to its longest listed
#: prefix; every import (module level or inside a function; ``if TYPE_CHECKING:`` excluded)
#: may only point to the same or a lower layer. ``gecscope`` itself (the package root) is
#: the lazy facade of the public API and only its ``__version__`` is imported inside.
LAYERS: dict[str, int] = {
    "gecscope": 0,
    "gecscope.types": 0,
    "gecscope.errors": 0,
    "gecscope.judgments": 0,
    "gecscope._versions": 0,
    "gecscope._optional": 0,
    "gecscope._jit": 0,
    "gecscope._http": 0,
    "gecscope._hf": 0,
    "gecscope._sqlite_cache": 0,
    "gecscope.llm_client": 0,
    "gecscope.progress": 0,
    "gecscope.formats": 1,
    "gecscope.stats": 1,
    "gecscope.alignment": 2,
    "gecscope.semantics": 2,
    "gecscope.languages": 2,
    "gecscope.data": 3,
    "gecscope.hypothesis": 3,
    "gecscope.testsets": 3,
    "gecscope.gate": 4,
    "gecscope.metrics": 5,
    "gecscope.registry": 5,
    "gecscope.execution": 6,
    "gecscope.explain": 6,
    "gecscope.reports": 7,
    "gecscope.evaluation": 7,
    "gecscope.signature": 7,
    "gecscope.meta_eval": 8,
    "gecscope.rtt": 8,
    "gecscope.cli": 9,
    "gecscope.__main__": 9,
}


def _layer(module: str, layers: dict[str, int]) -> int | None:
    """The layer of ``module``: that of its longest prefix in ``layers`` (the package root
    counts only for itself, so a new top-level module must be given its layer)."""
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        prefix = ".".join(parts[:n])
        if prefix in layers:
            return layers[prefix]
    return layers.get(module)


def _layer_violations(graph: dict[str, set[str]], layers: dict[str, int]
                      ) -> list[tuple[str, str]]:
    """``(module, imported module)`` pairs where the import points to a higher layer, and
    ``(module, "no layer")`` for a module the table does not place."""
    bad: list[tuple[str, str]] = []
    for mod in sorted(graph):
        own = _layer(mod, layers)
        if own is None:
            bad.append((mod, "no layer"))
            continue
        for dep in sorted(graph[mod]):
            theirs = _layer(dep, layers)
            if theirs is None or theirs > own:
                bad.append((mod, dep))
    return bad


def test_every_import_respects_the_layers() -> None:
    """No import points up the layer table (docs/architecture.md); there are no exceptions."""
    assert _layer_violations(_graph(), LAYERS) == []


def test_layer_check_finds_a_planted_violation() -> None:
    """An upward import, a module outside the table and an import of an unplaced module are
    found; same-layer and downward imports are not, and a longer prefix wins."""
    layers = {"p": 0, "p.low": 0, "p.high": 2, "p.high.deep": 1, "p.mid": 1}
    graph = {"p.low.a": {"p.mid.b"},             # 0 -> 1: upward
             "p.mid.b": {"p.low.a", "p.mid.c"},   # down, same layer
             "p.mid.c": set(),
             "p.high.x": {"p.high.deep.y", "p"},  # 2 -> 1, 2 -> 0 (the root)
             "p.high.deep.y": {"p.high.x"},       # 1 -> 2: upward through the longer prefix
             "p.new": {"p.low.a"},                # not in the table
             "p.low.z": {"p.other"}}              # imports a module not in the table
    assert _layer_violations(graph, layers) == [
        ("p.high.deep.y", "p.high.x"), ("p.low.a", "p.mid.b"), ("p.low.z", "p.other"),
        ("p.new", "no layer")]


def test_the_import_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Module level, in a function, relative, a lazy name of the package root and a literal
    ``import_module`` are imports; one under ``if TYPE_CHECKING:`` is not."""
    mod = tmp_path / "mod.py"
    mod.write_text("from typing import TYPE_CHECKING\n"
                   "import p.a\n"
                   "from . import b\n"
                   "from p import evaluate\n"
                   "if TYPE_CHECKING:\n    import p.hidden\n"
                   "def f():\n    from p.c import x\n"
                   "    importlib.import_module('p.d')\n", encoding="utf-8")
    modules = {"p", "p.a", "p.b", "p.c", "p.d", "p.e", "p.hidden", "p.mod"}
    assert _imports(mod, "p.mod", modules, {"p.evaluate": "p.e"}) == \
        {"p", "p.a", "p.b", "p.c", "p.d", "p.e"}


def test_layer_names_match_the_table() -> None:
    """Every layer has modules and every module prefix names a layer."""
    assert sorted(set(LAYERS.values())) == list(range(len(LAYER_NAMES)))


DOC = SRC.parent / "docs" / "architecture.md"


def _documented_layers(text: str) -> dict[int, tuple[str, set[str]]]:
    """The rows ``| N | name | `module`, ... |`` of the layer table in ``text``: layer ->
    (name, the back-quoted module prefixes, without ``gecscope.``)."""
    rows: dict[int, tuple[str, set[str]]] = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\| (\d+) \| ([^|]+?) \| (.+) \|", line.strip())
        if m:
            rows[int(m[1])] = (m[2], set(re.findall(r"`([^`]+)`", m[3])))
    return rows


def test_the_architecture_page_names_the_layers_of_the_table() -> None:
    """docs/architecture.md lists the same layers, in the same order, with the same modules,
    and its picture names every layer."""
    text = DOC.read_text(encoding="utf-8")
    table = {n: (name, {p.removeprefix("gecscope.") for p, k in LAYERS.items() if k == n})
             for n, name in enumerate(LAYER_NAMES)}
    assert _documented_layers(text) == table
    picture = text.split("```")[1]
    for n, name in enumerate(LAYER_NAMES):
        assert re.search(rf"^ *{n}  {re.escape(name)} ", picture, re.MULTILINE), name


def test_documented_layers_are_read_from_the_table_rows() -> None:
    """The page's reader sees a changed row (a missing module, a renamed layer)."""
    text = "| 0 | base | `gecscope`, `types` (note) |\n| 1 | formats, stats | `formats` |\n"
    assert _documented_layers(text) == {0: ("base", {"gecscope", "types"}),
                                        1: ("formats, stats", {"formats"})}


def _top_level_modules(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"],
                         capture_output=True, text=True, check=True, timeout=120)
    return set(out.stdout.split())


def test_import_gecscope_loads_only_the_standard_library() -> None:
    """``import gecscope`` and the API's entry points (and the metric classes that need no
    model) add nothing beyond the standard library to what the interpreter loads anyway."""
    baseline = _top_level_modules("")
    loaded = _top_level_modules(
        "import gecscope\n"
        "gecscope.EvalData, gecscope.Hypothesis, gecscope.evaluate, gecscope.get_metric\n"
        "from gecscope.registry import get_metric\n"
        "[get_metric(n) for n in ('errant', 'm2', 'gleu', 'cleme', 'cleme2', 'usim')]")
    extra = loaded - baseline - set(sys.stdlib_module_names) - {"gecscope"}
    assert extra == set()
