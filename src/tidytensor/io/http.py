"""Models over HTTP(S) (TF.js's ``io/http.ts``), with the standard library's ``urllib``.

Loading fetches ``model.json``, then each weight file at ``prefix + path + suffix``: the
prefix is ``weight_path_prefix`` or the model URL up to its last ``/``, the suffix the model
URL's query string (so signed URLs keep working). Weight paths must be relative and stay under
the model's directory. A response is never read past what the manifest needs, so a server
cannot make the loader allocate more than the weights it describes.

Saving POSTs ``multipart/form-data`` with the parts ``model.json`` (manifest path
``./model.weights.bin``) and ``model.weights.bin``, as TF.js does.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..js_strings import js_json
from .artifacts import (
    MAX_MODEL_JSON_BYTES,
    ModelArtifacts,
    SaveResult,
    get_model_artifacts_for_json,
    get_model_artifacts_info_for_json,
    get_model_json_for_model_artifacts,
    get_weight_specs,
    parse_model_json,
)
from .errors import IOHandlerError, ModelFormatError, ModelTooLargeError
from .file_system import check_relative_path
from .weights import minimum_byte_length, stored_byte_length

__all__ = ["HTTPRequest", "HTTPResponseInfo", "http", "is_http_scheme", "parse_url"]

_CHUNK = 1024 * 1024


def is_http_scheme(url: Any) -> bool:
    """Whether ``url`` starts with ``http://`` or ``https://``."""
    return isinstance(url, str) and url.lower().startswith(("http://", "https://"))


def _is_html(text: bytes, content_type: str) -> bool:
    """Whether a response body is an HTML page (by its Content-Type or its first bytes)."""
    if "html" in content_type.lower():
        return True
    head = bytes(text[:512]).lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def parse_url(url: str) -> tuple[str, str]:
    """``(prefix, suffix)``: the URL up to and including its last ``/``, and the query string
    after the last path segment (TF.js's ``parseUrl``).

    >>> parse_url('http://host/m/1/model.json?tfjs-format=file')
    ('http://host/m/1/', '?tfjs-format=file')
    """
    last_slash = url.rfind("/")
    last_query = url.rfind("?")
    suffix = url[last_query:] if last_query > last_slash else ""
    return url[:last_slash] + "/", suffix


