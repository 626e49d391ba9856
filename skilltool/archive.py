"""A marketplace entry of source `archive`: a zip over HTTPS, downloaded by skilltool,
checked against its SHA-256 digest and unpacked by the rules of unpacked.py (SPEC §9, §14).

As Claude Code 2.1.332 takes it: `url` an https URL on a host that is not a loopback,
link-local or cloud-metadata one; `sha256` optional, checked on every download; the plugin
at the top of the zip or in one folder wrapping everything, which is taken off. A source's
directory holds `a-<digest>/` per archive fetched, with the zip as `archive.zip` beside the
tree `<name>/`, and `current`, as a git source's does.
"""

from __future__ import annotations

# hashlib and ipaddress are imported where they are used: every run that reads a lockfile
# imports this module for its checks of the fields
import re
import stat
from pathlib import Path
from urllib.parse import urlsplit

from skilltool import unpacked
from skilltool.checkouts import SourceError
from skilltool.unpacked import Member

DIGEST = re.compile(r"[0-9a-fA-F]{64}")
CHECKOUT = re.compile(r"a-([0-9a-f]{40})")
KEPT = "archive.zip"
# hosts Claude Code refuses an archive from, besides loopback and link-local addresses
METADATA_HOSTS = ("metadata.google.internal", "metadata", "instance-data")
WHAT = "the archive"


def check_url(url: object, said: str) -> str:
    """The entry's `url`, or a SourceError naming the field as Claude Code refuses it."""
    why = (
        "must be an https:// URL of a zip, not on a loopback, link-local or cloud-metadata "
        "host (as Claude Code takes it); fix the entry"
    )
    if not isinstance(url, str):
        raise SourceError(f"{said}: source.url: {why}")
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        raise SourceError(f"{said}: source.url: {why}") from None
    if parts.scheme != "https" or not host or parts.password is not None:
        raise SourceError(f"{said}: source.url: {why}")
    local = host == "localhost" or host.endswith(".localhost") or host in METADATA_HOSTS
    local = local or (host.startswith("instance-data.") and host.endswith(".compute.internal"))
    import ipaddress

    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if address is not None:
        local = local or address.is_loopback or address.is_link_local or address.is_unspecified
        mapped = getattr(address, "ipv4_mapped", None)
        local = local or (mapped is not None and (mapped.is_loopback or mapped.is_link_local))
    if local:
        raise SourceError(f"{said}: source.url: {why}")
    return url


def check_digest(value: object, said: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not DIGEST.fullmatch(value):
        raise SourceError(f"{said}: source.sha256: must be 64 hex digits (a SHA-256); fix it")
    return value.lower()


def get(url: str, said: str) -> bytes:
    """The bytes at `url`, over HTTPS alone (a redirect elsewhere is refused), at most
    unpacked.MOST_BYTES of them; the user's proxy settings apply."""
    import urllib.error
    import urllib.request

    class HttpsOnly(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
            check_url(newurl, said)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    opener = urllib.request.build_opener(HttpsOnly)
    try:
        with opener.open(url, timeout=60) as answer:
            data: bytes = answer.read(unpacked.MOST_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise SourceError(f"{said}: cannot be downloaded ({reason}); check the URL") from None
    if len(data) > unpacked.MOST_BYTES:
        raise SourceError(f"{said}: {WHAT} is larger than {unpacked.MOST_BYTES >> 20} MiB")
    return data


def digest_of(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def checkout_name(digest: str) -> str:
    return f"a-{digest[:40]}"


def members(data: bytes, said: str) -> list[Member]:
    """Every file and folder of a zip, checked (unpacked.py) before anything is written; one
    folder holding everything is taken off, as Claude Code takes it off."""
    import io
    import zipfile

    found: list[tuple[list[str], bool, bool, bytes]] = []
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                parts = unpacked.parts_of(info.filename, said, WHAT)
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                folder = info.is_dir()
                if kind and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    raise unpacked.not_a_file(info.filename, stat.S_ISLNK(mode), said, WHAT)
                if not parts:
                    continue
                content = b""
                if not folder:
                    total += info.file_size
                    unpacked.over_budget(total, said, WHAT)
                    content = archive.read(info)
                found.append((parts, folder, bool(mode & 0o111), content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as err:
        raise SourceError(f"{said}: {WHAT} is not a zip ({err})") from None
    tops = {parts[0] for parts, *_ in found}
    wrapped = tops != {".claude-plugin"} and len(tops) == 1
    wrapped = wrapped and all(len(p) > 1 or f for p, f, *_ in found)
    items = []
    for parts, folder, executable, content in found:
        path = "/".join(parts[1:] if wrapped else parts)
        if path:
            items.append(Member(path, folder, executable, content))
    return unpacked.collected(items, said, WHAT)


def check_out(place: Path, name: str, url: str, pinned: str | None, said: str) -> tuple[str, str]:
    """The zip at `url` downloaded and written to `place/a-<digest>/<name>/` (not yet in
    use): that folder's name and the zip's SHA-256. `pinned`, the digest the entry or the
    lockfile gives, must be the zip's, or nothing is written."""
    check_url(url, said)
    data = get(url, said)
    digest = digest_of(data)
    if pinned is not None and pinned != digest:
        raise SourceError(
            f"{said}: {WHAT} downloaded has SHA-256 {digest[:16]}..., not the {pinned[:16]}... "
            "pinned; nothing was changed; check it, then remove the source and add it again "
            "to trust the new bytes"
        )
    items = members(data, said)
    folder = checkout_name(digest)
    unpacked.write_checkout(place, folder, name, items, KEPT, data)
    return folder, digest


def changes(kept: Path, there: Path) -> list[str]:
    """The paths of a checkout that differ from the zip it was written from; what cannot be
    checked counts as changed, so that it is kept."""
    try:
        items = members(kept.read_bytes(), str(kept))
    except (OSError, SourceError) as err:
        return [f"cannot be checked ({err})"]
    return unpacked.differences(items, there)
