"""Marketplace entries of source `archive`: a zip over HTTPS, checked against its SHA-256,
unpacked by skilltool with every member checked first, pinned in the lockfile by digest.
The download itself is served by the test (archive.get), so nothing leaves the machine;
the last test runs archive.get against a TLS server on the loopback."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from skilltool import archive
from skilltool.checkouts import SourceError
from tests.gitrepos import Repo, home_state, isolate_git, plugin_files
from tests.helpers import run
from tests.test_sources import links, lock

URL = "https://plugins.example.com/kit.zip"


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """What each URL serves; a URL not in it cannot be reached."""
    found: dict[str, bytes] = {}

    def get(url: str, said: str) -> bytes:
        if url not in found:
            raise SourceError(f"{said}: cannot be downloaded (unreachable); check the URL")
        return found[url]

    monkeypatch.setattr(archive, "get", get)
    return found


def zipped(files: dict[str, str], links: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as made:
        for path, text in files.items():
            made.writestr(path, text)
        for path, target in (links or {}).items():
            info = zipfile.ZipInfo(path)
            info.external_attr = 0o120777 << 16
            made.writestr(info, target)
    return out.getvalue()


def plugin(skills: tuple[str, ...], top: str = "") -> dict[str, str]:
    return {f"{top}{k}": str(v) for k, v in plugin_files("kit", skills).items()}


def market(tmp_path: Path, source: dict[str, object]) -> Repo:
    made = Repo(tmp_path, "market")
    entry = {"name": "kit", "source": {"source": "archive", **source}}
    made.commit(
        {
            ".claude-plugin/marketplace.json": json.dumps(
                {"name": "market", "owner": {"name": "T"}, "plugins": [entry]}
            )
        }
    )
    made.push()
    return made


def test_a_zip_is_fetched_pinned_updated_and_synced_exactly(
    home: Path, tmp_path: Path, served: dict[str, bytes]
) -> None:
    served[URL] = zipped(plugin(("alpha",), top="kit-1.0/"))  # one wrapping folder: taken off
    first = hashlib.sha256(served[URL]).hexdigest()
    shop = market(tmp_path, {"url": URL})
    assert run("plugins", "add", shop.url).code == 0
    added = run("plugins", "add", "kit@market")
    assert added.code == 0, added.stderr
    assert f"added     kit {URL} @ {first[:12]}" in added.stdout
    assert "alpha" in set(links(home))
    assert lock(home)["kit"]["archive"] == URL and lock(home)["kit"]["sha256"] == first
    status = run("plugins", "status")
    assert f"source    kit {URL} sha256 {first[:12]}" in status.stdout
    # the server serves other bytes: sync keeps what is pinned, update moves to them
    served[URL] = zipped(plugin(("alpha", "beta")))
    assert run("plugins", "sync").code == 0 and "beta" not in set(links(home))
    assert run("plugins", "update", "--check").code == 1
    assert run("plugins", "update").code == 0
    assert "beta" in set(links(home))
    second = hashlib.sha256(served[URL]).hexdigest()
    assert lock(home)["kit"]["sha256"] == second
    # another home from this lockfile, where the server has changed again: refused
    served[URL] = zipped(plugin(("evil",)))
    other = tmp_path / "other"
    (other / ".local/share/skilltool").mkdir(parents=True)
    lockfile = home / ".local/share/skilltool/plugins.lock"
    (other / ".local/share/skilltool/plugins.lock").write_bytes(lockfile.read_bytes())
    synced = run("plugins", "sync", "--home", other)
    assert synced.code == 1 and "not the" in synced.stderr and "pinned" in synced.stderr
    assert len(synced.stderr.splitlines()) == 1
    assert not (other / ".local/share/skilltool/sources/kit").exists()
    assert run("plugins", "remove", "kit").code == 0
    assert not (home / ".local/share/skilltool/sources/kit").exists()


def test_the_entrys_digest_is_checked(home: Path, tmp_path: Path, served: dict[str, bytes]) -> None:
    served[URL] = zipped(plugin(("alpha",)))
    shop = market(tmp_path, {"url": URL, "sha256": "0" * 64})
    run("plugins", "add", shop.url)
    before = home_state(home)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and "pinned; nothing was changed" in added.stderr
    assert home_state(home) == before


@pytest.mark.parametrize(
    ("files", "links", "said"),
    [
        ({"../escaped": "x"}, {}, "a path outside it"),
        ({"/tmp/skilltool-escaped": "x"}, {}, "a path outside it"),
        ({"a\\..\\..\\escaped": "x"}, {}, "a path outside it"),
        ({}, {"skills": "/etc"}, "a link"),
        ({"skills": "x", "skills/a/SKILL.md": "y"}, {}, "both as a file and a folder"),
    ],
)
def test_a_hostile_zip_is_refused_and_nothing_written(
    home: Path,
    tmp_path: Path,
    served: dict[str, bytes],
    files: dict[str, str],
    links: dict[str, str],
    said: str,
) -> None:
    served[URL] = zipped({**plugin(("alpha",)), **files}, links)
    shop = market(tmp_path, {"url": URL})
    run("plugins", "add", shop.url)
    before = home_state(home)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and said in added.stderr, added.stderr
    assert "refused, nothing was written" in added.stderr
    assert len(added.stderr.splitlines()) == 1
    assert home_state(home) == before and not Path("/tmp/skilltool-escaped").exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://plugins.example.com/kit.zip",
        "https://127.0.0.1/kit.zip",
        "https://localhost/kit.zip",
        "https://169.254.169.254/latest",
        "https://[::1]/kit.zip",
        "https://metadata.google.internal/kit.zip",
        "https://user:secret@plugins.example.com/kit.zip",
    ],
)
def test_a_url_claude_code_refuses_is_refused(
    home: Path, tmp_path: Path, served: dict[str, bytes], url: str
) -> None:
    served[url] = zipped(plugin(("alpha",)))
    shop = market(tmp_path, {"url": url})
    run("plugins", "add", shop.url)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and "source.url: must be an https:// URL" in added.stderr
    assert "secret" not in added.stderr
    assert len(added.stderr.splitlines()) == 1


def test_a_server_that_cannot_be_reached_is_one_line(
    home: Path, tmp_path: Path, served: dict[str, bytes]
) -> None:
    shop = market(tmp_path, {"url": URL})
    run("plugins", "add", shop.url)
    before = home_state(home)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and "cannot be downloaded" in added.stderr
    assert len(added.stderr.splitlines()) == 1 and home_state(home) == before


def test_a_server_of_a_zip_waits_for_approval(
    home: Path, tmp_path: Path, served: dict[str, bytes]
) -> None:
    (home / ".codex").mkdir()
    files = plugin(("alpha",))
    files[".mcp.json"] = json.dumps({"mcpServers": {"serve": {"command": "kit-server"}}})
    served[URL] = zipped(files)
    shop = market(tmp_path, {"url": URL})
    run("plugins", "add", shop.url)
    added = run("plugins", "add", "kit@market")
    assert added.code == 0, added.stderr
    assert any(ln.startswith("held      kit:") for ln in added.lines)
    assert run("plugins", "approve", "kit", "--yes").code == 0
    assert "kit-server" in (home / ".codex/config.toml").read_text()


class _Served:
    """An HTTPS server on the loopback, with a certificate made for the test: what each path
    serves (bytes), or where it redirects (a str)."""

    def __init__(self, folder: Path, paths: dict[str, bytes | str]) -> None:
        import http.server
        import ssl
        import subprocess
        import threading

        key, self.cert = folder / "key.pem", folder / "cert.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out",
             str(self.cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
             "subjectAltName=IP:127.0.0.1"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                found = paths.get(self.path)
                if isinstance(found, str):
                    self.send_response(302)
                    self.send_header("Location", found)
                    self.end_headers()
                    return
                self.send_response(200 if found is not None else 404)
                self.send_header("Content-Length", str(len(found or b"")))
                self.end_headers()
                self.wfile.write(found or b"")

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_the_download_is_over_https_alone_from_a_certificate_the_machine_trusts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """archive.get as it runs, against a real TLS server (the entry's own URL check, which
    refuses the loopback as Claude Code does, is the one step left out): the bytes served;
    a redirect to plain http refused; a certificate the machine does not trust refused; a
    body over the limit refused."""
    data = zipped(plugin(("alpha",)))
    served = _Served(tmp_path, {"/kit.zip": data, "/plain": "http://example.com/kit.zip"})
    try:
        monkeypatch.setenv("SSL_CERT_FILE", str(served.cert))
        assert archive.get(f"{served.url}/kit.zip", "market: kit") == data
        with pytest.raises(SourceError, match=r"^market: kit: source.url: must be an https://"):
            archive.get(f"{served.url}/plain", "market: kit")
        with pytest.raises(SourceError, match=r"cannot be downloaded \(.*\); check the URL"):
            archive.get(f"{served.url}/missing.zip", "market: kit")
        monkeypatch.setattr(archive.unpacked, "MOST_BYTES", len(data) - 1)
        with pytest.raises(SourceError, match="is larger than"):
            archive.get(f"{served.url}/kit.zip", "market: kit")
        monkeypatch.undo()
        (tmp_path / "other").mkdir()
        other = _Served(tmp_path / "other", {"/kit.zip": data})
        monkeypatch.setenv("SSL_CERT_FILE", str(served.cert))  # not the other server's
        try:
            with pytest.raises(SourceError, match="CERTIFICATE_VERIFY_FAILED"):
                archive.get(f"{other.url}/kit.zip", "market: kit")
        finally:
            other.server.shutdown()
    finally:
        served.server.shutdown()
