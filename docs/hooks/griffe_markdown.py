"""Griffe extension (loaded by mkdocstrings, see mkdocs.yml): the project's docstrings read as Markdown.

The docstrings are written as plain text: a list follows its introducing line
("Actions (49, ...):") with no blank line, nested items are indented by two
spaces, an indented block after a line ending in ":" is code or a table of
calls, and a quoted literal may hold brackets ("collections[1][3]").
Python-Markdown needs a blank line before a list and before an indented code
block, four spaces for a nested list, and code spans around brackets that are
not links. This extension adds exactly those, in the docstring text that mkdocstrings renders; the source files are
untouched, and `help()` shows them as written.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ITEM = re.compile(r"^( *)(?:[-*]|\d+[.)]) +\S")
# A double-quoted literal with brackets outside a code span, e.g. "collections[1][3]": Markdown would read
# `[1][3]` as a reference link (a broken cross-reference for mkdocstrings), so it becomes inline code.
QUOTED_BRACKETS = re.compile(r'(?<!`)"[^"\s`]*\[[^"\s`]*"(?!`)')
FENCE = re.compile(r"^ *(```|~~~)")


def as_markdown(text: str) -> str:
    """`text` with the blank lines and nested-list indents that Markdown needs (see the module docstring)."""
    out: list[str] = []
    items: list[tuple[int, int]] = []  # the open list items: (indent in the text, indent written)
    prev = ""  # the previous line as written
    in_code = in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if FENCE.match(line):
            in_fence = not in_fence
        if in_fence or FENCE.match(line):
            out.append(line)
            prev = line
            continue
        if not stripped:
            items = []  # a blank line closes a list; an indented block may go on
            out.append(line)
            prev = line
            continue
        if in_code and indent >= 4:
            out.append(line)
            prev = line
            continue
        if in_code:  # the end of an indented block
            in_code = False
            if prev.strip():
                out.append("")
        item = ITEM.match(line)
        if item and items:
            while items and indent < items[-1][0]:
                items.pop()
            if items and indent == items[-1][0]:
                written = items[-1][1]
                items[-1] = (indent, written)
            elif items:  # a nested item: four spaces deeper than its parent, whatever the text used
                written = items[-1][1] + 4
                items.append((indent, written))
            else:
                written = indent
                items.append((indent, written))
            line = " " * written + stripped
        elif item and indent < 4 and (not prev.strip() or prev.rstrip().endswith(":")):
            if prev.strip():
                out.append("")
            items = [(indent, indent)]
        elif items:
            if indent == 0:  # an unindented line after a list starts a new paragraph
                items = []
                out.append("")
            elif indent <= items[-1][0]:  # back in an outer item after a nested list: its next paragraph
                while items and indent <= items[-1][0]:
                    items.pop()
                if items:
                    out.append("")
                    line = " " * (items[-1][1] + 4) + stripped
        elif indent >= 4 and prev.strip() and prev.rstrip().endswith(":"):
            out.append("")  # an indented block after "...:" is code
            in_code = True
        elif indent >= 4 and not prev.strip():
            in_code = True
        out.append(QUOTED_BRACKETS.sub(lambda m: f"`{m.group(0)}`", line))
        prev = line
    return "\n".join(out)


class PlainTextDocstrings(griffe.Extension):
    """Rewrites every docstring with `as_markdown` once the object tree is built."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and not obj.is_alias:
            obj.docstring.value = as_markdown(obj.docstring.value)
