"""The user's git, run so that nothing of a fetched repository runs, and the checkouts
written from it (SPEC §9).

A source's directory holds a bare repository per commit, `git-<commit>/`, that git fetches
into, one plain directory per checkout `c-<commit>-<tree>/<name>/` that skilltool writes
itself from the raw objects (`ls-tree`, `cat-file --batch`: no attributes, filters, hooks or
submodules are consulted), and `current`, a link to the one in use, replaced with one rename.
A checkout of some folders of its tree only (the plugins picked of a marketplace) is named
`c-<commit>-<tree>-<key>/` and lists those folders in a file `parts` beside `<name>/`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from skilltool.fs import TEMP_PREFIX, fsync_dir
from skilltool.record import NamedTuple

CURRENT = "current"
# a link to the store the checkout in use was written from, `git-<commit>` (made anew for each
# commit fetched, so that what no checkout needs goes with the store it is in); a folder in
# sources added before
STORE = "git"
FULL_OID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_OID = r"[0-9a-f]{40}(?:[0-9a-f]{24})?"
CHECKOUT = re.compile(rf"c-({_OID})-({_OID})(?:-([0-9a-f]{{16}}))?")  # commit, tree, key of parts
PARTS = "parts"  # beside a partial checkout's tree: the folders of it written, one a line
# every git run: no hooks (the fetched repository's or anyone's), no fsmonitor program,
# no ext:: or fd:: transport (a command, a descriptor), no submodules, no background gc
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
    "protocol.fd.allow=never",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "gc.auto=0",
    "maintenance.auto=false",
)
# variables that would point git at another repository than the one named
REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_COMMON_DIR",
)


class SourceError(Exception):
    """A source cannot be added, updated, removed or synced: one line, nothing changed."""


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTS}
    if not os.isatty(0):  # no one to answer a password prompt: fail instead of hanging
        env.setdefault("GIT_TERMINAL_PROMPT", "0")
    return env


def git(*args: str, store: Path | None = None, data: bytes | None = None) -> bytes:
    """Run the user's git with the safe settings; its stdout, or a SourceError with its words."""
    return _run(args, store, data).stdout


def _run(
    args: Sequence[str], store: Path | None, data: bytes | None
) -> subprocess.CompletedProcess[bytes]:
    command = ["git"]
    for setting in SAFE_CONFIG:
        command += ["-c", setting]
    if store is not None:
        command += ["--git-dir", str(store)]
    try:
        done = subprocess.run(
            [*command, *args], input=data, capture_output=True, env=git_env(), check=False
        )
    except OSError as err:
        raise SourceError(f"cannot run git ({err.strerror}); install git") from err
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode(errors="replace").splitlines() if ln.strip()]
        fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines or ["failed"]
        raise SourceError(fatal[-1].removeprefix("fatal: ").removeprefix("error: "))
    return done


def git_said(*args: str, store: Path | None = None) -> str:
    """Run git as `git` does; what it said on stderr (a warning), when it succeeded."""
    return _run(args, store, None).stderr.decode(errors="replace")


def ls_remote(url: str, patterns: Sequence[str] = ()) -> dict[str, str]:
    """ref name -> commit on the remote (tags peeled): one query, asking only for the refs
    `patterns` could name (the server filters them: a repository with a hundred thousand
    pull-request refs answers in a line or two)."""
    # a pattern must match a tag's peeled line too, or an annotated tag names its tag object
    patterns = [*patterns, *(f"{p}^{{}}" for p in patterns if p != "HEAD")]
    try:
        out = git("ls-remote", "--", url, *patterns)
    except SourceError as err:
        raise _unreachable(url, err) from err
    refs: dict[str, str] = {}
    for line in out.decode(errors="replace").splitlines():
        oid, _, ref = line.partition("\t")
        if ref.endswith("^{}"):
            refs[ref[:-3]] = oid  # an annotated tag: the commit it names
        else:
            refs.setdefault(ref, oid)
    return refs


def _unreachable(url: str, err: SourceError) -> SourceError:
    return SourceError(f"{url}: cannot be reached: {err}; check the URL and your access")


def _no_default_branch(url: str) -> SourceError:
    return SourceError(f"{url}: the repository has no default branch; give one with --ref")


