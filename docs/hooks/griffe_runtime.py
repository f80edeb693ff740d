"""Griffe extension (loaded by mkdocstrings, see mkdocs.yml): docstrings and entry points made at import time.

mkdocstrings reads the source without running it, but two things in snack_envs
exist only once a module runs:

- the env docstrings: `snack_envs/<game>/env.py` builds its table as an
  f-string (`DOC`, with the action count and the observation slices filled in),
  and the env class and the entry-point module `snack_envs.<env_name>` set
  `__doc__ = DOC`;
- the entry points `env`, `raw_env`, `parallel_env` (and `raw_parallel_env`),
  which `snack_envs.core.entry` builds and the module unpacks from a tuple.

For every module or class of the package whose source assigns `__doc__` and
that has no docstring of its own, this extension imports it and takes its
runtime `__doc__`; for every name in a module's `__all__` that the source
does not define, it adds the runtime function with its signature and
docstring. A name it cannot add fails the build (strict mode), naming it.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from typing import Any

import griffe

logger = logging.getLogger("mkdocs.plugins.griffe_runtime")

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def runtime_object(obj: griffe.Object) -> Any:
    if obj.is_module:
        return importlib.import_module(obj.path)
    return getattr(runtime_object(obj.parent), obj.name)


def as_function(name: str, func: Any, parent: griffe.Module) -> griffe.Function:
    params = griffe.Parameters(
        *(
            griffe.Parameter(
                p.name,
                kind=KINDS[p.kind],
                default=None if p.default is inspect.Parameter.empty else repr(p.default),
            )
            for p in inspect.signature(func).parameters.values()
        )
    )
    doc = inspect.getdoc(func)
    function = griffe.Function(name, parameters=params, parent=parent)
    if doc:
        function.docstring = griffe.Docstring(doc, parent=function)
    return function


def missing_exports(module: griffe.Module) -> list[str]:
    """Names in the module's `__all__` (read from the source) that the source does not define."""
    names = [name if isinstance(name, str) else getattr(name, "name", str(name)) for name in module.exports or ()]
    return [name for name in names if name not in module.members]


def complete(obj: griffe.Object) -> None:
    if obj.is_alias:
        return
    if obj.docstring is None and "__doc__" in obj.members:
        doc = runtime_object(obj).__doc__
        if doc:
            obj.docstring = griffe.Docstring(inspect.cleandoc(doc), parent=obj)
    if obj.is_module:
        for name in missing_exports(obj):  # the module is imported only when its source lacks a name
            value = getattr(runtime_object(obj), name)
            if inspect.isfunction(value):
                obj.set_member(name, as_function(name, value, obj))
            else:
                logger.warning("griffe_runtime: %s.%s is in __all__ but is not in the source nor a function", obj.path, name)
    for member in list(obj.members.values()):
        if not member.is_alias and (member.is_module or member.is_class):
            complete(member)


class RuntimeDocstrings(griffe.Extension):
    """Completes the package once griffe has loaded it (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name == "snack_envs":
            complete(pkg)
