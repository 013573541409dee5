"""Page objects: pure functions from a saved response to raw items."""


class PageShapeError(ValueError):
    """The response is not in the shape the page object knows."""


def only_one(found: set[str], *, none: str, several: str) -> str:
    """The single value a page names; none, or several, is a shape error
    (`several` may use {found}), never a guess."""
    if not found:
        raise PageShapeError(none)
    if len(found) > 1:
        raise PageShapeError(several.format(found=", ".join(sorted(found))))
    return next(iter(found))