def resolve(url: str, ref: str | None, refs: Mapping[str, str] | None = None) -> str:
    """The commit `ref` names on the remote now; a full commit id names itself."""
    if ref is not None and FULL_OID.fullmatch(ref):
        return ref
    refs = ls_remote(url, [ref or "HEAD"]) if refs is None else refs
    names = ["HEAD"] if ref is None else [ref, f"refs/heads/{ref}", f"refs/tags/{ref}"]
    for candidate in names:
        if candidate in refs:
            return refs[candidate]
    if ref is None:
        raise _no_default_branch(url)
    raise SourceError(
        f"{url}: no branch or tag {ref!r} (a commit must be given as its full id); check --ref"
    )


# a store may hold a commit's trees without all their blobs (a partial fetch: a promisor
# remote). No git command run on it may fetch what is missing behind skilltool's back: the
# store's own config allows no transport at all, and names no URL; skilltool's fetch gives
# the URL, and allows its one scheme, on its own command line.
PROMISOR = "origin"
# each scheme by name as well: a user's `protocol.<scheme>.allow` would outrank `protocol.allow`
SCHEMES = ("file", "git", "http", "https", "ssh")
NO_TRANSPORT = (
    "[core]\n\trepositoryformatversion = 1\n"
    f"[extensions]\n\tpartialClone = {PROMISOR}\n"
    f'[remote "{PROMISOR}"]\n\tpromisor = true\n'
    "[protocol]\n\tallow = never\n"
    + "".join(f'[protocol "{scheme}"]\n\tallow = never\n' for scheme in SCHEMES)
)
UNFILTERED = "filtering not recognized by server"


def new_store(store: Path) -> None:
    """An empty store at `store`, made aside and renamed into place when whole, so that a
    run killed inside `git init` leaves no half-made store under a store's name; what such
    a run left aside is removed first (every run that makes a store holds the lock)."""
    for left in store.parent.glob(f"{TEMP_PREFIX}init-*"):
        shutil.rmtree(left, ignore_errors=True)
    staging = store.parent / f"{TEMP_PREFIX}init-{store.name}-{os.getpid()}"
    # an empty template: no hooks or anything else copied in from init.templateDir
    git("init", "--quiet", "--bare", "--template=", str(staging))
    with open(staging / "config", "a", encoding="utf-8") as config:
        config.write(NO_TRANSPORT)
    os.rename(staging, store)


def _promisor_ready(store: Path) -> None:
    """A store whose config was never finished (a run killed between `init` and writing
    NO_TRANSPORT): finished first, so that it is a partial store that fetches nothing."""
    try:
        text = (store / "config").read_text(encoding="utf-8")
    except OSError as err:
        raise SourceError(f"{store}: cannot read its config ({err.strerror})") from None
    if "partialClone" in text:
        return
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", PROMISOR),
        (f"remote.{PROMISOR}.promisor", "true"),
        ("protocol.allow", "never"),
        *((f"protocol.{scheme}.allow", "never") for scheme in SCHEMES),
    ):
        git("config", key, value, store=store)


def _transport(url: str) -> tuple[str, ...]:
    """The command-line settings of skilltool's own fetch: the URL, and the user's own policy
    for each scheme, which the store's config refuses to every other git command (a URL
    rewritten by the user's `url.<base>.insteadOf` may change its scheme). ext:: and fd::
    stay refused by SAFE_CONFIG."""
    said = {}
    for level in ("--system", "--global"):  # the user's, without the store's
        with contextlib.suppress(SourceError):  # none set at that level
            found = git("config", level, "--get-regexp", r"^protocol\.")
            for line in found.decode(errors="replace").splitlines():
                key, _, value = line.partition(" ")
                said[key.lower()] = value
    settings = ["-c", f"remote.{PROMISOR}.url={url}"]
    for scheme in SCHEMES:
        # git's own defaults: the known-safe schemes always, a local path when a user asks
        default = "user" if scheme == "file" else "always"
        value = said.get(f"protocol.{scheme}.allow", said.get("protocol.allow", default))
        settings += ["-c", f"protocol.{scheme}.allow={value}"]
    return tuple(settings)


class Parts(NamedTuple):
    """What a source uses of its tree when not all of it."""

    folders: tuple[str, ...]  # each must be a folder of the tree, or all of it is used
    files: tuple[str, ...] = ()  # and these files, where the tree has them (not as links)


# what a source uses of its tree, decided from files of it (read with the function given,
# which fetches them); None for all of it
Narrow = Callable[[Callable[[str], bytes | None]], Parts | None]


class Fetched(NamedTuple):
    tree: str  # the id of the tree used: `subdir` of the commit, or all of it
    parts: tuple[str, ...]  # the folders and files of it used; (): all
    whole: str | None  # why the whole commit came when only a part is used


