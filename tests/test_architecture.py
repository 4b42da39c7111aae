"""Architecture checks: a light ``import gecscope``, no import cycles, one-way dependencies."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """Modules of the package imported anywhere in ``path`` (module level or inside functions),
    except under ``if TYPE_CHECKING:`` (those never execute)."""
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
            found.update(f"{base}.{a.name}" for a in node.names)

    Visitor().visit(tree)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in (SRC / "gecscope").rglob("*.py")}
    modules = set(paths)
    return {name: _imports(p, name, modules) for name, p in paths.items()}


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


def test_dependencies_point_one_way() -> None:
    """stats imports no metric; formats, types and data import no metric or CLI; nothing below
    the CLI imports it (DESIGN.md, layout)."""
    graph = _graph()
    bad = []
    for mod, deps in graph.items():
        for dep in deps:
            if mod.startswith("gecscope.stats") and dep.startswith("gecscope.metrics"):
                bad.append((mod, dep))
            if not mod.startswith(("gecscope.cli", "gecscope.__main__")) and \
                    dep.startswith("gecscope.cli"):
                bad.append((mod, dep))
            if mod.startswith(("gecscope.formats", "gecscope.types")) and \
                    dep.startswith(("gecscope.metrics", "gecscope.stats", "gecscope.reports")):
                bad.append((mod, dep))
    assert bad == []


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
