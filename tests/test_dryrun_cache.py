"""What a dry-run verdict is cached under and when it is not reused: a cut run (timeout, crash) is
a warning and never cached; a cached verdict follows every repository file the run read and the
installed modules it imported, the interpreter's Python version, ragcode's version and the dry
run's settings; a corrupted cache file is a miss; two processes checking at once agree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from dryrun_helpers import ABSL, ARGPARSE, CONFIGURATOR, NANO_TRAIN, needs_bwrap, needs_library, one, runner, write
from ragcode.check import CheckContext, check_answer
from ragcode.config import Config, ExecutionConfig
from ragcode.dryrun import sandbox
from ragcode.dryrun.checker import ParseChecker, overrule
from ragcode.dryrun.entry import entries
from ragcode.dryrun.sandbox import DryRunner

pytestmark = needs_bwrap

SLOW = """
import argparse, time
time.sleep(10 ** 6)  # work before the flags: a model download, a lock, a prompt
p = argparse.ArgumentParser()
p.add_argument("--mode", choices=["fast", "slow"])
p.parse_args()
"""
KILLED = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n" + ARGPARSE
TRAIN_WITH_HELPER = "from helper import parser\n\nparser().parse_args()\n"
HELPER = """
import argparse

def parser():
    p = argparse.ArgumentParser(prog="train.py")
    p.add_argument("--dataset", choices=["a"])
    return p
