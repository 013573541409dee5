"""[web]: the dashboard and JSON API (`gpu-tracker serve`, and the daemon when
`enabled`). It binds 127.0.0.1 unless told otherwise; any other address needs
a token (or a user and password), from here or the environment."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, SecretStr

TOKEN_ENV = "GPU_TRACKER_WEB_TOKEN"
PASSWORD_ENV = "GPU_TRACKER_WEB_PASSWORD"
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# A token shorter than this is refused: one guessed in a day of tries is no guard.
MIN_TOKEN = 16
NEW_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(24))'"


class WebSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(False, description="the daemon serves the dashboard too")
    host: str = Field("127.0.0.1", description="address to listen on; another than loopback needs a token")
    port: int = Field(8080, ge=0, le=65535)
    token: SecretStr | None = Field(None, description=f"bearer token; falls back to ${TOKEN_ENV}")
    user: str | None = Field(None, description="basic auth user (with password), instead of a token")
    password: SecretStr | None = Field(None, description=f"basic auth password; falls back to ${PASSWORD_ENV}")
    page_size: int = Field(50, ge=5, le=500, description="rows per page of the prices, changes and offers lists")
    cache_seconds: int = Field(60, ge=0, le=3600, description="max-age the answers are cached for")

    def secret(self) -> str | None:
        """The token in force: the file's, else the environment's."""
        if self.token is not None and self.token.get_secret_value():
            return self.token.get_secret_value()
        return os.environ.get(TOKEN_ENV) or None

    def basic(self) -> tuple[str, str] | None:
        """The user and password in force, when both are set."""
        password = self.password.get_secret_value() if self.password else os.environ.get(PASSWORD_ENV)
        return (self.user, password) if self.user and password else None

    def token_source(self) -> str:
        """Where the token in force comes from: `[web] token` or the environment."""
        return "[web] token" if self.token is not None and self.token.get_secret_value() else f"${TOKEN_ENV}"

    def credentials(self) -> str:
        """What guards the dashboard, and where it comes from (never the secret)."""
        found = []
        if self.secret() is not None:
            found.append(f"a token from {self.token_source()}")
        if self.basic() is not None:
            where = "[web] password" if self.password else f"${PASSWORD_ENV}"
            found.append(f"user {self.user} with the password from {where}")
        return " or ".join(found) or "none: open to whoever reaches the address"

    def credential_problem(self) -> str | None:
        """Why the credentials in force cannot guard the dashboard, in one
        sentence (a blank or short token, a blank password); None when they can."""
        token = self.secret()
        if token is not None and len(token.strip()) < MIN_TOKEN:
            said = "is blank" if not token.strip() else f"has {len(token.strip())} characters"
            return (
                f"the dashboard's token ({self.token_source()}) {said}: a token needs at least {MIN_TOKEN} "
                f"characters; make one with {NEW_TOKEN}"
            )
        basic = self.basic()
        if basic is not None and not basic[1].strip():
            where = "[web] password" if self.password else f"${PASSWORD_ENV}"
            return f"the dashboard's password ({where}) is blank: set a password, or a token of at least {MIN_TOKEN} characters"
        return None


def is_loopback(host: str) -> bool:
    return host in LOOPBACK or host.startswith("127.")
