"""The data catalog: named puzzle sets, where to find them, and how to fetch the public ones.

A set is a file of puzzles in any format ``read_file`` reads. The catalog
(``data/catalog.json``, installed as ``sudokulab.data``) names each set the project ships and
each public set of ``shared/data/PROVENANCE.md``, with its source URL, sha256, format and
count. A set's ``file`` is a path relative to a *data folder*; the folders are searched in
this order:

1. the project's own data (the package ``sudokulab.data``);
2. the user cache (``$SUDOKULAB_CACHE``, else ``$XDG_CACHE_HOME/sudokulab``, else
   ``~/.cache/sudokulab``), where ``sudokulab data fetch NAME`` puts what it downloads;
3. each folder given with ``--data-dir``;
4. each folder in ``$SUDOKULAB_DATA`` (separated by ``os.pathsep``).

Any existing file path works as a set too.

A catalog set's file is checked against the catalog's sha256 before it is used (another
file under the set's name is :class:`WrongFile`, naming both sha256 and how to get the
set again). A large file that passed is remembered in the cache folder (``checked.json``)
by its path, size, modification and change times, so it is hashed again only when it
changed.

>>> info = catalog()["sudokus_17"]
>>> info.name, info.count
('sudoku17', 49151)
>>> len(load("seeds").entries)
3
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .models import Entry, read_file
from .models.formats import counted

if TYPE_CHECKING:
    import logging

__all__ = [
    "ChecksumMismatch",
    "FetchError",
    "LoadedSet",
    "RETRIES",
    "SetInfo",
    "SetNotFound",
    "WrongFile",
    "default_cache_dir",
    "catalog",
    "data_dirs",
    "entries",
    "fetch",
    "load",
    "locate",
    "sample_indices",
    "sha256_of",
    "status",
    "unknown_set",
    "verify",
]

_PACKAGE = "sudokulab.data"
_CATALOG = "catalog.json"
_CHUNK = 1 << 16
#: The file in the cache folder that remembers which set files matched their sha256.
_CHECKED = "checked.json"
#: Files from this size on are remembered once checked; a smaller one is hashed on each
#: use (a second pass over a file that is read whole anyway; no write to the cache).
_REMEMBERED = 1 << 20
#: How many times ``fetch`` tries a download again (network or server error, wrong sha256).
RETRIES = 2
#: HTTP statuses worth another try (timeout, too many requests, server errors); any other
#: error status is final.
_TRANSIENT = frozenset({408, 429, 500, 502, 503, 504})


class SetNotFound(LookupError):
    """A set name that is not in the catalog, or a set that is in no data folder."""


class WrongFile(SetNotFound):
    """A data folder's file of a catalog set whose sha256 is not the catalog's: another
    file under the set's name, or the set's file changed."""

    def __init__(self, info: SetInfo, path: Path, actual: str) -> None:
        super().__init__(
            f"set {info.name!r}: {path} has sha256 {actual}, the catalog expects "
            f"{info.sha256}: it is not the set's file; {_again(info, path)}"
        )
        self.name, self.path, self.expected, self.actual = info.name, path, info.sha256, actual


class FetchError(RuntimeError):
    """A download that failed: network, HTTP status, or no direct download known."""


class ChecksumMismatch(FetchError, ValueError):
    """A downloaded file whose sha256 is not the catalog's; nothing was kept."""

    def __init__(self, name: str, url: str, expected: str, actual: str) -> None:
        super().__init__(
            f"{name}: the file at {url} has sha256 {actual}, the catalog expects {expected}; "
            "refused, nothing kept"
        )
        self.name, self.url, self.expected, self.actual = name, url, expected, actual


@dataclass(frozen=True)
class SetInfo:
    """One catalog entry: a file of puzzles, where it comes from, and what it holds."""

    name: str
    description: str
    file: str  # relative to a data folder, e.g. norvig-pytudes/sudoku-top95.txt
    url: str | None  # the public source (a raw file at a pinned commit when known)
    sha256: str
    format: str
    count: int
    solutions: str | None = None  # a catalog name (or sibling file) with the solutions
    shipped: bool = False  # in the project's own data/
    aliases: tuple[str, ...] = ()
    origin: str | None = None  # where the puzzles were first published
    generator: str | None = None  # the `sudokulab generate` command that made a shipped set
    #: (spec, why) pairs the bench skips on this set (a documented exclusion, not an error)
    skip: tuple[tuple[str, str], ...] = ()

    @property
    def downloadable(self) -> bool:
        """Whether ``url`` names a file to download rather than a repository page."""
        if not self.url:
            return False
        parts = urlsplit(self.url)
        if parts.netloc == "github.com":  # a page; raw files live on raw.githubusercontent.com
            return False
        return parts.scheme in ("http", "https", "file")