def fetch(
    store: Path,
    url: str,
    ref: str | None,
    commit: str,
    subdir: str,
    said: str,
    empty: bool = False,
    narrow: Narrow | None = None,
) -> Fetched:
    """Bring `commit` into the store: by its ref (what every server allows), else by its id
    (`empty`: a store just made, which is not asked whether it has it), and the blobs of
    the part of it used. When only a part is used (`subdir`, or what `narrow` picks) the
    commit's trees come without their blobs, then the blobs of that part in one request
    (and before it, each file `narrow` reads)."""
    if not empty:
        _promisor_ready(store)
    partial = bool(subdir) or narrow is not None
    transport: tuple[str, ...] = ()  # the user's settings read once, and only when fetching

    def wanted(oids: Sequence[str]) -> None:
        nonlocal transport
        if oids:
            transport = transport or _transport(url)
            wants = "".join(f"{oid}\n" for oid in dict.fromkeys(oids)).encode()
            command = ("fetch", "--quiet", "--no-tags", "--filter=blob:none", "--stdin", PROMISOR)
            git(*transport, *command, store=store, data=wants)

    whole = None
    if empty or not git_has(store, commit):
        transport = _transport(url)
        whole = _fetch_commit(store, transport, url, ref, commit, part=partial)
    tree = tree_of(store, commit, subdir, said)
    if not partial:
        return Fetched(tree, (), whole)
    items = {i.path: (i.mode, i.oid) for i in listing(store, tree, folders=True)}
    missing = set(_missing(store, tree))

    def read(path: str) -> bytes | None:  # a file of the tree, fetched first if need be
        mode, oid = items.get(path, ("", ""))
        if mode not in FILE_MODES:
            return None
        wanted([oid] if oid in missing else [])
        missing.discard(oid)
        return next(_blobs(store, [oid]))

    parts: tuple[str, ...] = ()
    if narrow is not None:
        kinds = {"040000": "folder", **dict.fromkeys(FILE_MODES, "file")}
        parts = held(narrow(read), lambda path: kinds.get(items.get(path, ("",))[0], ""))
    used = [oid for path, (_, oid) in items.items() if oid in missing and inside_parts(path, parts)]
    wanted(used)  # one request for the blobs of the part used; none of the rest
    return Fetched(tree, parts, whole)


FILE_MODES = ("100644", "100755")


def held(picked: Parts | None, kind: Callable[[str], str]) -> tuple[str, ...]:
    """What a checkout holds of a tree, as its `parts` file lists them, decided the same way
    from the commit's listing and from a checkout on disk: the folders picked, if `kind`
    says each is a "folder", and the files picked that are a "file" (not a link), sorted,
    without a file a folder of them holds; () (all of it) if a folder is not one: a link or
    a file where a folder is looked for is read from the whole tree."""
    if picked is None or any(kind(f) != "folder" for f in picked.folders):
        return ()
    files = [f for f in picked.files if kind(f) == "file"]
    inside = [f for f in files if picked.folders and inside_parts(f, picked.folders)]
    return tuple(sorted({*picked.folders, *(f for f in files if f not in inside)}))


def _fetch_commit(
    store: Path, transport: tuple[str, ...], url: str, ref: str | None, commit: str, part: bool
) -> str | None:
    wants = [commit] if ref is None or FULL_OID.fullmatch(ref) else [ref, commit]
    if ref is None:
        wants = ["HEAD", commit]
    last: SourceError | None = None
    filtered = ("--filter=blob:none",) if part else ()
    for want in wants:
        command = ("fetch", "--no-tags", "--depth=1", *filtered, PROMISOR, want)
        try:
            said = git_said(*transport, *command, store=store)
        except SourceError as err:
            last = err
            continue
        if git_has(store, commit):
            return _unfiltered(url, commit, said) if part else None
    why = f": {last}" if last else ""
    raise SourceError(f"{url}: commit {commit} cannot be fetched{why}")


def _unfiltered(url: str, commit: str, said: str) -> str | None:
    if UNFILTERED not in said:
        return None
    return (
        f"{url} does not filter what it sends (uploadpack.allowFilter), so all of commit "
        f"{commit[:12]} was fetched, not only what is used"
    )


