"""Errors a user can cause or meet. The CLI prints their message as one line."""


class TrackerError(Exception):
    """Base of the errors we report without a traceback."""

    exit_code = 1


class UserError(TrackerError):
    """Bad input: a file, a name or a value that we cannot use."""


class ConfigError(UserError):
    """The configuration file is missing a value, or has a wrong one."""


class CrawlFailed(TrackerError):
    """A crawl ran and failed; its run row says why."""


class SourceSkipped(UserError):
    """A source that cannot be crawled as configured (say, it lacks an API
    key): skipped with a one-line reason, no run recorded."""