@dataclass(frozen=True)
class LoadedSet:
    """A set read from its file: its puzzles in file order and each one's index in the file."""

    name: str  # the catalog name, or the path as given
    path: Path
    entries: list[Entry]
    indices: list[int]  # 0-based position of each entry in the whole file
    info: SetInfo | None = field(default=None, compare=False)


# --- the catalog ----------------------------------------------------------------------------


@cache
def _entries() -> tuple[SetInfo, ...]:
    """The catalog file, parsed once per process (it is part of the installed package)."""
    text = resources.files(_PACKAGE).joinpath(_CATALOG).read_text(encoding="utf-8")
    infos = []
    for raw in json.loads(text):
        raw = dict(raw)
        raw["aliases"] = tuple(raw.get("aliases", ()))
        raw["skip"] = tuple(raw.get("skip", {}).items())
        infos.append(SetInfo(**raw))
    return tuple(infos)


def entries() -> list[SetInfo]:
    """Every catalog entry once, in catalog order (``catalog()`` also maps the aliases)."""
    return list(_entries())


def catalog() -> dict[str, SetInfo]:
    """Every set by name and by alias."""
    names: dict[str, SetInfo] = {}
    for info in _entries():
        for key in (info.name, *info.aliases):
            if key in names:
                raise ValueError(f"catalog: {key!r} names two sets")
            names[key] = info
    return names


# --- where sets live ------------------------------------------------------------------------


def _project_dir() -> Path | None:
    """The installed ``sudokulab.data`` folder (None if the package is not on a file system)."""
    root = resources.files(_PACKAGE)
    return root if isinstance(root, Path) else None


