"""No import cycles under ``tui/``: every import statement counts, at module level, in a function or for type checking.

A cycle makes start-up order matter (a half-initialised module seen by
another) and couples the layers: screens reach the app through the typed
handle of :mod:`tui.screens.base`, never by importing :mod:`tui.app`.

Importing ``a.b.c`` runs ``a/b/__init__.py`` first, so a module that imports
a submodule of a package it is not inside also depends on that package's
``__init__`` and whatever it re-exports: :mod:`tui.config.keys` importing
``tui.config.models`` runs ``tui/config/__init__.py``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tui"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def packages_run_by(importer: str, target: str) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs from ``importer``: those it is not already inside.

    The importer's own packages are loaded (or loading) before its first line
    runs, so they add no edge; counting them would make every package that
    re-exports a submodule look like a cycle with it.
    """
    parts = target.split(".")
    inside = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    return {p for p in (".".join(parts[:i]) for i in range(1, len(parts))) if p not in inside}


def imports_of(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The modules under ``root`` a file imports, anywhere in it, and the packages each import runs on the way.

    ``from tui.x import y`` names tui.x.y when it is a module; importing tui.x.y
    from outside tui.x also runs tui.x (see :func:`packages_run_by`).
    """
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
                found |= {p for p in packages_run_by(name, target) if p in modules}
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    root = package.parent
    files = {module_name(p, root): p for p in package.rglob("*.py")}
    modules = set(files)
    return {name: imports_of(path, modules, root) for name, path in files.items()}


@functools.cache
def tui_graph() -> Mapping[str, frozenset[str]]:
    """The import graph of tui/, parsed once for the tests that read it (frozen: no test can change another's)."""
    return MappingProxyType({name: frozenset(imports) for name, imports in import_graph().items()})


def find_cycle(graph: Mapping[str, AbstractSet[str]]) -> list[str] | None:
    """One cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_tui_has_no_import_cycle() -> None:
    graph = tui_graph()
    assert "tui.app" in graph and "tui.screens.monitor" in graph["tui.app"], "the walk sees lazy imports"
    assert "tui.config" in graph["tui.state.io.journal"], "the walk sees the package __init__ a submodule import runs"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    """Guard against a vacuous pass."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """A package whose ``__init__`` re-exports a module that imports a module outside it, which imports the package.

    ``keys`` imports only ``pkg.models``, yet that runs ``pkg/__init__.py``,
    which imports ``pkg.resolve``, which imports ``keys`` before it has finished.
    Relative imports and a lazy import inside a function count the same.
    """
    sources = {
        "pkg/__init__.py": "from top.pkg.models import Settings as Settings\nfrom .resolve import resolve as resolve\n",
        "pkg/models.py": "class Settings: ...\n",
        "pkg/resolve.py": "def resolve() -> None:\n    from top.keys import key\n",
        "keys.py": "from top.pkg.models import Settings\n\ndef key() -> None: ...\n",
    }
    for name, text in sources.items():
        (tmp_path / "top" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "top" / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path / "top")
    assert graph["top.pkg"] == {"top.pkg.models", "top.pkg.resolve"}, "a package re-exporting its modules is no cycle"
    assert graph["top.pkg.resolve"] == {"top.keys"}
    cycle = find_cycle(graph)
    assert cycle is not None and {"top.keys", "top.pkg", "top.pkg.resolve"} <= set(cycle), cycle
    (tmp_path / "top" / "pkg" / "__init__.py").write_text("from top.pkg.models import Settings as Settings\n")
    assert find_cycle(import_graph(tmp_path / "top")) is None, "without the re-export nothing runs keys early"


def test_keys_takes_only_the_shapes_from_the_config() -> None:
    """:mod:`tui.config.keys` reads a profile's ``key_command`` and ``key``; how profiles are chosen sits above it.

    ``tui.config.resolve`` asks ``keys`` for the key, so ``keys`` may use the
    models and the error, never the resolution or the file code.
    """
    graph = tui_graph()
    config = {m for m in graph["tui.config.keys"] if m == "tui.config" or m.startswith("tui.config.")}
    assert config == {"tui.config.models", "tui.config.errors"}
    assert "tui.config.keys" in graph["tui.config.resolve"]


OUTSIDE_WORLD = ("tui.state.io", "tui.secrets.private_files", "tui.config.paths", "tui.api.cache")


def test_the_state_outside_io_touches_nothing_outside() -> None:
    """Modules directly under :mod:`tui.state` decide; files, programs, the store and polls are ``tui.state.io``'s.

    A pure module that needs to send or write is given a callable or a :class:`JournalWriter`, never the thing itself.
    """
    graph = tui_graph()
    assert OUTSIDE_WORLD[1] in graph["tui.state.io.journal"], "the check sees what an io module imports"
    pure = sorted(m for m in graph if m.startswith("tui.state.") and not m.startswith("tui.state.io"))
    assert "tui.state.health" in pure and "tui.state.alert_book" in pure
    offenders = {m: sorted(d for d in graph[m] if d.startswith(OUTSIDE_WORLD)) for m in pure}
    assert {m: d for m, d in offenders.items() if d} == {}


def below(graph: Mapping[str, AbstractSet[str]], layer: str, above: tuple[str, ...]) -> dict[str, list[str]]:
    """Each module of ``layer`` (a package, its modules included) that imports a module of the ``above`` packages."""
    inside = [m for m in graph if m == layer or m.startswith(layer + ".")]
    found = {m: sorted(d for d in graph[m] if any(d == a or d.startswith(a + ".") for a in above)) for m in inside}
    return {m: d for m, d in found.items() if d}


LAYERS = {
    "tui.text": ("tui.api", "tui.sandbox", "tui.state", "tui.look", "tui.widgets", "tui.screens", "tui.cli",
                 "tui.config", "tui.secrets", "tui.app"),
    "tui.state": ("tui.look", "tui.widgets", "tui.screens"),
    "tui.api": ("tui.config", "tui.state", "tui.look", "tui.widgets", "tui.screens"),
    "tui.look": ("tui.widgets", "tui.screens"),
}


def test_each_layer_imports_nothing_above_it() -> None:
    """Text sits below everything; state below the looks, widgets and screens; the API below the configuration
    (it is given its paths); the looks below the widgets. Lazy and type-checking imports count the same."""
    graph = tui_graph()
    assert {m: d for layer, above in LAYERS.items() for m, d in below(graph, layer, above).items()} == {}


def test_the_layer_check_can_fail() -> None:
    """Guard against a vacuous pass: an upward import and an import of a package's own ``__init__`` are seen."""
    graph = {"tui.state.health": {"tui.look.render"}, "tui.state": {"tui.look"}, "tui.text.words": {"tui.text"}}
    assert below(graph, "tui.state", ("tui.look",)) == {"tui.state": ["tui.look"],
                                                          "tui.state.health": ["tui.look.render"]}
    assert below(graph, "tui.text", ("tui.state",)) == {}
    assert "tui.text.clean" in tui_graph() and "tui.text.clean" in tui_graph()["tui.state.alert_book"]
