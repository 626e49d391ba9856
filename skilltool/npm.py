"""The user's npm, run so that nothing of a fetched package runs, and the checkouts written
from its tarball (a marketplace entry of source `npm`, SPEC §9 and §14).

npm resolves the version (`npm view`, as Claude Code 2.1.332 asks it) and downloads the
tarball (`npm pack --ignore-scripts`: the user's registry, token and proxy; no script of the
package runs, none is installed). skilltool checks the tarball's digest against the one
pinned, and writes the package's files itself: regular files and folders only, each inside
the package, or nothing at all. A source's directory holds `n-<digest>/` per package fetched,
with the tarball as `package.tgz` beside the tree `<name>/`, and `current`, as a git
source's does.
"""

from __future__ import annotations

# what only a fetch needs (tarfile, tempfile, base64, hashlib) is imported where it is used:
# every run that reads a lockfile imports this module for its checks of the fields
import json
import os
import re
import subprocess
from pathlib import Path

from skilltool import semver, unpacked
from skilltool.checkouts import SourceError
from skilltool.record import NamedTuple
from skilltool.unpacked import Member

# a package name npm publishes (`validate-npm-package-name` for a new package): a path, a
# URL or a git spec is refused, since npm would fetch it otherwise than from a registry
PACKAGE = re.compile(r"(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*")
TAG = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")  # a dist-tag (`latest`, `next`)
INTEGRITY = re.compile(r"sha512-[A-Za-z0-9+/]{86}==")
TARBALL = "package.tgz"
CHECKOUT = re.compile(r"n-([0-9a-f]{40})")
VIEW_FIELDS = ("name", "version", "dist.tarball", "dist.integrity", "dist-tags.latest")


class Resolved(NamedTuple):
    """A version of a package, as its registry lists it."""

    version: str
    integrity: str | None  # sha512-<base64>; None when the registry gives none


def valid_package(name: object) -> bool:
    return isinstance(name, str) and len(name) <= 214 and PACKAGE.fullmatch(name) is not None


def valid_version(text: object) -> bool:
    """A version, a range or a dist-tag, as `npm view` takes them."""
    return isinstance(text, str) and (semver.valid_range(text) or TAG.fullmatch(text) is not None)


def _npm(args: list[str], registry: str | None, said: str, package: str = "") -> bytes:
    command = ["npm", *args]
    if registry is not None:  # and for the package's scope, which a user's .npmrc may map
        scope = package.partition("/")[0] if package.startswith("@") else ""
        command[2:2] = [
            f"--registry={registry}",
            *([f"--{scope}:registry={registry}"] * bool(scope)),
        ]
    env = dict(os.environ)
    env["npm_config_ignore_scripts"] = "true"  # and the flag: nothing of a package runs
    env.setdefault("npm_config_update_notifier", "false")
    try:
        done = subprocess.run(
            command, capture_output=True, env=env, stdin=subprocess.DEVNULL, check=False
        )
    except OSError as err:
        raise SourceError(
            f"{said}: cannot run npm ({err.strerror}); install npm (it comes with Node.js) to "
            "fetch a plugin from an npm registry"
        ) from err
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode(errors="replace").splitlines() if ln.strip()]
        errors = [ln.removeprefix("npm error ").strip() for ln in lines if ln.startswith("npm ")]
        plain = ("A complete log", "code ", "syscall ", "errno ", "path ", "Log files", "signal ")
        why = next((e for e in errors if e and not e.startswith(plain)), "")
        raise SourceError(f"{said}: npm failed: {why or (lines or ['no reason given'])[-1]}")
    return done.stdout


def resolve(package: str, wanted: str | None, registry: str | None, said: str) -> Resolved:
    """The version of `package` that `wanted` (a version, range or tag; None: `latest`) names
    on the registry now: its `latest` when in range, else the highest in range, as Claude
    Code picks it."""
    out = _npm(
        ["view", "--json", "--", f"{package}@{wanted or 'latest'}", *VIEW_FIELDS],
        registry,
        said,
        package,
    )
    try:
        data = json.loads(out or b"null")
    except ValueError:
        raise SourceError(f"{said}: npm view gave no JSON; check the registry") from None
    found = [d for d in (data if isinstance(data, list) else [data]) if isinstance(d, dict)]
    versions = {d["version"]: d for d in found if isinstance(d.get("version"), str)}
    if not versions:
        raise SourceError(
            f"{said}: no version of {package} matches {wanted or 'latest'} on the registry; "
            "check the entry's version"
        )
    latest = next((d.get("dist-tags.latest") for d in found if d.get("dist-tags.latest")), None)
    chosen = None
    if isinstance(latest, str) and latest in versions:
        chosen = latest
    elif wanted is not None and semver.valid_range(wanted):
        parsed = [(v, t) for t in versions if (v := semver.parse(t)) is not None]
        best = semver.highest(parsed, wanted)
        chosen = best[1] if best else None
    chosen = chosen or list(versions)[-1]
    integrity = versions[chosen].get("dist.integrity")
    return Resolved(chosen, integrity if isinstance(integrity, str) else None)