def fetch_head(place: Path, url: str, part: bool) -> tuple[str, str | None]:
    """The remote's default branch fetched into a new store in `place` (`git-<commit>`),
    in one request: no `ls-remote` before it. Its commit, and why the whole commit came
    when `part` of it is used and the server does not filter."""
    # not `.skilltool-tmp-git-<pid>`: the name `_relink` gives the new `git` link
    for left in place.glob(f"{TEMP_PREFIX}fetch-*"):  # a killed run's, under the lock
        shutil.rmtree(left, ignore_errors=True)
    staging = place / f"{TEMP_PREFIX}fetch-{STORE}-{os.getpid()}"
    new_store(staging)
    filtered = ("--filter=blob:none",) if part else ()
    command = ("fetch", "--no-tags", "--depth=1", *filtered, PROMISOR, "HEAD")
    try:
        said = git_said(*_transport(url), *command, store=staging)
    except SourceError as err:
        shutil.rmtree(staging, ignore_errors=True)
        missing = "couldn't find remote ref" in str(err)
        raise (_no_default_branch(url) if missing else _unreachable(url, err)) from None
    commit = git("rev-parse", "--verify", "FETCH_HEAD^{commit}", store=staging).decode().strip()
    os.rename(staging, store_of(place, commit))
    return commit, _unfiltered(url, commit, said) if part else None


def _missing(store: Path, tree: str) -> list[str]:
    """The objects of `tree` (an id, or `<tree>:<folder>`) the store does not hold; reading
    never fetches them."""
    out = git("rev-list", "--objects", "--missing=print", "--no-object-names", tree, store=store)
    return [line[1:] for line in out.decode().split() if line.startswith("?")]


def git_has(store: Path, commit: str) -> bool:
    try:
        git("cat-file", "-e", f"{commit}^{{commit}}", store=store)
    except SourceError:
        return False
    return True


def tree_of(store: Path, commit: str, subdir: str, said: str) -> str:
    """The tree id of the part of `commit` used: the digest the lockfile records."""
    spec = f"{commit}:{subdir}" if subdir else f"{commit}^{{tree}}"
    try:  # one process: `<oid> <type> <size>`, or `<spec> missing`
        answer = git("cat-file", "--batch-check", store=store, data=spec.encode() + b"\n")
        oid, kind, *_ = [*answer.decode().split(), "", ""]
    except SourceError:
        oid, kind = "", "missing"
    if kind != "tree":
        raise SourceError(f"{said}: no directory {subdir!r} at {commit[:12]}")
    return oid


# --------------------------------------------------------------------------- checkouts


class TreeItem(NamedTuple):
    mode: str
    oid: str
    path: str


def inside_parts(path: str, parts: Sequence[str]) -> bool:
    """Whether a path of a tree is one of the files `parts` or lies in one of its folders
    (all of it: ())."""
    return not parts or any(path == part or path.startswith(f"{part}/") for part in parts)


def listing(
    store: Path, tree: str, parts: Sequence[str] = (), folders: bool = False
) -> list[TreeItem]:
    """Every blob, link and submodule of a tree, recursively, and with `folders` each folder
    too; of the folders `parts` alone, when some are given. Read from its trees alone (all of
    them are in a store): no blob is read, so nothing is fetched."""
    out = git("ls-tree", "-r", *(["-t"] if folders else []), "-z", "--full-tree", tree, store=store)
    items = []
    for record in out.split(b"\0"):
        if not record:
            continue
        head, _, path = record.partition(b"\t")
        mode, _kind, oid = head.decode().split(" ")
        item = TreeItem(mode, oid, os.fsdecode(path))
        if inside_parts(item.path, parts):
            items.append(item)
    return items


def _blobs(store: Path, oids: list[str]) -> Iterator[bytes]:
    """The raw content of each blob, in order: one `cat-file --batch`, no filter applied."""
    if not oids:
        return
    out = git("cat-file", "--batch", store=store, data="".join(f"{o}\n" for o in oids).encode())
    at = 0
    for oid in oids:
        end = out.find(b"\n", at)
        head = out[at:end].split(b" ") if end >= 0 else []
        if len(head) != 3 or head[1] != b"blob":  # "<oid> missing": a store fetched short
            raise SourceError(f"object {oid} cannot be read from {store}; add the source again")
        size = int(head[2])
        yield out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1


class UnsafeTree(SourceError):
    """A fetched tree that cannot be written without leaving its checkout: nothing of it is
    (the caller says what that means for the source)."""


def _safe_path(path: str, said: str) -> None:
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        raise SourceError(f"{said}: the tree holds an unsafe path {path!r}; it is not used")


