# mypy: ignore-errors
"""What a dry run's verdict depends on besides its cache key: the repository files it read and
the installed modules it imported. Two users, one code:

- inside the sandbox (sent after ``_hook_stubs.py``, in the hook's namespace): ``watch_reads``
  notes every file the program opens and every folder it lists under the repository copy, and
  ``dependencies`` says, at the final verdict, each such file's digest, each folder's, and the
  stamp of each top-level module imported from outside the repository (its distribution and
  version; where no distribution claims it, its file's size and time; ``None`` when it was
  missing and stubbed), with the places in the repository where a stubbed module would be found;
- on the host (``ragcode.dryrun.deps``, which imports this file): the same digests and stamps
  recomputed from the checkout and the configured interpreter's own ``sys.path``, to tell whether
  a cached verdict still holds.

Plain Python of any version a repository's interpreter may be, no annotations, no ragcode.
"""

import hashlib
import os
import sys
import time

_SEEN = {"read": set(), "written": set(), "listed": set(), "off": False}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_META = (".dist-info", ".egg-info")
RACY_NS = 2 * 10 ** 9


def file_digest(path):
    """sha256 of a file's bytes, ``None`` where there is no file."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()[:32]


def dir_digest(path):
    """sha256 of a folder's sorted entry names, ``None`` where there is no folder."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    return hashlib.sha256("\n".join(names).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def settled(mtime_ns):
    """Whether a folder last changed long enough ago for its time to tell a later change: file
    times tick coarsely, so a change within the same tick as a look would keep the time."""
    return int(time.time() * 1e9) - mtime_ns > RACY_NS


def _listing(folder, cache):
    try:
        key = ("ls", folder, os.stat(folder).st_mtime_ns)
    except OSError:
        return frozenset()
    if key in cache:
        return cache[key]
    try:
        names = frozenset(os.listdir(folder))
    except OSError:
        names = frozenset()
    if settled(key[2]):
        cache[key] = names
    return names


def _read(path, limit=1 << 22):
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return ""


def _version(meta):
    """'Name==Version' from a .dist-info/.egg-info folder's metadata."""
    text = _read(os.path.join(meta, "METADATA")) or _read(os.path.join(meta, "PKG-INFO"))
    fields = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields.setdefault(key.strip().lower(), value.strip())
    return "{}=={}".format(fields.get("name", os.path.basename(meta)), fields.get("version", "?"))


def _tops(meta, suffixes):
    """The top-level modules a distribution installs: its top_level.txt, else its RECORD."""
    listed = _read(os.path.join(meta, "top_level.txt")).split()
    if listed:
        return listed
    tops = set()
    for line in _read(os.path.join(meta, "RECORD"), 1 << 26).splitlines():
        first = line.split(",", 1)[0].replace("\\", "/").split("/", 1)[0]
        if not first or first.startswith(".") or first.endswith(_META) or first == "__pycache__":
            continue
        for suffix in suffixes:
            if first.endswith(suffix):
                first = first[:-len(suffix)]
                break
        tops.add(first)
    return sorted(tops)


def _norm(name):
    return name.lower().replace("-", "_").replace(".", "_")


def _dist(name, folder, suffixes, cache):
    """'Name==Version' of the distribution in ``folder`` that installs module ``name``, or ''.
    A like-named distribution is asked first (``absl`` -> ``absl_py``); only when none claims it
    are all of the folder's read."""
    metas = sorted(e for e in _listing(folder, cache) if e.endswith(_META)
                   and os.path.isdir(os.path.join(folder, e)))
    like = [m for m in metas if _norm(m.split("-", 1)[0]).startswith(_norm(name))]
    for meta in like:
        if name in _tops(os.path.join(folder, meta), suffixes):
            return _version(os.path.join(folder, meta))
    key = ("dists", folder, tuple(metas))
    if key not in cache:
        owners = {}
        for meta in metas:
            for top in _tops(os.path.join(folder, meta), suffixes):
                owners.setdefault(top, _version(os.path.join(folder, meta)))
        cache[key] = owners
    return cache[key].get(name, "")