def integrity_of(data: bytes) -> str:
    import base64
    import hashlib

    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def checkout_name(integrity: str) -> str:
    import base64

    digest = base64.b64decode(integrity.removeprefix("sha512-"))
    return f"n-{digest.hex()[:40]}"


def download(package: str, version: str, registry: str | None, said: str) -> bytes:
    """The tarball of that version, by the user's npm, into a folder of its own and read."""
    import tempfile

    spec = f"{package}@{version}"
    with tempfile.TemporaryDirectory(prefix="skilltool-npm-") as folder:
        _npm(
            ["pack", "--json", "--ignore-scripts", f"--pack-destination={folder}", "--", spec],
            registry,
            said,
            package,
        )
        made = [name for name in os.listdir(folder) if name.endswith(".tgz")]
        if len(made) != 1:
            raise SourceError(f"{said}: npm pack made no tarball of {package}@{version}")
        return (Path(folder) / made[0]).read_bytes()


def members(tarball: bytes, said: str) -> list[Member]:
    """Every file and folder of a package tarball, npm's top folder (`package/`, whatever its
    name) taken off as npm takes it off, checked (unpacked.py) before anything is written."""
    import io
    import tarfile

    what = "the package"
    found: list[Member] = []
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
            for info in archive:
                parts = unpacked.parts_of(info.name, said, what)
                if not (info.isfile() or info.isdir()):
                    raise unpacked.not_a_file(info.name, info.issym() or info.islnk(), said, what)
                path = "/".join(parts[1:])
                if not path:
                    continue
                data = b""
                if info.isfile():
                    total += info.size
                    unpacked.over_budget(total, said, what)
                    handle = archive.extractfile(info)
                    data = handle.read() if handle is not None else b""
                found.append(Member(path, info.isdir(), bool(info.mode & 0o111), data))
    except (tarfile.TarError, OSError, EOFError) as err:
        raise SourceError(f"{said}: the package is not a tarball npm makes ({err})") from None
    return unpacked.collected(found, said, what)


def changes(tarball: Path, there: Path) -> list[str]:
    """The paths of a checkout that differ from the tarball it was written from; what cannot
    be checked counts as changed, so that it is kept."""
    try:
        items = members(tarball.read_bytes(), str(tarball))
    except (OSError, SourceError) as err:
        return [f"cannot be checked ({err})"]
    return unpacked.differences(items, there)


def check_out(
    place: Path,
    name: str,
    package: str,
    version: str,
    registry: str | None,
    pinned: str | None,
    said: str,
) -> tuple[str, str]:
    """The package at `version` downloaded and written to `place/n-<digest>/<name>/` (not
    yet in use): that folder's name and the tarball's integrity. `pinned`, the integrity the
    lockfile or the registry gave, must be the tarball's, or nothing is written."""
    if registry is not None:  # a lockfile's too, which anyone may have edited
        check_registry(registry, said)
    tarball = download(package, version, registry, said)
    integrity = integrity_of(tarball)
    if pinned is not None and pinned != integrity:
        raise SourceError(
            f"{said}: the tarball of {package}@{version} is not the one pinned (integrity "
            f"{integrity[:22]}..., not {pinned[:22]}...); the registry now serves other bytes "
            "under that version: nothing was changed; check the package, then remove the "
            "source and add it again to trust the new bytes"
        )
    items = members(tarball, said)
    folder = checkout_name(integrity)
    unpacked.write_checkout(place, folder, name, items, TARBALL, tarball)
    return folder, integrity


def described(package: str, registry: str | None) -> str:
    return f"npm:{package}" + (f" ({registry})" if registry else "")


def check_registry(registry: object, said: str) -> None:
    """An entry's `registry`, as Claude Code 2.1.332 takes it: an http(s) URL; one over plain
    http only when it is the user's own npm registry (npm would send the user's token to it
    in the clear)."""
    from urllib.parse import urlsplit

    if not isinstance(registry, str) or not re.match(r"https?://[^/\\]", registry):
        raise SourceError(f"{said}: source.registry: must be an http(s) URL; fix the entry")
    if urlsplit(registry).password is not None:
        raise SourceError(
            f"{said}: source.registry: the URL holds a password, which the lockfile would "
            "keep; remove it and let npm's own config (.npmrc) give the token"
        )
    if not registry.startswith("http://"):
        return
    own = _npm(["config", "get", "registry"], None, said).decode(errors="replace").strip()
    mine, theirs = urlsplit(own), urlsplit(registry)
    if (mine.scheme, mine.netloc) != (theirs.scheme, theirs.netloc):
        raise SourceError(
            f"{said}: source.registry: {registry} is plain http and not your npm registry, so "
            "npm could send your registry token to it in the clear; it is fetched once the "
            "registry uses https, or is your own (npm config set registry <url>)"
        )