def _refuse_overlaps(items: list[TreeItem], said: str) -> None:
    """Every path of a tree is unique and none lies under another entry that is not a folder
    (a link, a file, a submodule): a crafted tree can hold both a link `zz` and a folder
    `zz/`, which git's own checkout refuses; checked before anything is written."""
    kinds: dict[str, str] = {}
    for item in items:
        _safe_path(item.path, said)
        if item.path in kinds:
            raise UnsafeTree(
                f"{said}: the tree holds {item.path} twice (git itself refuses to check out "
                "such a tree)"
            )
        kinds[item.path] = item.mode
    for item in items:
        at = item.path.find("/")
        while at >= 0:
            above = item.path[:at]
            if above in kinds:
                what = "a link" if kinds[above] == "120000" else "a file"
                raise UnsafeTree(
                    f"{said}: {item.path} lies under {above}, which the tree also holds as "
                    f"{what} (git itself refuses to check out such a tree)"
                )
            at = item.path.find("/", at + 1)


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


_NO_FOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


class _Descent:
    """Open folders of a checkout being written, from its top down, each opened relative to
    its parent without following a link: nothing can be written through a link of the tree.
    Holds at most one descriptor per level of the folder last used."""

    def __init__(self, top: Path) -> None:
        self.names: list[str] = []
        self.fds = [os.open(top, _NO_FOLLOW_DIR)]

    def folder(self, parts: list[str]) -> int:
        keep = 0
        while keep < min(len(parts), len(self.names)) and parts[keep] == self.names[keep]:
            keep += 1
        while len(self.names) > keep:
            self.names.pop()
            os.close(self.fds.pop())
        for name in parts[keep:]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=self.fds[-1])
            self.fds.append(os.open(name, _NO_FOLLOW_DIR, dir_fd=self.fds[-1]))
            self.names.append(name)
        return self.fds[-1]

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds, self.names = [], []


def materialise(
    store: Path, tree: str, dest: Path, said: str, parts: Sequence[str] = ()
) -> list[str]:
    """Write a tree's files (of the folders `parts` alone, when some are given) into the new
    directory `dest`; the submodules skipped, returned."""
    items = listing(store, tree, parts)
    _refuse_overlaps(items, said)
    blobs = [i for i in items if i.mode != "160000"]
    dest.mkdir(parents=True)
    links: list[Path] = []
    descent = _Descent(dest)
    try:
        for item, data in zip(blobs, _blobs(store, [i.oid for i in blobs]), strict=True):
            *parts, name = item.path.split("/")
            try:
                folder = descent.folder(parts)
                if item.mode == "120000":
                    os.symlink(os.fsdecode(data), name, dir_fd=folder)
                    links.append(dest / item.path)
                    continue
                mode = 0o755 if item.mode == "100755" else 0o644
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                fd = os.open(name, flags, mode, dir_fd=folder)
            except OSError as err:  # a link or a file where a folder is: ruled out above
                if err.errno not in (errno.ENOTDIR, errno.EEXIST, errno.ELOOP):
                    raise
                raise UnsafeTree(
                    f"{said}: {item.path} cannot be written inside the checkout ({err.strerror})"
                ) from err
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    finally:
        descent.close()
    root = os.path.realpath(dest)
    for link in links:  # checked once all are written: a chain of links is followed to its end
        if not _inside(str(link), root):
            shown = link.relative_to(dest)
            raise SourceError(
                f"{said}: {shown} is a link that leads outside the repository; it is not used"
            )
    return [i.path for i in items if i.mode == "160000"]


def _blob_id(data: bytes, oid: str) -> str:
    import hashlib

    algorithm = hashlib.sha1 if len(oid) == 40 else hashlib.sha256
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


def local_changes(store: Path, tree: str, directory: Path, parts: Sequence[str] = ()) -> list[str]:
    """The paths of a checkout that differ from its tree (the folders `parts` of it, when
    some are given): edited, added or removed by hand."""
    expected = {i.path: i for i in listing(store, tree, parts) if i.mode != "160000"}
    changed = []
    seen = set()
    for folder, dirnames, filenames in os.walk(directory):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(folder, d))]:
            full = os.path.join(folder, name)
            relative = os.path.relpath(full, directory)
            seen.add(relative)
            item = expected.get(relative)
            if item is None or not _same(full, item):
                changed.append(relative)
    changed += [p for p in expected if p not in seen]
    return sorted(changed)


