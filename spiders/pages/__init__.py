"""Page objects: pure functions from a saved response to raw items."""


class PageShapeError(ValueError):
    """The response is not in the shape the page object knows."""
