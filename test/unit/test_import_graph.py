"""The package's import graph has no circle: no module reaches itself through the imports of
others (type-checking and function-level imports count too: a circle of them is still two modules
that cannot be read, changed or tested apart). import-linter's contracts order the layers of
core; this holds for every module of the package, and names the circle when it fails."""

from __future__ import annotations

import grimp


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_package_has_no_import_circle() -> None:
    graph = grimp.build_graph("alpha_matrix")
    # A package's __init__ is imported by every submodule: its own imports are the package's face.
    for module in list(graph.modules):
        if graph.find_children(module):
            for imported in graph.find_modules_directly_imported_by(module):
                graph.remove_import(importer=module, imported=imported)
    circles = _circles(graph)
    assert not circles, "modules in an import circle:\n" + "\n".join(", ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for m in ("a", "b", "c", "d"):
        graph.add_module(m)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="c", imported="d")
    assert _circles(graph) == [["a", "b", "c"]]
