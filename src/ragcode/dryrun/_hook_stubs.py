# mypy: ignore-errors
# ruff: noqa: F821
"""Runs inside the sandbox after ``_hook.py`` (same namespace: ``SPEC``, ``ROOT``): the stubs that
stand for the imports the environment lacks, and the finder that hands them out, only for imports
made by the repository's own code. Nothing here imports ragcode."""

import importlib.abc
import importlib.util
import os
import sys
import types

# -- stubs for missing imports ------------------------------------------------------------------
class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub(name)


class _StubBase(metaclass=_StubMeta):
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub(name)

    def __call__(self, *args, **kwargs):
        return _Stub("call")


class _Stub:
    """Anything: callable, indexable, iterable (empty), false, usable as a base class or a
    decorator (``@stub`` and ``@stub()`` give the function back)."""

    def __init__(self, name="stub"):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub(name)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], (types.FunctionType, type)):
            return args[0]
        return _Stub(self._name)

    def __mro_entries__(self, bases):
        return (_StubBase,)

    def __setattr__(self, name, value):
        pass

    def __getitem__(self, key):
        return _Stub(self._name)

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<stub {self._name}>"

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __add__(self, other):
        return self

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __add__
    __floordiv__ = __mod__ = __pow__ = __neg__ = __matmul__ = __or__ = __and__ = __add__

    def __contains__(self, item):
        return False

    def __hash__(self):
        return id(self)


class _StubModule(types.ModuleType):
    __all__ = []
    __version__ = "99.0"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self.__name__}.{name}")


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        STUBBED.append(module.__name__)


STUBBED = []


def _from_repository():
    """Whether the import being resolved was written in the repository's (or the answer's) code."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<")
                                 or frame.f_globals.get("__name__", "").startswith("importlib")):
        frame = frame.f_back  # the import machinery and this hook
    if frame is None:
        return False
    name = os.path.abspath(frame.f_code.co_filename)
    return name.startswith(ROOT + os.sep) or frame.f_globals.get("__name__") == "__main__"


PLATFORM_PROBES = {"msvcrt", "winreg", "nt", "winsound", "java", "org", "posix", "pwd", "grp", "termios", "fcntl"}


class _StubFinder(importlib.abc.MetaPathFinder):
    """Stubs a missing top-level module imported by the repository's code, and a missing part
    of the repository's own packages (a compiled extension never built: ``pkg._C``)."""

    @staticmethod
    def _own_part(package):
        origin = os.path.abspath(getattr(package, "__file__", None) or "/")
        return origin.startswith(ROOT + os.sep) and _from_repository()

    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        real_top = top in sys.modules and not isinstance(sys.modules[top], _StubModule)
        if top.startswith("_") or top in PLATFORM_PROBES:
            return None  # a platform probe (try: import _winapi): its absence is the answer
        if SPEC.get("stub_all"):  # second try: the first failed on a module missing anywhere
            return importlib.util.spec_from_loader(name, _StubLoader(), is_package=True)
        if "." in name and real_top and not self._own_part(sys.modules[top]):
            return None
        if "." not in name and not _from_repository():
            return None
        return importlib.util.spec_from_loader(name, _StubLoader(), is_package=True)
