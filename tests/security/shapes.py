"""Hypothesis strategies for hostile answers shaped like real ones: a valid
document with one or two of its parts replaced or removed, cut short, nested
absurdly deep, or plain noise; and HTML built from the tags and attributes a
page object looks for."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from tests.security.test_fuzz import json_values

REMOVE = object()
# Deeper than the JSON decoder's recursion limit (a RecursionError, not a
# ValueError), yet shallow enough that ijson's prefix strings (quadratic in
# the depth) keep the streaming parsers' examples fast.
TOO_DEEP = [b"[" * 5_000, b'{"a":' * 5_000, b"cb(" + b"[" * 5_000 + b")"]
ODD_SCALARS = st.sampled_from(["", "NaN", "Infinity", "-1", "1e999999", "N/A*", "0", "\u00a0", "p5.48xlarge"])


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    found = [here]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*here, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*here, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, doc: Any, *, keep_root: bool = False) -> Any:
    """`doc` with one to three of its parts (the whole included, unless
    `keep_root`) replaced by a random JSON value, or removed."""
    out = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(out) if p or not keep_root]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        value = draw(json_values | ODD_SCALARS | st.just(REMOVE))
        if not path:
            out = None if value is REMOVE else value
            continue
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        if value is REMOVE:
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    return out


def bodies(doc: Any) -> st.SearchStrategy[bytes]:
    """Bytes a hostile or broken server might answer instead of `doc`."""
    text = json.dumps(doc).encode()
    return (
        mutated(doc).map(lambda v: json.dumps(v).encode())
        | st.integers(0, len(text)).map(lambda n: text[:n])
        | st.binary(max_size=200)
        | json_values.map(lambda v: json.dumps(v).encode())
        | st.sampled_from(TOO_DEEP)
    )


@st.composite
def html_pages(draw: st.DrawFn, tags: list[str], attrs: list[str], classes: list[str]) -> str:
    """A small tree of the given tags, with the attributes and classes a page
    object looks for (present, empty or odd), and text in between."""

    def element(depth: int) -> str:
        tag = draw(st.sampled_from(tags))
        parts = []
        for attr in draw(st.lists(st.sampled_from(attrs), max_size=2, unique=True)):
            parts.append(f'{attr}="{draw(st.sampled_from(["", "x1", " ", "&amp;", "id-2"]))}"')
        chosen = draw(st.lists(st.sampled_from(classes), max_size=2, unique=True))
        if chosen:
            parts.append(f'class="{" ".join(chosen)}"')
        inner = draw(st.text(max_size=12)).replace("<", "&lt;")
        if depth < 3:
            inner += "".join(element(depth + 1) for _ in range(draw(st.integers(0, 3))))
        return f"<{tag} {' '.join(parts)}>{inner}</{tag}>"

    body = "".join(element(0) for _ in range(draw(st.integers(0, 4))))
    return draw(st.sampled_from(["", "<html><body>{}</body></html>", "{}", "<div>{}"])).format(body)
