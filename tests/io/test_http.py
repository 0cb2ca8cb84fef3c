"""Loading from and saving to http(s):// URLs, against a local http.server on 127.0.0.1."""

from __future__ import annotations

import email.parser
import email.policy
import http.server
import json
import shutil
import threading
import urllib.parse

import numpy as np
import pytest
from io_test_helpers import (  # noqa: F401 - autouse fixtures
    GOLDEN_IO,
    assert_outputs_match,
    dense_model,
    fresh_layer_names,
    memory_counts,
    private_model_store,
    read_record,
    record_inputs,
)

import tidytensor as tf
from tidytensor.io import IOHandlerError, ModelFormatError, ModelTooLargeError


class Server:
    """Serves ``root`` over HTTP; records every request; accepts multipart uploads."""

    def __init__(self, root):
        self.root = root
        self.requests: list[tuple[str, str, dict]] = []
        self.uploads: list[dict] = []
        self.overrides: dict[str, tuple[int, bytes]] = {}
        self.upload_status = 200
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                outer.requests.append(("GET", self.path, dict(self.headers)))
                path = urllib.parse.urlsplit(self.path).path
                if path in outer.overrides:
                    status, body = outer.overrides[path]
                else:
                    file = outer.root / path.lstrip("/")
                    status, body = (
                        (200, file.read_bytes()) if file.is_file() else (404, b"not found")
                    )
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self._upload("POST")

            def do_PUT(self):
                self._upload("PUT")

            def _upload(self, method):
                n = int(self.headers["Content-Length"])
                body = self.rfile.read(n)
                outer.requests.append((method, self.path, dict(self.headers)))
                raw = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body
                message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
                parts = {}
                for part in message.iter_parts():
                    parts[part.get_param("name", header="content-disposition")] = {
                        "filename": part.get_filename(),
                        "content_type": part.get_content_type(),
                        "data": part.get_payload(decode=True),
                    }
                outer.uploads.append(parts)
                self.send_response(outer.upload_status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    shutil.copytree(GOLDEN_IO, root / "models")
    srv = Server(root)
    yield srv
    srv.close()


def test_load_over_http_with_query_string_and_progress(server):
    progress = []
    url = f"{server.url}/models/sharded_groups/model.json?token=abc&v=2"
    model = tf.io.load_layers_model(
        url, on_progress=progress.append, request_init={"headers": {"X-Auth": "s3cret"}}
    )
    record = read_record(GOLDEN_IO / "sharded_groups")
    xs = record_inputs(record)
    ys = model.predict(xs[0])
    assert_outputs_match(ys, record)
    tf.dispose([xs, ys])
    model.dispose()
    gets = [path for method, path, _ in server.requests if method == "GET"]
    manifest = json.loads((GOLDEN_IO / "sharded_groups" / "model.json").read_text())[
        "weightsManifest"
    ]
    shard_paths = [p for g in manifest for p in g["paths"]]
    assert gets == ["/models/sharded_groups/model.json?token=abc&v=2"] + [
        f"/models/sharded_groups/{p}?token=abc&v=2" for p in shard_paths
    ]
    assert all(headers.get("X-Auth") == "s3cret" for _, _, headers in server.requests)
    assert (
        progress == sorted(progress) and progress[-1] == 1.0 and len(progress) == len(shard_paths)
    )
    assert all(0 < p <= 1 for p in progress)


def test_weight_path_prefix(server, tmp_path):
    shutil.copytree(GOLDEN_IO / "dense", server.root / "elsewhere")
    (server.root / "only-json").mkdir()
    shutil.copy(GOLDEN_IO / "dense" / "model.json", server.root / "only-json" / "model.json")
    model = tf.io.load_layers_model(
        f"{server.url}/only-json/model.json", weight_path_prefix=f"{server.url}/elsewhere/"
    )
    model.dispose()
    assert server.requests[-1][1] == "/elsewhere/weights.bin"


def test_file_system_weight_path_prefix(tmp_path):
    shutil.copytree(GOLDEN_IO / "dense", tmp_path / "w")
    (tmp_path / "j").mkdir()
    shutil.copy(GOLDEN_IO / "dense" / "model.json", tmp_path / "j" / "model.json")
    model = tf.io.load_layers_model(str(tmp_path / "j"), weight_path_prefix=str(tmp_path / "w"))
    model.dispose()


def test_http_errors_leave_memory_unchanged(server):
    before = memory_counts()
    with pytest.raises(
        IOHandlerError, match=r"Request to .*/models/nope/model.json failed with status code 404"
    ):
        tf.io.load_layers_model(f"{server.url}/models/nope/model.json")
    (server.root / "models" / "dense" / "weights.bin").unlink()
    with pytest.raises(
        IOHandlerError, match=r"weights.bin \(model .*\) failed with status code 404"
    ):
        tf.io.load_layers_model(f"{server.url}/models/dense/model.json")
    server.overrides["/models/sharded/group1-shard2of7.bin"] = (200, b"\0" * 10)
    with pytest.raises(ModelFormatError, match="a weight file is missing or truncated"):
        tf.io.load_layers_model(f"{server.url}/models/sharded/model.json")
    server.overrides["/models/sharded/group1-shard2of7.bin"] = (200, b"\0" * 10_000_000)
    with pytest.raises(
        ModelFormatError, match="holds more than the 336 bytes its manifest entries describe"
    ):
        tf.io.load_layers_model(f"{server.url}/models/sharded/model.json")
    server.overrides["/models/sharded/model.json"] = (200, b"<html>nope</html>")
    with pytest.raises(ModelFormatError, match="is not valid JSON"):
        tf.io.load_layers_model(f"{server.url}/models/sharded/model.json")
    assert memory_counts() == before
    with pytest.raises(IOHandlerError, match="failed"):
        tf.io.load_layers_model("http://127.0.0.1:9/model.json", timeout=5)


def test_a_directory_url_says_the_url_must_point_to_model_json(tmp_path):
    shutil.copytree(GOLDEN_IO / "dense", tmp_path / "dense")

    class Listing(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listing)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/dense/"
    try:
        before = memory_counts()
        for given in (url, url.rstrip("/")):  # the listing, or a redirect to it
            with pytest.raises(ModelFormatError) as caught:
                tf.io.load_layers_model(given, timeout=30)
            message = str(caught.value)
            assert message.startswith(f"{given}: is not valid JSON"), message
            assert "The server sent an HTML page (Content-Type text/html" in message
            assert message.endswith(
                f"such as a directory listing: the URL must point to the model.json file "
                f"itself, e.g. {url}model.json"
            ), message
        assert memory_counts() == before
        model = tf.io.load_layers_model(f"{url}model.json", timeout=30)
        assert [w.shape for w in model.weights][0] is not None
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_http_weight_paths_must_stay_relative(server):
    obj = json.loads((GOLDEN_IO / "dense" / "model.json").read_text())
    obj["weightsManifest"][0]["paths"] = ["http://169.254.169.254/latest"]
    (server.root / "models" / "dense" / "model.json").write_text(json.dumps(obj))
    with pytest.raises(ModelFormatError, match="is absolute or a URL"):
        tf.io.load_layers_model(f"{server.url}/models/dense/model.json")
    obj["weightsManifest"][0]["paths"] = ["../../secret.bin"]
    (server.root / "models" / "dense" / "model.json").write_text(json.dumps(obj))
    with pytest.raises(ModelFormatError, match="escapes the model directory"):
        tf.io.load_layers_model(f"{server.url}/models/dense/model.json")
    assert [m for m, _, _ in server.requests] == ["GET", "GET"]  # no weight request was made


def test_http_max_bytes(server):
    with pytest.raises(
        ModelTooLargeError, match="needs 336 bytes, more than the limit of 100 bytes"
    ):
        tf.io.load_layers_model(f"{server.url}/models/sharded/model.json", max_bytes=100)


def test_save_multipart_post_like_tfjs(server):
    model = dense_model()
    result = tf.io.save_model(model, f"{server.url}/upload?key=1")
    (parts,) = server.uploads
    assert server.requests[-1][:2] == ("POST", "/upload?key=1")
    assert set(parts) == {"model.json", "model.weights.bin"}
    assert parts["model.json"]["filename"] == "model.json"
    assert parts["model.json"]["content_type"] == "application/json"
    assert parts["model.weights.bin"]["content_type"] == "application/octet-stream"
    model_json = json.loads(parts["model.json"]["data"])
    assert model_json["weightsManifest"][0]["paths"] == ["./model.weights.bin"]
    data = parts["model.weights.bin"]["data"]
    assert len(data) == result.model_artifacts_info.weight_data_bytes == 92
    assert result.responses[0].status == 200 and result.responses[0].body == b"ok"
    # What was uploaded loads back.
    loaded = tf.io.load_layers_model(
        tf.io.from_memory(
            {
                "modelTopology": model_json["modelTopology"],
                "weightSpecs": model_json["weightsManifest"][0]["weights"],
                "weightData": data,
            }
        )
    )
    x = tf.tensor(np.ones((1, 4), np.float32))
    np.testing.assert_array_equal(
        tf.tidy(lambda: loaded.predict(x).numpy()), tf.tidy(lambda: model.predict(x).numpy())
    )
    tf.dispose(x)
    loaded.dispose()
    model.dispose()


def test_save_with_method_and_headers_and_failure_status(server):
    model = dense_model()
    handler = tf.io.http(
        f"{server.url}/put-here", {"requestInit": {"method": "PUT", "headers": {"X-Key": "k"}}}
    )
    tf.io.save_model(model, handler)
    assert server.requests[-1][0] == "PUT" and server.requests[-1][2]["X-Key"] == "k"
    server.upload_status = 500
    with pytest.raises(
        IOHandlerError, match="BrowserHTTPRequest.save\\(\\) failed due to HTTP response status 500"
    ):
        tf.io.save_model(model, f"{server.url}/upload")
    with pytest.raises(
        IOHandlerError, match="request_init is expected to have no pre-existing body"
    ):
        tf.io.http(f"{server.url}/x", request_init={"body": b"x"})
    model.dispose()
