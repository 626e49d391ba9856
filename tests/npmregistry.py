"""A tiny npm registry on the loopback for the npm source tests: a packument per package and
the tarballs the test builds, over plain http on 127.0.0.1. npm is pointed at it as the
user's own registry, with a cache and a config of the test's own."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest


def tarball(files: Mapping[str, str | bytes], top: str = "package") -> bytes:
    """A gzipped tar as `npm pack` makes it: every file under `top/`."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for path, text in files.items():
            data = text.encode() if isinstance(text, str) else text
            info = tarfile.TarInfo(f"{top}/{path}" if top else path)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def hostile(kind: str) -> bytes:
    """A package tarball with one member that must never be written."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        good = b'{"name": "bad", "version": "1.0.0"}'
        info = tarfile.TarInfo("package/package.json")
        info.size = len(good)
        archive.addfile(info, io.BytesIO(good))
        if kind in ("dotdot", "absolute"):
            name = "package/../../escaped" if kind == "dotdot" else "/tmp/skilltool-escaped"
            info = tarfile.TarInfo(name)
            info.size = 3
            archive.addfile(info, io.BytesIO(b"bad"))
        elif kind == "symlink":
            info = tarfile.TarInfo("package/skills")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc"
            archive.addfile(info)
        elif kind == "hardlink":
            info = tarfile.TarInfo("package/passwd")
            info.type, info.linkname = tarfile.LNKTYPE, "../../../etc/passwd"
            archive.addfile(info)
        elif kind == "device":
            info = tarfile.TarInfo("package/null")
            info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            archive.addfile(info)
    return out.getvalue()


def integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class Registry:
    """Packages by name -> version -> tarball bytes; `down` makes every request fail."""

    def __init__(self) -> None:
        self.packages: dict[str, dict[str, bytes]] = {}
        self.latest: dict[str, str] = {}
        self.down = False
        self.requests: list[str] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                registry.requests.append(self.path)
                body = None if registry.down else registry.answer(unquote(self.path))
                if body is None:
                    self.send_response(503 if registry.down else 404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def publish(self, name: str, version: str, data: bytes, latest: bool = True) -> None:
        self.packages.setdefault(name, {})[version] = data
        if latest:
            self.latest[name] = version

    def answer(self, path: str) -> bytes | None:
        path = path.lstrip("/")
        if "/-/" in path:
            name, _, file = path.partition("/-/")
            for version, data in self.packages.get(name, {}).items():
                if file == f"{name.rsplit('/', 1)[-1]}-{version}.tgz":
                    return data
            return None
        versions = self.packages.get(path)
        if versions is None:
            return None
        short = path.rsplit("/", 1)[-1]
        packument = {
            "name": path,
            "dist-tags": {"latest": self.latest[path]},
            "versions": {
                version: {
                    "name": path,
                    "version": version,
                    "dist": {
                        "tarball": f"{self.url}{path}/-/{short}-{version}.tgz",
                        "integrity": integrity(data),
                        "shasum": hashlib.sha1(data).hexdigest(),  # npm's own field
                    },
                }
                for version, data in versions.items()
            },
        }
        return json.dumps(packument).encode()


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    """The loopback registry, as the user's own npm registry; npm's cache and config the
    test's (each run of npm starts with an empty cache, so a tarball changed is seen)."""
    found = Registry()
    config = tmp_path / "npmrc"
    config.write_text("")
    monkeypatch.setenv("npm_config_userconfig", str(config))
    monkeypatch.setenv("npm_config_globalconfig", str(tmp_path / "npmrc-global"))
    monkeypatch.setenv("npm_config_registry", found.url)
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_prefer_online", "true")
    monkeypatch.setenv("npm_config_audit", "false")
    monkeypatch.setenv("npm_config_fund", "false")
    yield found
    found.server.shutdown()
    found.server.server_close()
