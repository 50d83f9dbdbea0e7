"""File discovery: which files of a repository get chunked, and why the others do not.

``walk_repo`` returns every accepted file as a ``SourceFile`` (repository-relative POSIX path,
decoded text with ``\\n`` line endings) and a ``Counter`` of skip reasons:

- ``gitignored``: matched by a ``.gitignore`` (nested files too; the deepest file that has an
  opinion on a path wins, as in git) or by ``walk.exclude_globs``;
- ``excluded_dir``: a directory named in ``walk.exclude_dirs`` (counted once per directory);
- ``unsupported_type``: an extension that is binary by convention (images, archives, weights);
- ``binary``: a NUL byte in the first 8 KiB;
- ``too_large``: bigger than ``walk.max_file_bytes``;
- ``symlink_loop``: a symlinked directory whose target was already walked (loops and duplicates);
- ``symlink``: a symlink while ``walk.follow_symlinks`` is off; ``broken_symlink``;
- ``symlink_outside``: a symlink (to a file or a directory) whose fully resolved target lies
  outside the repository root: never followed, so a link to ``/etc`` or ``~/.ssh`` cannot put
  their contents into an index;
- ``not_regular``: not a regular file (a FIFO, a socket, a device), skipped before it is
  opened: reading a named pipe would block forever. Files are opened non-blocking and checked
  again on the open descriptor, so a file swapped for a pipe mid-walk cannot block either;
- ``undecodable_name``: a file or folder name that is not UTF-8 (no index, query or tool could
  name it; it used to stop the index run);
- ``unreadable``: permission or I/O errors. Nothing here is fatal.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pathspec

from ragcode.chunking.languages import EXTENSIONS
from ragcode.config import WalkConfig
from ragcode.errors import RepoNotFoundError
from ragcode.types import SourceFile

log = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8192

FILE_KINDS: tuple[str, ...] = (
    "markdown", "rst", "python", "code", "notebook", "shell", "config", "text", "skip",
)

_EXT_KIND: dict[str, str] = {
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    ".rst": "rst",
    ".py": "python", ".pyi": "python",
    ".ipynb": "notebook",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell",
    # other languages with a tree-sitter grammar (ragcode.chunking.languages)
    **{ext: "code" for ext, lang in EXTENSIONS.items() if lang not in ("python", "bash")},
    ".yaml": "config", ".yml": "config", ".json": "config", ".toml": "config",
    ".cfg": "config", ".ini": "config", ".jsonc": "config",
}

# Extensions that hold data or binaries by convention: never read.
_SKIP_EXTS = frozenset("""
.png .jpg .jpeg .gif .bmp .tif .tiff .ico .svg .webp .eps .psd .pdf .ps
.zip .tar .gz .tgz .bz2 .xz .7z .rar .whl .egg .jar
.pt .pth .ckpt .bin .safetensors .onnx .pb .h5 .hdf5 .npy .npz .pkl .pickle .joblib .mat
.tfrecord .lmdb .mdb .db .sqlite .parquet .arrow .feather .csv .tsv
.so .o .a .dll .dylib .exe .pyc .pyo .class
.mp3 .mp4 .wav .flac .ogg .avi .mov .mkv .webm .ttf .otf .woff .woff2
""".split())


def file_kind(path: str) -> str:
    """Kind of a file from its name: one of ``FILE_KINDS``. Unknown extensions are ``text``."""
    name = PurePosixPath(path).name
    lower = name.lower()
    suffix = PurePosixPath(lower).suffix
    if suffix in _EXT_KIND:
        return _EXT_KIND[suffix]
    if lower.startswith("readme"):
        return "markdown" if suffix in ("", ".txt") else "text"
    if suffix in _SKIP_EXTS:
        return "skip"
    return "text"


@dataclass
class WalkResult:
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    kinds: dict[str, str] = field(default_factory=dict)

    def file_kind(self, path: str) -> str:
        return self.kinds.get(path) or file_kind(path)

    def kind_counts(self) -> Counter[str]:
        return Counter(self.kinds[f.path] for f in self.files)


class _IgnoreRules:
    """``.gitignore`` files found so far, keyed by the directory (relative POSIX) holding them."""

    def __init__(self, root_globs: list[str], root: str):
        self._specs: dict[str, pathspec.PathSpec] = {}
        self._globs = pathspec.GitIgnoreSpec.from_lines(root_globs) if root_globs else None
        self._root = root

    def load(self, rel_dir: str, abs_dir: str) -> None:
        gi = os.path.join(abs_dir, ".gitignore")
        if not os.path.lexists(gi):
            return
        real = os.path.realpath(gi)
        if not _inside(real, self._root) or not os.path.isfile(real):
            return  # a link out of the repository, or a pipe: not read
        try:
            with open(real, "rb", opener=_open_nonblocking) as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    return
                text = fh.read().decode("utf-8", errors="replace")
            self._specs[rel_dir] = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
        except OSError as exc:
            log.warning("cannot read %s: %s", gi, exc)

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        probe = rel_path + "/" if is_dir else rel_path
        if self._globs is not None and self._globs.match_file(probe):
            return True
        parts = rel_path.split("/")
        # deepest .gitignore with an opinion wins
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth])
            spec = self._specs.get(base)
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            res = spec.check_file(sub)
            if res.include is not None:
                return bool(res.include)
        return False


def walk_repo(root: str | os.PathLike[str], cfg: WalkConfig | None = None) -> WalkResult:
    """Discover and read the files of the repository at ``root`` (see module docstring)."""
    cfg = cfg or WalkConfig()
    root_path = Path(root).expanduser()
    if not root_path.is_dir():
        raise RepoNotFoundError(
            f"repository {str(root)!r} does not exist or is not a directory; "
            "pass the path of a checked-out repository"
        )
    root_path = root_path.resolve()
    root_str = str(root_path)
    result = WalkResult(root=root_path)
    rules = _IgnoreRules(cfg.exclude_globs, root_str)
    exclude_dirs = set(cfg.exclude_dirs)
    visited: set[tuple[int, int]] = set()

    def on_error(exc: OSError) -> None:
        log.warning("cannot list %s: %s", exc.filename, exc)
        result.skipped["unreadable"] += 1

    for dirpath, dirnames, filenames in os.walk(
        root_path, followlinks=cfg.follow_symlinks, onerror=on_error
    ):
        rel_dir = os.path.relpath(dirpath, root_path).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        try:
            st = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            result.skipped["unreadable"] += 1
            continue
        ident = (st.st_dev, st.st_ino)
        if ident in visited:  # reached again through a symlink: a loop or a duplicate
            dirnames[:] = []
            result.skipped["symlink_loop"] += 1
            continue
        visited.add(ident)
        if cfg.respect_gitignore:
            rules.load(rel_dir, dirpath)

        keep_dirs = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            full = os.path.join(dirpath, d)
            if d in exclude_dirs:
                result.skipped["excluded_dir"] += 1
                continue
            if not _utf8(d):
                result.skipped["undecodable_name"] += 1
                continue
            if os.path.islink(full):
                if not cfg.follow_symlinks:
                    result.skipped["symlink"] += 1
                    continue
                if not os.path.exists(full):
                    result.skipped["broken_symlink"] += 1
                    continue
                try:
                    real = os.path.realpath(full)
                except OSError:
                    result.skipped["unreadable"] += 1
                    continue
                if not _inside(real, root_str):
                    result.skipped["symlink_outside"] += 1
                    continue
            if rules.ignored(rel, is_dir=True):
                result.skipped["gitignored"] += 1
                continue
            keep_dirs.append(d)
        dirnames[:] = keep_dirs

        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            full = os.path.join(dirpath, name)
            if name == ".gitignore":
                continue
            if not _utf8(name):
                result.skipped["undecodable_name"] += 1
                continue
            if os.path.islink(full) and not cfg.follow_symlinks:
                result.skipped["symlink"] += 1
                continue
            if rules.ignored(rel, is_dir=False):
                result.skipped["gitignored"] += 1
                continue
            kind = file_kind(rel)
            if kind == "skip":
                result.skipped["unsupported_type"] += 1
                continue
            reason, source = _read(full, rel, cfg.max_file_bytes, root_str)
            if reason:
                result.skipped[reason] += 1
                continue
            assert source is not None
            result.files.append(source)
            result.kinds[rel] = kind

    result.files.sort(key=lambda f: f.path)
    return result


def _utf8(name: str) -> bool:
    """Is ``name`` (as ``os.walk`` decoded it) valid UTF-8, with no escaped bytes?"""
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or below it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _open_nonblocking(path: str, flags: int) -> int:
    """``open`` opener: opening a FIFO returns at once instead of waiting for a writer."""
    return os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))


def _read(full: str, rel: str, max_bytes: int, root: str) -> tuple[str | None, SourceFile | None]:
    try:
        real = os.path.realpath(full)
    except OSError:  # a link the process may not follow (/proc/1/cwd)
        return "unreadable", None
    if not _inside(real, root):
        return "symlink_outside", None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return "broken_symlink", None
    except OSError as exc:
        return ("symlink_loop" if exc.errno == errno.ELOOP else "unreadable"), None
    if not stat.S_ISREG(st.st_mode):
        return "not_regular", None
    if st.st_size > max_bytes:
        return "too_large", None
    try:
        with open(real, "rb", opener=_open_nonblocking) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped since the stat
                return "not_regular", None
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        log.debug("unreadable %s: %s", full, exc)
        return "unreadable", None
    if len(data) > max_bytes:
        return "too_large", None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "binary", None
    decode_errors = False
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8-sig", errors="replace")
        decode_errors = True
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return None, SourceFile(
        path=rel,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        decode_errors=decode_errors,
    )
