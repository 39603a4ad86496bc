"""No import cycle between the packages of ghostlight_trio, and a stated order naming them all.

The graph is grimp's (the one import-linter reads), every import counted: at module level, in
functions and under ``TYPE_CHECKING``. Each module is reduced to its package
(``ghostlight_trio.<package>``); a cycle there is reported with the imports that make it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Set
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "ghostlight_trio"

PackageGraph = Mapping[str, Mapping[str, tuple[str, str]]]
"""package -> imported package -> one (importer, imported) module pair behind the edge."""


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == SERVICE else None


def package_graph(graph: grimp.ImportGraph) -> PackageGraph:
    """The imports between packages of ghostlight_trio, one witness per edge."""
    edges: dict[str, dict[str, tuple[str, str]]] = {}
    for module in sorted(graph.modules):
        source = _package(module)
        if source is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            target = _package(imported)
            if target is not None and target != source:
                edges.setdefault(source, {}).setdefault(target, (module, imported))
    return edges


def find_cycle(edges: PackageGraph) -> list[str] | None:
    """One cycle of packages (first package repeated at the end), or None when acyclic."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(package: str) -> list[str] | None:
        path.append(package)
        on_path.add(package)
        for target in sorted(edges.get(package, {})):
            if target in on_path:
                return path[path.index(target) :] + [target]
            if target not in done and (cycle := visit(target)) is not None:
                return cycle
        on_path.discard(path.pop())
        done.add(package)
        return None

    for package in sorted(edges):
        if package not in done and (cycle := visit(package)) is not None:
            return cycle
    return None


def describe(cycle: list[str], edges: PackageGraph) -> str:
    hops = []
    for source, target in zip(cycle, cycle[1:], strict=False):
        importer, imported = edges[source][target]
        hops.append(f"  {source} -> {target}  ({importer} imports {imported})")
    return "import cycle between packages:\n" + "\n".join(hops)


def _service_packages() -> Set[str]:
    base = ROOT / SERVICE
    return {path.parent.name for path in base.glob("*/__init__.py")}


def _layers_contract() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    [layers] = [c for c in contracts if c["type"] == "layers" and c["containers"] == [SERVICE]]
    return list(layers["layers"])


def test_no_import_cycle_between_service_packages() -> None:
    edges = package_graph(grimp.build_graph(SERVICE, cache_dir=None))
    assert len(edges) >= 5  # the graph was built: packages import each other
    cycle = find_cycle(edges)
    assert cycle is None, describe(cycle, edges)


def test_the_layer_order_names_every_package_once() -> None:
    named = [name.strip() for layer in _layers_contract() for name in layer.split("|")]
    assert len(named) == len(set(named))
    assert set(named) == _service_packages()


def test_the_cycle_finder_finds_and_names_a_cycle() -> None:
    edges = {
        "browser": {"scheduler": ("a.browser.shore", "a.scheduler")},
        "scheduler": {"workspace": ("a.scheduler.keys", "a.workspace"),
                      "browser": ("a.scheduler.keys", "a.browser.tabids")},
        "workspace": {},
    }  # fmt: skip
    cycle = find_cycle(edges)
    assert cycle == ["browser", "scheduler", "browser"]
    assert "a.scheduler.keys imports a.browser.tabids" in describe(cycle, edges)
    assert find_cycle({"a": {"b": ("x", "y")}, "b": {"c": ("y", "z")}}) is None