def _same(full: str, item: TreeItem) -> bool:
    if os.path.islink(full):
        return (
            item.mode == "120000" and _blob_id(os.fsencode(os.readlink(full)), item.oid) == item.oid
        )
    if item.mode == "120000":
        return False
    executable = bool(os.stat(full).st_mode & 0o100)
    with open(full, "rb") as handle:
        data = handle.read()
    return executable == (item.mode == "100755") and _blob_id(data, item.oid) == item.oid


class Prepared(NamedTuple):
    checkout: str  # its directory's name in the source's directory
    skipped: list[str]  # the submodules it holds (not fetched)


def prepare(
    place: Path,
    name: str,
    commit: str,
    store: Path,
    tree: str,
    said: str,
    parts: tuple[str, ...] = (),
) -> Prepared:
    """A complete checkout of `commit` (of the folders `parts` of it, when some are given) in
    `place/c-<commit>-<tree>[-<key>]/<name>`, written aside and renamed in."""
    final = place / checkout_name(commit, tree, parts)
    if os.path.isdir(final):
        return Prepared(final.name, [])
    staging = place / f"{TEMP_PREFIX}{commit}-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(staging)
    try:
        skipped = materialise(store, tree, staging / name, said, parts)
        if parts:
            (staging / PARTS).write_text(_listed(parts), encoding="utf-8")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    os.rename(staging, final)
    return Prepared(final.name, skipped)


def _listed(parts: Sequence[str]) -> str:
    """A `parts` file's text: a path a line."""
    return "".join(f"{part}\n" for part in parts)


def _key(parts: Sequence[str]) -> str:
    import hashlib

    return hashlib.sha256(_listed(parts).encode()).hexdigest()[:16]


def checkout_name(commit: str, tree: str, parts: Sequence[str] = ()) -> str:
    """A checkout's directory: named by its commit and its tree (and a key of the folders it
    holds, when not all), so that it says, with no lockfile, what it must hold (local
    changes are judged against that tree)."""
    return f"c-{commit}-{tree}-{_key(parts)}" if parts else f"c-{commit}-{tree}"


def named(name: str) -> tuple[str, str] | None:
    """(commit, tree) from a checkout's directory name; None for anything else."""
    found = CHECKOUT.fullmatch(name)
    return (found[1], found[2]) if found else None


def parts_of(top: Path) -> tuple[str, ...] | None:
    """The folders a checkout directory `c-...` holds, () for all of its tree; None when it
    is not one skilltool named, or its `parts` file does not match its name."""
    found = CHECKOUT.fullmatch(top.name)
    if found is None or found[3] is None:
        return None if found is None else ()
    try:
        parts = tuple((top / PARTS).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return None
    return parts if parts and _key(parts) == found[3] else None


def flip(place: Path, checkout: str) -> None:
    """Make `current` point at the checkout `checkout`, then `git` at the store it was
    written from, each in one rename. A store folder of the older layout is moved aside
    first, for `sweep`: killed in between, the next fetch makes one."""
    found = named(checkout)
    assert found is not None or checkout.startswith(("n-", "a-")), checkout
    _relink(place, CURRENT, checkout)
    if found is None:  # a package's or a zip's checkout (unpacked.py): no store
        return
    store = place / STORE
    if os.path.isdir(store) and not os.path.islink(store):
        os.rename(store, place / f"{TEMP_PREFIX}old-{STORE}-{os.getpid()}")
    _relink(place, STORE, store_of(place, found[0]).name)


def _relink(place: Path, name: str, target: str) -> None:
    """The link `name` in `place` replaced by one to `target`, in one rename."""
    link = place / f"{TEMP_PREFIX}{name}-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(link)
    os.symlink(target, link)
    os.replace(link, place / name)
    fsync_dir(place)


def store_of(place: Path, commit: str) -> Path:
    """Where the store of `commit` is made, beside the one in use."""
    return place / f"{STORE}-{commit}"


def sweep(place: Path) -> None:
    """Remove what a killed run left in a source's directory, and the checkouts and stores
    not in use."""
    kept = set()
    for link in (CURRENT, STORE):
        with contextlib.suppress(OSError):
            kept.add(os.readlink(place / link))
    for name in list(kept):  # and the store the checkout in use was written from
        found = named(name)
        if found is not None:
            kept.add(store_of(place, found[0]).name)
    try:
        names = os.listdir(place)
    except OSError:
        return
    for name in names:
        unused = name.startswith(("c-", "n-", "a-", f"{STORE}-")) and name not in kept
        if name.startswith(TEMP_PREFIX) or unused:
            path = place / name
            if os.path.islink(path) or not os.path.isdir(path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            else:
                shutil.rmtree(path, ignore_errors=True)