"""
ABSL_LOOP = ABSL.replace('flags.DEFINE_integer("num_layers", 2, "layers")\n',
                         'for name in ("num_layers", "num_heads"):\n    flags.DEFINE_integer(name, 2, name)\n')
FAKE_PARSE_USER = """
import argparse
from fakeparse import CHOICES
p = argparse.ArgumentParser(prog="run.py")
p.add_argument("--backend", choices=CHOICES)
p.parse_args()
"""


def _checker(run: DryRunner) -> ParseChecker:
    checker = ParseChecker(Config())
    checker.runner = run
    return checker


def _counted(run: DryRunner) -> list[str]:
    """The entry points ``run`` starts in the sandbox from now on (cache hits are not counted)."""
    started: list[str] = []
    real = run._sandboxed

    def sandboxed(entry, ctx):  # noqa: ANN001, ANN202
        started.append(entry.target)
        return real(entry, ctx)

    run._sandboxed = sandboxed  # type: ignore[method-assign]
    return started


def _cached(run: DryRunner) -> list[Path]:
    return sorted(run.cache_dir.rglob("*.json"))


# -- a cut run is its own finding, never cached (issue 35, 1) -----------------------------------
def test_a_parse_that_times_out_is_a_warning_naming_the_limit_and_is_never_cached(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"slow.py": SLOW})
    run = runner(tmp_path, timeout_s=3)
    started = _counted(run)
    for _ in range(2):
        (f,) = check_answer("python slow.py --mode medium", "bash", CheckContext(repo), [_checker(run)])
        assert (f.code, f.severity, f.target) == ("parse-unfinished", "warning", "slow.py")
        assert "within its 3 s limit" in f.message
    assert started == ["slow.py", "slow.py"]  # the second check ran it again
    assert _cached(run) == []


def test_a_run_killed_before_its_parser_is_a_warning_and_is_never_cached(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": KILLED})
    run = runner(tmp_path)
    r = one("python train.py --model-type ViT-L", repo, run)
    assert (r.status, r.cut, r.cause) == ("unreached", "crash", "killed by SIGKILL")
    (f,) = check_answer("python train.py --model-type ViT-L", "bash", CheckContext(repo), [_checker(run)])
    assert f.code == "parse-unfinished" and "killed by SIGKILL" in f.message
    assert _cached(run) == []


def test_a_cut_run_overrules_no_static_finding() -> None:
    from ragcode.check import Finding
    from ragcode.dryrun.result import ACCEPTED, Entry, ParseResult

    static = [Finding("bash", "unknown-flag", "--depth is not a flag of train.py")]
    partial = ParseResult(ACCEPTED, Entry("script", "train.py"), {"size": 1}, cut="timeout", cause="3 s")
    assert overrule(static, [partial]) == static
    assert overrule(static, [replace(partial, cut="", cause="")]) == []


# -- the verdict follows the files the run read (issue 35, 2) -----------------------------------
def test_an_edit_of_an_imported_repository_module_is_seen_without_clearing_the_cache(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": TRAIN_WITH_HELPER, "helper.py": HELPER})
    run = runner(tmp_path)
    checker, ctx = _checker(run), CheckContext(repo)
    (f,) = check_answer("python train.py --dataset b", "bash", ctx, [checker])
    assert f.code == "parse-rejected" and "invalid choice: 'b'" in f.message
    started = _counted(run)
    assert [x.code for x in check_answer("python train.py --dataset b", "bash", ctx, [_checker(run)])] == [
        "parse-rejected"]
    assert started == []  # nothing changed: the cached verdict
    (repo / "helper.py").write_text(HELPER.replace('["a"]', '["a", "b"]'))
    assert check_answer("python train.py --dataset b", "bash", ctx, [_checker(run)]) == []
    assert started == ["train.py"]
    record = json.loads(_cached(run)[0].read_text())
    assert set(record["deps"]["files"]) == {"train.py", "helper.py"}


def test_a_file_read_by_exec_open_and_a_module_added_where_a_stub_stood_are_seen(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": NANO_TRAIN, "configurator.py": CONFIGURATOR,
                                     "config/small.py": "n_layer = 4\n"})
    run = runner(tmp_path)
    assert one("python train.py config/small.py", repo, run).params["n_layer"] == 4
    (repo / "config" / "small.py").write_text("n_layer = 8\n")
    assert one("python train.py config/small.py", repo, run).params["n_layer"] == 8
    (repo / "torchlike_missing_lib.py").write_text("raise ImportError('the real one, unbuilt')\n")
    r = one("python train.py config/small.py", repo, run)
    assert r.status == "unreached" and "unbuilt" in r.message  # no longer stubbed: the repository's own


# -- the verdict follows the installed modules the run imported (issue 33, 1; issue 35, 3) ------
def _install_fake(site: Path, version: str, choices: list[str]) -> None:
    """``pip install fakeparse==version`` as files: the package and its .dist-info."""
    for old in site.glob("fakeparse*"):
        shutil.rmtree(old)
    (site / "fakeparse").mkdir()
    (site / "fakeparse" / "__init__.py").write_text(f"CHOICES = {choices!r}\n")
    meta = site / f"fakeparse-{version}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakeparse\nVersion: {version}\n")
    (meta / "top_level.txt").write_text("fakeparse\n")


def test_installing_or_upgrading_a_library_the_script_imports_is_a_new_verdict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    repo = write(tmp_path / "repo", {"run.py": FAKE_PARSE_USER})
    run = DryRunner(ExecutionConfig(ro_paths=[str(site)], env={"PYTHONPATH": str(site)}), tmp_path / "cache")
    code = "python run.py --backend b"
    absent = one(code, repo, run)
    # stubbed, its choice list comes out empty: no list its author wrote, so any value passes
    assert absent.status == "accepted" and "fakeparse" in absent.stubbed
    _install_fake(site, "1.0", ["a"])
    v1 = one(code, repo, run)
    assert v1.status == "rejected" and "choose from 'a'" in v1.message and not v1.stubbed
    assert json.loads(_cached(run)[0].read_text())["deps"]["modules"]["fakeparse"] == "fakeparse==1.0"
    _install_fake(site, "2.0", ["a", "b"])
    assert one(code, repo, run).status == "accepted"
    started = _counted(run)
    assert one(code, repo, run).status == "accepted" and started == []  # unchanged since: cached


@needs_library("absl")
def test_absl_installed_after_a_check_turns_the_stale_silence_into_the_unknown_flag(tmp_path: Path) -> None:
    """Flags defined in a loop, which no static reading sees: without absl-py the script runs on
    stubs and no parser speaks; once it is installed, the same check reports the unknown flag."""
    from dryrun_helpers import library_dir

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    repo = write(tmp_path / "repo", {"main.py": ABSL_LOOP})
    ctx, code = CheckContext(repo), "python main.py --num_layer 4"
    run = DryRunner(ExecutionConfig(python=str(python)), tmp_path / "cache")
    assert check_answer(code, "bash", ctx, [_checker(run)]) == []  # absl missing: stubbed, unreached
    source = Path(library_dir("absl") or "")
    shutil.copytree(source / "absl", site / "absl")
    for meta in source.glob("absl_py-*.dist-info"):
        shutil.copytree(meta, site / meta.name)
    (f,) = check_answer(code, "bash", ctx, [_checker(run)])
    assert f.code == "parse-rejected" and "num_layer" in f.message
    fresh = DryRunner(ExecutionConfig(python=str(python)), tmp_path / "fresh-cache")
    assert [x.message for x in check_answer(code, "bash", ctx, [_checker(fresh)])] == [f.message]


# -- the first key: interpreter, Python and ragcode versions, settings (issue 33, 1) -----------
def test_the_key_covers_the_python_and_ragcode_versions_and_the_dry_run_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    ctx = CheckContext(repo)
    (entry,) = entries("python train.py --lr 1", "bash", ctx)
    run = runner(tmp_path)
    facts = run.interpreter(ctx)
    assert facts.version == sys.version and facts.executable == sys.executable
    base = run._key(entry, ctx, facts)
    assert run._key(entry, ctx, facts) == base
    assert run._key(entry, ctx, replace(facts, version="3.12.1 (main)")) != base
    assert runner(tmp_path, timeout_s=5)._key(entry, ctx, facts) != base
    more_memory = DryRunner(run.execution.model_copy(update={"memory_mb": 16384}), run.cache_dir)
    assert more_memory._key(entry, ctx, facts) != base
    monkeypatch.setattr(sandbox, "__version__", "99.0.0")
    assert run._key(entry, ctx, facts) != base


def test_the_configured_interpreter_is_asked_for_its_version_not_the_hosts(tmp_path: Path) -> None:
    """An interpreter that says it is Python 3.99 (this one, behind a wrapper that answers the
    dry run's probe for itself): its version and path are what the key and the lookup read."""
    fake = tmp_path / "bin" / "python3.99"
    fake.parent.mkdir()
    fake.write_text(f"""#!/bin/sh
case "$2" in *importlib.machinery*) echo '["3.99.0 (fake)", ["/nowhere"], [".py"]]'; exit 0;; esac
exec {sys.executable} "$@"
""")
    fake.chmod(0o755)
    ctx = CheckContext(write(tmp_path / "repo", {"train.py": ARGPARSE}))
    run = DryRunner(ExecutionConfig(python=str(fake)), tmp_path / "cache")
    facts = run.interpreter(ctx)
    assert (facts.executable, facts.version, facts.path) == (str(fake), "3.99.0 (fake)", ("/nowhere",))
    (entry,) = entries("python train.py --lr 1", "bash", ctx)
    assert run._key(entry, ctx, facts) != runner(tmp_path)._key(entry, ctx, runner(tmp_path).interpreter(ctx))


# -- a corrupted cache file, two checks at once (issue 33, 1) -----------------------------------
@pytest.mark.parametrize("garbage", [b'{"status": "rejec', b"\x00\xff", b"[1, 2]", b'{"status": "accepted"}'])
def test_a_corrupted_cache_file_is_a_miss_and_is_replaced_by_a_valid_one(tmp_path: Path, garbage: bytes) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    run = runner(tmp_path)
    code = "python train.py --model-type ViT-L"
    assert one(code, repo, run).status == "rejected"
    (path,) = _cached(run)
    path.write_bytes(garbage)
    started = _counted(run)
    assert one(code, repo, run).status == "rejected" and started == ["train.py"]
    assert json.loads(path.read_text())["status"] == "rejected"


CHILD = """
import sys, time
from pathlib import Path
from ragcode.check import CheckContext
from ragcode.dryrun import dry_run
from ragcode.dryrun.sandbox import DryRunner

repo, cache, go = map(Path, sys.argv[1:4])
while not go.exists():  # both children start their check at the same moment
    time.sleep(0.01)
(result,) = dry_run("python train.py --model-type ViT-L", "bash", CheckContext(repo), DryRunner(cache_dir=cache))
print(result.status, result.message)
"""


def test_two_processes_checking_the_same_answer_at_once_agree_and_leave_one_valid_file(tmp_path: Path) -> None:
    import ragcode

    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    cache, go = tmp_path / "cache", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(ragcode.__file__).parent.parent)}
    children = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHILD), str(repo), str(cache), str(go)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for _ in range(2)]
    go.touch()
    outputs = [child.communicate(timeout=300) for child in children]
    for (out, err), child in zip(outputs, children):
        assert child.returncode == 0, err
        assert out.startswith("rejected") and "invalid choice: 'ViT-L'" in out
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    assert len(files) == 1 and files[0].suffix == ".json"  # no temp file left behind
    assert json.loads(files[0].read_text())["status"] == "rejected"
    run = DryRunner(cache_dir=cache)
    started = _counted(run)
    assert one("python train.py --model-type ViT-L", repo, run).status == "rejected" and started == []


@needs_bwrap
def test_a_verdict_that_depends_on_hundreds_of_files_is_still_read(tmp_path: Path) -> None:
    """The record lists every file the run read; a script importing a large package (detectron2's
    train_net.py) made it longer than the 4000 bytes of stdout an answer's run keeps, and the
    verdict was lost as a run that 'ended without a parse'."""
    files = {f"pkg/module_with_a_long_name_{i}.py": f"VALUE_{i} = {i}\n" for i in range(300)}
    files["pkg/__init__.py"] = "".join(f"from pkg.module_with_a_long_name_{i} import VALUE_{i}\n" for i in range(300))
    files["train.py"] = "import argparse\nimport pkg\np = argparse.ArgumentParser()\np.add_argument('--lr')\np.parse_args()\n"
    repo = write(tmp_path / "repo", files)
    r = one("python train.py --lr 1", repo, runner(tmp_path))
    assert r.status == "accepted" and not r.cut and r.params == {"lr": "1"}