def module_stamp(name, paths, suffixes, cache):
    """Where top-level module ``name`` comes from on ``paths``: 'Name==Version' of the distribution
    installing it, else 'file <size> <mtime>' of its file, ``None`` when it is on none of them."""
    for folder in paths:
        names = _listing(folder, cache)
        found = [os.path.join(folder, name)] if name in names else []
        found += [os.path.join(folder, name + s) for s in suffixes if name + s in names]
        if not found:
            continue
        dist = _dist(name, folder, suffixes, cache)
        if dist:
            return dist
        origin = found[0]
        init = os.path.join(origin, "__init__.py")
        try:
            st = os.stat(init if os.path.isfile(init) else origin)
        except OSError:
            return "file ?"
        return "file {} {}".format(st.st_size, st.st_mtime_ns)
    return None


# -- inside the sandbox -------------------------------------------------------------------------
def _inside(root, path):
    """``path`` relative to the repository copy ``root``, or None outside it."""
    try:
        full = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else None


def watch_reads(root):
    """Note, from now on, the files opened and the folders listed under ``root`` (the import
    system's own listings aside: the modules it imports are read from ``sys.modules``); False
    where the interpreter has no audit hooks (before 3.8): then no verdict is cached."""
    if not hasattr(sys, "addaudithook"):
        return False

    def hook(event, args):
        if _SEEN["off"] or event not in ("open", "os.listdir", "os.scandir") or not args:
            return
        if not isinstance(args[0], (str, bytes, os.PathLike)):
            return  # a file descriptor
        rel = _inside(root, args[0])
        if rel is None or "__pycache__" in rel.split(os.sep):
            return
        if event != "open":
            caller = sys._getframe(1)
            if not caller.f_code.co_filename.startswith("<frozen importlib"):
                _SEEN["listed"].add(rel)
            return
        mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
        written = any(c in (mode or "") for c in "wax+") or bool((flags or 0) & _WRITE_FLAGS)
        _SEEN["written" if written else "read"].add(rel)

    sys.addaudithook(hook)
    return True


def _is_stdlib(name):
    names = getattr(sys, "stdlib_module_names", ())
    return name in names or name in sys.builtin_module_names


def _from_outside(root, module):
    """Whether an imported module lives outside the repository copy (a library, or a stub)."""
    places = [getattr(module, "__file__", None)] + list(getattr(module, "__path__", None) or [])
    return not any(isinstance(p, str) and _inside(root, p) is not None for p in places)


def dependencies(root, paths, stubbed, wanted=()):
    """The verdict's dependencies (see the module doc): ``paths`` is the interpreter's own
    ``sys.path`` without the repository, ``stubbed`` the modules the hook stubbed, ``wanted``
    top-level modules stamped whether or not they were imported (a launcher's: ``None`` while it
    is not installed)."""
    _SEEN["off"] = True
    files = set(_SEEN["read"])
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        rel = _inside(root, path) if isinstance(path, str) and path else None
        if rel is not None and not rel.endswith(".pyc"):
            files.add(rel)
    dirs = set(_SEEN["listed"])
    here = [p or os.getcwd() for p in sys.path]
    here = [p for p in here if _inside(root, p) is not None or os.path.abspath(p) == root]
    for top in {n.split(".")[0] for n in stubbed}:
        for folder in here:  # where the repository would provide it, were it added
            rel = _inside(root, os.path.join(folder, top))
            files.update((rel + ".py", os.path.join(rel, "__init__.py")))
            dirs.add(rel)
    files -= _SEEN["written"]
    suffixes, cache = _suffixes(), {}
    tops = sorted({n.split(".")[0] for n, m in list(sys.modules.items()) if m is not None and n != "__main__"
                   and getattr(m, "__spec__", None) is not None and not n.startswith("_")
                   and not _is_stdlib(n.split(".")[0]) and _from_outside(root, m)} | set(wanted))
    return {"files": {rel: file_digest(os.path.join(root, rel)) for rel in sorted(files)},
            "dirs": {rel: dir_digest(os.path.join(root, rel)) for rel in sorted(dirs)},
            "modules": {top: module_stamp(top, paths, suffixes, cache) for top in tops}}


def _suffixes():
    import importlib.machinery

    return importlib.machinery.all_suffixes()