@dataclass
class HTTPResponseInfo:
    """A response to a save request."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class HTTPRequest:
    """Loads from / saves to an HTTP(S) URL (TF.js's ``tf.io.http``).

    Args:
        path: the ``model.json`` URL (load) or the upload URL (save).
        request_init: ``{'method': ..., 'headers': {...}}`` used for every request (TF.js's
            ``requestInit``; a ``body`` is refused).
        weight_path_prefix: where the weight files are (default: the model URL's directory).
        on_progress: called with the fraction of weight files fetched (0..1, ending at 1).
        timeout: seconds to wait for each response.
        max_bytes: refuse manifests that need more weight bytes than this.
    """

    DEFAULT_METHOD = "POST"

    def __init__(
        self,
        path: str,
        request_init: dict[str, Any] | None = None,
        weight_path_prefix: str | None = None,
        on_progress: Callable[[float], Any] | None = None,
        timeout: float = 60.0,
        max_bytes: int | None = None,
        **_ignored: Any,
    ):
        if not isinstance(path, str) or not path:
            raise IOHandlerError("URL path for http must not be None or empty.")
        request_init = dict(request_init or {})
        if request_init.get("body") is not None:
            raise IOHandlerError(
                "request_init is expected to have no pre-existing body, but has one."
            )
        self.path = path
        self.request_init = request_init
        self.weight_path_prefix = weight_path_prefix
        self.on_progress = on_progress
        self.timeout = timeout
        self.max_bytes = max_bytes

    def __repr__(self) -> str:
        return f"HTTPRequest({self.path!r})"

    def _headers(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in (self.request_init.get("headers") or {}).items()}

    def _open(
        self, url: str, method: str = "GET", data: bytes | None = None, headers: Any = None
    ) -> Any:
        import urllib.request  # here, not at import: with http and ssl, 50 ms of import time

        request = urllib.request.Request(
            url, data=data, method=method, headers=headers or self._headers()
        )
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)  # noqa: S310 - http(s) only
        except urllib.error.HTTPError as exc:
            return exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise IOHandlerError(f"Request to {url} failed: {reason}") from None

    # ------------------------------------------------------------------- loading
    def load(self) -> ModelArtifacts:
        model_json = self._load_model_json()
        manifest = model_json.get("weightsManifest")
        if manifest is None:
            artifacts = get_model_artifacts_for_json(model_json)
            artifacts.source = self.path
            return artifacts
        urls = self.weight_urls(manifest)
        need = [sum(minimum_byte_length(s) for s in g["weights"]) for g in manifest]
        exact = [all(stored_byte_length(s) is not None for s in g["weights"]) for g in manifest]
        if self.max_bytes is not None and sum(need) > self.max_bytes:
            raise ModelTooLargeError(
                f"{self.path}: the weights manifest needs {sum(need)} bytes, more than the limit "
                f"of {self.max_bytes} bytes (max_bytes)"
            )
        n_files = sum(len(u) for u in urls)
        fetched = 0
        buffers: list[bytearray] = []
        budget = self.max_bytes
        for g, group_urls in enumerate(urls):
            buf = bytearray()
            for url in group_urls:
                cap = need[g] - len(buf) + 1 if exact[g] else None
                if budget is not None:
                    cap = budget + 1 if cap is None else min(cap, budget + 1)
                body = self._fetch_weights(url, cap)
                buf += body
                if budget is not None:
                    budget -= len(body)
                    if budget < 0:
                        raise ModelTooLargeError(
                            f"{self.path}: the weight files are larger than the limit of "
                            f"{self.max_bytes} bytes (max_bytes)"
                        )
                fetched += 1
                if self.on_progress is not None and fetched < n_files:
                    self.on_progress(fetched / n_files)
            if len(buf) < need[g]:
                raise ModelFormatError(
                    f"{self.path}: weight group {g + 1} ({', '.join(group_urls)}) holds "
                    f"{len(buf)} bytes, but its manifest entries need "
                    f"{'at least ' if not exact[g] else ''}{need[g]} bytes: a weight file is "
                    "missing or truncated"
                )
            if exact[g] and len(buf) != need[g]:
                raise ModelFormatError(
                    f"{self.path}: weight group {g + 1} ({', '.join(group_urls)}) holds more "
                    f"than the {need[g]} bytes its manifest entries describe: the manifest and "
                    "the weight files disagree"
                )
            buffers.append(buf)
        if self.on_progress is not None:
            self.on_progress(1.0)
        artifacts = get_model_artifacts_for_json(model_json, get_weight_specs(manifest), buffers)
        artifacts.source = self.path
        artifacts.group_sizes = [len(b) for b in buffers]
        return artifacts

    def _load_model_json(self) -> dict[str, Any]:
        response = self._open(self.path, "GET")
        with response:
            status = getattr(response, "status", None) or response.getcode()
            if not 200 <= status < 300:
                raise IOHandlerError(
                    f"Request to {self.path} failed with status code {status}. Please verify this "
                    "URL points to the model JSON of the model to load."
                )
            text = _read_capped(response, MAX_MODEL_JSON_BYTES + 1, self.path)
            headers = getattr(response, "headers", None)
            content_type = (headers.get("Content-Type") if headers is not None else None) or ""
        if len(text) > MAX_MODEL_JSON_BYTES:
            raise ModelTooLargeError(
                f"{self.path}: the model JSON is larger than the {MAX_MODEL_JSON_BYTES}-byte limit"
            )
        try:
            return parse_model_json(text, self.path)
        except ModelFormatError as exc:
            if "is not valid JSON" not in str(exc) or not _is_html(text, content_type):
                raise
            raise ModelFormatError(f"{exc}. {self._html_hint(content_type)}") from None

    def _html_hint(self, content_type: str) -> str:
        """What to do when the URL answered with an HTML page instead of a ``model.json``."""
        sent = "an HTML page" + (f" (Content-Type {content_type})" if content_type else "")
        parts = urllib.parse.urlsplit(self.path)
        if parts.path.rsplit("/", 1)[-1].endswith(".json"):
            return f"The server sent {sent}: the URL must point to the model's model.json file"
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        suggested = urllib.parse.urlunsplit(parts._replace(path=path + "model.json"))
        return (
            f"The server sent {sent}, such as a directory listing: the URL must point to the "
            f"model.json file itself, e.g. {suggested}"
        )

    def weight_urls(self, manifest: list[dict[str, Any]]) -> list[list[str]]:
        """Each group's weight URLs (prefix + path + the model URL's query string)."""
        prefix, suffix = parse_url(self.path)
        if self.weight_path_prefix:
            prefix = self.weight_path_prefix
        out = []
        for group in manifest:
            for p in group["paths"]:
                check_relative_path(p, self.path)  # relative, no scheme, no climbing out
            out.append([prefix + p + suffix for p in group["paths"]])
        return out

    def _fetch_weights(self, url: str, cap: int | None) -> bytes:
        response = self._open(url, "GET")
        with response:
            status = getattr(response, "status", None) or response.getcode()
            if not 200 <= status < 300:
                raise IOHandlerError(
                    f"Request for weight file {url} (model {self.path}) failed with status code "
                    f"{status}"
                )
            return _read_capped(response, cap, url)

    # -------------------------------------------------------------------- saving
    def save(self, artifacts: ModelArtifacts) -> SaveResult:
        """POSTs ``model.json`` and ``model.weights.bin`` as ``multipart/form-data``."""
        if isinstance(artifacts.model_topology, (bytes, bytearray, memoryview)):
            raise IOHandlerError(
                "BrowserHTTPRequest.save() does not support saving model topology in binary "
                "formats yet."
            )
        manifest = [{"paths": ["./model.weights.bin"], "weights": artifacts.weight_specs}]
        model_json = get_model_json_for_model_artifacts(artifacts, manifest)
        parts = [
            ("model.json", "model.json", "application/json", js_json(model_json).encode("utf-8"))
        ]
        if artifacts.weight_data is not None:
            data = artifacts.weight_data
            if isinstance(data, (list, tuple)):
                data = b"".join(bytes(memoryview(b)) for b in data)
            parts.append(
                ("model.weights.bin", "model.weights.bin", "application/octet-stream", bytes(data))
            )
        body, content_type = encode_multipart(parts)
        headers = self._headers()
        headers["Content-Type"] = content_type
        method = str(self.request_init.get("method") or self.DEFAULT_METHOD).upper()
        response = self._open(self.path, method, body, headers)
        with response:
            status = getattr(response, "status", None) or response.getcode()
            info = HTTPResponseInfo(status, dict(response.headers.items()), response.read(_CHUNK))
        if not info.ok:
            raise IOHandlerError(
                f"BrowserHTTPRequest.save() failed due to HTTP response status {status}. "
                f"(URL {self.path})"
            )
        return SaveResult(get_model_artifacts_info_for_json(artifacts), responses=[info])


def _read_capped(response: Any, cap: int | None, url: str) -> bytes:
    """The body, reading at most ``cap`` bytes."""
    out = bytearray()
    try:
        while cap is None or len(out) < cap:
            chunk = response.read(_CHUNK if cap is None else min(_CHUNK, cap - len(out)))
            if not chunk:
                break
            out += chunk
    except (OSError, ValueError) as exc:
        raise IOHandlerError(f"Reading {url} failed: {exc}") from None
    return bytes(out)


def encode_multipart(parts: list[tuple[str, str, str, bytes]]) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body from ``(field, filename, content type, data)`` parts."""
    boundary = f"----tidytensor{uuid.uuid4().hex}"
    out = bytearray()
    for name, filename, content_type, data in parts:
        out += f"--{boundary}\r\n".encode()
        out += (
            f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        out += data
        out += b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def http(path: str, load_options: dict[str, Any] | None = None, **options: Any) -> HTTPRequest:
    """An HTTP(S) handler (``tf.io.http(path, {requestInit, weightPathPrefix, onProgress})``;
    options in snake_case, as a dict or keywords)."""
    opts = {_snake(k): v for k, v in (load_options or {}).items()}
    opts.update(options)
    return HTTPRequest(path, **opts)


def _snake(key: str) -> str:
    out = []
    for ch in key:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out)


def browser_http_request(
    path: str, load_options: dict[str, Any] | None = None, **options: Any
) -> HTTPRequest:
    """Deprecated alias of :func:`http`."""
    return http(path, load_options, **options)