def default_cache_dir() -> Path:
    """The user cache: $SUDOKULAB_CACHE, else $XDG_CACHE_HOME/sudokulab, else ~/.cache/sudokulab."""
    explicit = os.environ.get("SUDOKULAB_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "sudokulab"


def data_dirs(extra: Sequence[str | os.PathLike[str]] = ()) -> list[Path]:
    """The data folders in search order: project, cache, each ``extra``, each $SUDOKULAB_DATA."""
    env = os.environ.get("SUDOKULAB_DATA", "")
    candidates = [
        _project_dir(),
        default_cache_dir(),
        *(Path(d).expanduser() for d in extra),
        *(Path(d).expanduser() for d in env.split(os.pathsep) if d),
    ]
    return list(dict.fromkeys(d for d in candidates if d is not None))


def _missing(info: SetInfo, dirs: list[Path]) -> SetNotFound:
    looked = ", ".join(str(d) for d in dirs)
    if info.shipped:
        hint = "it ships with sudokulab: the installation is incomplete, reinstall it"
    elif info.downloadable:
        hint = (
            f"run `sudokulab data fetch {info.name}` to download it, or name a folder "
            "that holds it with --data-dir or SUDOKULAB_DATA"
        )
    else:
        hint = (
            f"download it from {info.url} into {default_cache_dir() / info.file}, or name a folder "
            "that holds it with --data-dir or SUDOKULAB_DATA"
        )
    return SetNotFound(f"set {info.name!r} ({info.file}) is in none of: {looked}; {hint}")


def _again(info: SetInfo, path: Path) -> str:
    """How to get a set's right file in place of the wrong one at ``path``."""
    if info.shipped:
        return "the installation is damaged: reinstall sudokulab"
    cached = path.is_relative_to(default_cache_dir())
    if info.downloadable:
        fetch = f"run `sudokulab data fetch {info.name}` to download it again"
        return fetch if cached else f"replace it, or {fetch} (the cache is searched first)"
    return f"download it again from {info.url} into {default_cache_dir() / info.file}" + (
        "" if cached else " (the cache is searched first), or replace it"
    )


def unknown_set(name: str) -> SetNotFound:
    """The error for a name that is neither a catalog set nor a file, with close names."""
    import difflib

    close = difflib.get_close_matches(name, list(catalog()), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `sudokulab sets` lists them"
    return SetNotFound(f"{name!r} is neither a catalog set nor a file{hint}")


def locate(
    name_or_path: str | os.PathLike[str],
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    check: bool = True,
) -> Path:
    """The file of a catalog set (by name or alias), or the given file itself.

    A set's file is the first one found in the data folders, checked against the
    catalog's sha256 (:func:`verify`) unless ``check`` is False.
    """
    sets = catalog()
    key = os.fspath(name_or_path)
    if key in sets:
        info = sets[key]
        dirs = data_dirs(extra_dirs)
        for folder in dirs:
            path = folder / info.file
            if path.is_file():
                if check:
                    verify(info, path)
                return path
        raise _missing(info, dirs)
    path = Path(key).expanduser()
    if path.is_file():
        return path
    if path.exists():
        raise SetNotFound(f"{key}: not a file")
    if os.sep in key or (os.altsep and os.altsep in key) or path.suffix:
        raise SetNotFound(f"{key}: no such file")
    raise unknown_set(key)


# --- reading --------------------------------------------------------------------------------


def _solutions_path(
    info: SetInfo, path: Path, extra_dirs: Sequence[str | os.PathLike[str]]
) -> Path:
    """Where the solutions of ``info`` are: a catalog set, else a file beside the set's file."""
    assert info.solutions is not None
    if info.solutions in catalog():
        return locate(info.solutions, extra_dirs)
    sibling = path.parent / info.solutions
    if not sibling.is_file():
        raise SetNotFound(f"{info.name}: its solutions {info.solutions!r} are not at {sibling}")
    return sibling


def sample_indices(count: int, sample: int | None, seed: int) -> list[int]:
    """Indices of a reproducible sample, in file order (all of them without a sample)."""
    if sample is not None and sample < 1:
        raise ValueError(f"a sample needs at least 1 puzzle, not {sample}")
    if sample is None or sample >= count:
        return list(range(count))
    return sorted(random.Random(seed).sample(range(count), sample))


def load(
    name_or_path: str | os.PathLike[str],
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    sample: int | None = None,
    seed: int = 0,
) -> LoadedSet:
    """Read a set; attach the catalog's solutions; keep a reproducible sample if asked."""
    key = os.fspath(name_or_path)
    path = locate(key, extra_dirs)
    info = catalog().get(key)
    found = read_file(path)
    if info is not None and info.solutions:
        known = read_file(_solutions_path(info, path, extra_dirs))
        if len(known) != len(found):
            raise ValueError(
                f"{info.name}: {counted(len(known), 'solution')} in {info.solutions} for "
                f"{counted(len(found), 'puzzle')}"
            )
        found = [replace(e, solution=s.puzzle.givens) for e, s in zip(found, known, strict=True)]
    indices = sample_indices(len(found), sample, seed)
    return LoadedSet(
        name=info.name if info else key,
        path=path,
        entries=[found[i] for i in indices],
        indices=indices,
        info=info,
    )


def status(extra_dirs: Sequence[str | os.PathLike[str]] = ()) -> list[dict]:
    """One row per catalog set: name, count, present, path (or None), whether the file
    there is the set's (``wrong``: its sha256 is not the catalog's), description and more."""
    rows = []
    for info in _entries():
        try:
            path: Path | None = locate(info.name, extra_dirs, check=False)
        except SetNotFound:
            path = None
        wrong = False
        if path is not None:
            try:
                verify(info, path)
            except WrongFile:
                wrong = True
        rows.append(
            {
                "name": info.name,
                "count": info.count,
                "present": path is not None,
                "path": str(path) if path else None,
                "wrong": wrong,
                "description": info.description,
                "aliases": list(info.aliases),
                "shipped": info.shipped,
                "downloadable": info.downloadable,
            }
        )
    return rows


# --- checking -------------------------------------------------------------------------------


def verify(info: SetInfo, path: Path) -> None:
    """WrongFile unless the file at ``path`` has the catalog's sha256 for ``info``.

    A large file that passed is remembered in the cache folder by its path, size,
    modification and change times (a copy, a rewrite or ``touch`` changes one of them),
    so it is hashed once, not on every use; a cache folder that cannot be written only
    costs the hashing again.
    """
    stat = path.stat()
    key = str(path.resolve())
    mark = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, info.sha256]
    checked = _checked() if stat.st_size >= _REMEMBERED else {}
    if checked.get(key) == mark:
        return
    actual = sha256_of(path)
    if actual != info.sha256:
        raise WrongFile(info, path, actual)
    if stat.st_size < _REMEMBERED:
        return
    kept = {k: v for k, v in checked.items() if os.path.exists(k)}  # forget removed files
    kept[key] = mark
    folder = default_cache_dir()
    temporary = folder / f".{_CHECKED}.{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(kept), encoding="utf-8")
        os.replace(temporary, folder / _CHECKED)  # whole or not at all, for other processes
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _checked() -> dict[str, list]:
    """What the cache folder remembers of checked files: path -> [size, mtime, ctime, sha256]."""
    try:
        text = (default_cache_dir() / _CHECKED).read_text(encoding="utf-8")
        found = json.loads(text)
    except (OSError, ValueError):  # none yet, or cut short: check again
        return {}
    return found if isinstance(found, dict) else {}


# --- fetching -------------------------------------------------------------------------------


def sha256_of(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file, as 64 hex digits."""
    import hashlib  # costly to import: only when a checksum is taken

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _new_folders(folder: Path) -> Iterator[None]:
    """Create ``folder`` and its missing parents; remove those left empty if the body fails."""
    created = []
    for parent in [folder, *folder.parents]:
        if parent.exists():
            break
        created.append(parent)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        yield
    except BaseException:
        for made in created:  # deepest first
            with contextlib.suppress(OSError):
                made.rmdir()
        raise


class _Downloader:
    """pooch's downloader for one set: HTTP(S) with requests, or a local file for file://.

    A client error (404, 403, ...) stops at once instead of being retried, and the sha256
    of what the last attempt brought is kept, so a refused file can be named exactly.
    """

    def __init__(self, name: str, timeout: float, progressbar: bool) -> None:
        import pooch

        self.name = name
        self.http = pooch.HTTPDownloader(
            timeout=timeout, progressbar=progressbar, headers={"User-Agent": "sudokulab"}
        )
        self.sha256: str | None = None

    def __call__(self, url: str, output_file: str, store: Any) -> None:
        """Write what ``url`` serves to ``output_file`` (pooch's temporary file)."""
        import requests

        self.sha256 = None
        parts = urlsplit(url)
        if parts.scheme == "file":
            from urllib.request import url2pathname  # costly to import: only here

            shutil.copyfile(url2pathname(parts.path), output_file)
        else:
            try:
                self.http(url, output_file, store)
            except requests.HTTPError as err:
                if err.response is not None and err.response.status_code not in _TRANSIENT:
                    raise _http_error(self.name, url, err) from None
                raise
        self.sha256 = sha256_of(output_file)


def _http_error(name: str, url: str, err: Any) -> FetchError:
    """The error of an HTTP status that is not a success, e.g. ``HTTP 404 Not Found``."""
    response = err.response
    status = f"{response.status_code} {response.reason}" if response is not None else err
    return FetchError(f"{name}: {url}: HTTP {status}")


def _reason(err: BaseException) -> object:
    """The cause of a failed connection (what urllib3 wrapped), else the error itself."""
    inner = err.args[0] if err.args else None
    return getattr(inner, "reason", None) or err


@contextlib.contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    """Keep pooch's "Downloading file ..." notes off stderr: the caller reports."""
    import logging

    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def fetch(
    name: str,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
    timeout: float = 60,
    retries: int = RETRIES,
) -> Path:
    """Download a public set into the cache, keeping it only if its sha256 is the catalog's.

    ``url`` overrides the catalog's address (a mirror). A file already in the cache with
    the right sha256 is not downloaded again. pooch does the download: into a temporary
    file in the destination folder, renamed into place only once its checksum is right
    (a failed or refused download leaves no file behind and an older file untouched),
    tried again up to ``retries`` times after a network error, a server error or a wrong
    checksum, with a progress bar when stderr is a terminal.
    """
    sets = catalog()
    if name not in sets:
        raise unknown_set(name)
    info = sets[name]
    if info.shipped:
        return locate(info.name)
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    dest = folder / info.file
    if dest.is_file() and sha256_of(dest) == info.sha256:
        return dest
    source = url or info.url
    if url is None and not info.downloadable:
        raise FetchError(
            f"{info.name}: no direct download is known; get {info.file} from {info.url} "
            f"and put it at {dest}"
        )
    assert source is not None
    import pooch
    import requests

    store = pooch.create(
        path=folder,
        base_url="",
        registry={info.file: f"sha256:{info.sha256}"},
        urls={info.file: source},
        retry_if_failed=retries,
    )
    download = _Downloader(info.name, timeout, progressbar=sys.stderr.isatty())
    with _new_folders(dest.parent), _quiet(pooch.get_logger()):
        try:
            store.fetch(info.file, downloader=download)
        except requests.HTTPError as err:
            raise _http_error(info.name, source, err) from None
        except (OSError, ValueError) as err:  # requests' errors are OSErrors
            actual = download.sha256
            if isinstance(err, ValueError) and actual not in (None, info.sha256):
                raise ChecksumMismatch(info.name, source, info.sha256, actual) from None
            raise FetchError(f"{info.name}: cannot download {source}: {_reason(err)}") from None
    dest.chmod(0o644)  # pooch's temporary file is private to the user; a set is not
    return dest
