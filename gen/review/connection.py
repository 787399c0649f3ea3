"""How gen talks to a Label Studio server: the official SDK client, configured safely.

The API key is read from an environment variable only (never an option, never
printed, never stored in the run folder). TLS certificates are verified, against
the system's authorities or a `--ca-bundle` file for a private one. Every request
has a timeout, and the SDK retries refused connections, 5xx and 429 answers with
backoff. Failures become one line naming the server and what to do.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
import pydantic

from gen.core.errors import GenError, UsageError

if TYPE_CHECKING:
    from label_studio_sdk import LabelStudio

DEFAULT_URL = "http://localhost:8080"
#: The variable the Label Studio SDK itself reads.
API_KEY_ENV = "LABEL_STUDIO_API_KEY"


@dataclass(frozen=True)
class Connection:
    url: str = DEFAULT_URL
    api_key_env: str = API_KEY_ENV
    #: Seconds for one request.
    timeout: float = 30.0
    #: Retries of a refused connection, 5xx or 429 answer.
    retries: int = 2
    #: PEM file of the authority that signed the server's certificate.
    ca_bundle: Path | None = None

    @property
    def base_url(self) -> str:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"--url {self.url!r} is not a server address; expected e.g. {DEFAULT_URL}"
            )
        return self.url.rstrip("/")

    def _verify(self) -> ssl.SSLContext | bool:
        if self.ca_bundle is None:
            return True
        try:
            return ssl.create_default_context(cafile=str(self.ca_bundle))
        except (OSError, ssl.SSLError) as exc:
            raise UsageError(
                f"--ca-bundle {self.ca_bundle}: cannot load it ({exc}); expected a PEM file"
            ) from None

    def client(self) -> LabelStudio:
        """An SDK client; UsageError when the URL or the API key variable is unusable."""
        from label_studio_sdk import LabelStudio

        base_url = self.base_url
        api_key = os.environ.get(self.api_key_env, "").strip()
        if not api_key:
            raise UsageError(
                f"no API key: set the environment variable {self.api_key_env} to your Label "
                "Studio access token (Account & Settings)"
            )
        http = httpx.Client(timeout=self.timeout, verify=self._verify(), follow_redirects=True)
        return LabelStudio(
            base_url=base_url,
            api_key=api_key,
            timeout=self.timeout,
            max_retries=self.retries,
            httpx_client=http,
        )


def _body(body: object) -> str:
    text = body.get("detail") if isinstance(body, dict) else body
    text = " ".join(str(text or "").split())
    return text[:160] + ("..." if len(text) > 160 else "")


@contextmanager
def api_errors(connection: Connection, doing: str) -> Iterator[None]:
    """Turn what the SDK and httpx raise into one GenError line about `doing`."""
    from label_studio_sdk.core.api_error import ApiError

    url = connection.url
    try:
        yield
    except ApiError as exc:
        status = exc.status_code
        if status in (401, 403):
            raise UsageError(
                f"Label Studio at {url} refused the API key in {connection.api_key_env} "
                f"(HTTP {status}) while {doing}; expected a valid access token"
            ) from None
        if status == 404:
            raise UsageError(
                f"{url} answered 404 while {doing}; expected the address of a Label Studio "
                f"server ({_body(exc.body)})"
            ) from None
        raise GenError(
            f"Label Studio at {url}: {doing} failed with HTTP {status} ({_body(exc.body)})"
        ) from None
    except httpx.TimeoutException:
        raise GenError(
            f"no answer from {url} within {connection.timeout:g} s while {doing}; "
            "retry later or raise --timeout"
        ) from None
    except httpx.ConnectError as exc:
        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
            raise GenError(
                f"the TLS certificate of {url} is not trusted ({exc}); pass the authority's "
                "certificate with --ca-bundle FILE"
            ) from None
        raise GenError(
            f"cannot connect to Label Studio at {url} ({exc}) after {connection.retries} "
            "retries; is the server running and the --url right?"
        ) from None
    except httpx.HTTPError as exc:
        raise GenError(f"talking to {url} failed while {doing}: {exc}") from None
    except (pydantic.ValidationError, ValueError) as exc:
        # JSON that is not Label Studio's (another server, a proxy's error page).
        first = str(exc).splitlines()[0]
        raise GenError(
            f"{url} did not answer like a Label Studio server while {doing} ({first})"
        ) from None
