"""No import cycles between the project's modules, lazy imports (inside functions) included.

Every .py file under snack_envs/ and training/ (installed as snack_envs.training) is parsed with `ast`; every import
of a project module, wherever it stands in the file, is an edge. `from pkg import
name` is an import of `pkg.name` when that is a module, else of `pkg` itself. A
package does not import its parent package implicitly here: `import a.b.c` is an
edge to `a.b.c` only. Imports under `if TYPE_CHECKING:` never run and are left out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"snack_envs": "snack_envs", "snack_envs.training": "training"}  # package -> its folder (pyproject's package-dir)


def module_files() -> dict[str, Path]:
    """Module name -> file, for every module of the project's packages."""
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The statements under `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`), and everything in them."""
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for stmt in node.body:
                nodes.update(ast.walk(stmt))
    return nodes


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that module `name` imports, anywhere in its file."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    skip = type_checking_only(tree)
    found = set()
    for node in ast.walk(tree):
        if node in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's own package
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                full = f"{source}.{alias.name}"
                found.add(full if full in modules else source)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Cycles of the graph, each as [a, b, ..., a]: one for every back edge a depth-first search meets."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_the_graph_sees_lazy_and_from_imports():
    graph = import_graph()
    assert "snack_envs.specs" in graph["snack_envs"]  # `from snack_envs import specs` names a module
    assert "snack_envs.core.game" in graph["snack_envs.training.config"]
    assert "snack_envs.checkpoints" in graph["snack_envs.agents"]  # imported inside a function
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\nimport b\n")
    assert {n.names[0].name for n in type_checking_only(tree) if isinstance(n, ast.Import)} == {"a"}
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_every_module_loads_once_under_one_name():
    """The training tools are the package snack_envs.training; their folder training/ could also be imported
    as `training` from the repository root, which would load each file a second time under a second name
    (two module objects, two copies of every class). That name is refused, with a message that gives the
    right one; importing every project module (from the repository root, as the tests run) loads each file once."""
    names = sorted(module_files())
    code = f"""
import importlib, os, sys
sys.path.insert(0, {str(ROOT)!r})
for name in {names!r}:
    try:
        importlib.import_module(name)
    except ImportError as error:
        if name.split(".")[-1] not in ("rllib", "torchrl") and "__main__" not in name:  # optional extras
            raise
files = {{}}
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if path and os.path.realpath(path) in {sorted(str(f.resolve()) for f in module_files().values())!r}:
        files.setdefault(os.path.realpath(path), []).append(name)
twice = {{f: n for f, n in files.items() if len(n) > 1}}
assert not twice, twice
assert len(files) > 50, sorted(files)
try:
    import training
except ImportError as error:
    print("refused:", error)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "refused:" in done.stdout and "snack_envs.training" in done.stdout
    from_root = subprocess.run([sys.executable, "-m", "training.ship", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert from_root.returncode != 0 and "python -m snack_envs.training.train" in from_root.stderr
