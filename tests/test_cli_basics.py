"""First contact with the command line: --version, -v, every command taking --config and --set,
and install hints that survive rich (which would read ``[llamacpp]`` as markup)."""

from __future__ import annotations

import json
import logging
import sys

from typer.testing import CliRunner

from ragcode import __version__
from ragcode.cli import app, common

runner = CliRunner()


def test_version_prints_and_exits_0():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"ragcode {__version__}"


def test_verbose_before_a_command_sets_the_log_level(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "_VERBOSITY", {"level": 0})
    root = logging.getLogger()
    monkeypatch.setattr(root, "level", root.level)  # restored after the test
    res = runner.invoke(app, ["-vv", "mlbench", "prepare", "--repos", str(tmp_path), "--no-clone", "--json"])
    assert res.exit_code == 1  # nothing placed: every repository missing
    assert root.level == logging.DEBUG and common._VERBOSITY["level"] == 2
    common.setup_logging(quiet=True)  # a command's quiet default does not undo -v
    assert root.level == logging.DEBUG


def test_install_hint_keeps_its_extra_through_rich(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if the extra were not installed
    res = runner.invoke(app, ["generate", "train it", "--llm", "llamacpp"])
    assert res.exit_code == 2, res.output
    assert "pip install 'ragcode[llamacpp]'" in res.stderr
    assert "Traceback" not in res.output


def test_prepare_and_report_take_config_and_set_and_refuse_a_bad_one(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("retrieval:\n  mode: bm25\n")
    ok = runner.invoke(app, ["mlbench", "prepare", "--repos", str(tmp_path), "--no-clone", "--json",
                             "--config", str(cfg), "--set", "retrieval.k=5"])
    assert ok.exit_code == 1 and len(json.loads(ok.stdout)) == 14  # ran: 14 repositories missing
    bad = runner.invoke(app, ["mlbench", "prepare", "--repos", str(tmp_path), "--set", "retrieval.modee=x"])
    assert bad.exit_code == 2 and "retrieval.modee" in bad.stderr
    run = tmp_path / "run"
    run.mkdir()
    (run / "report-static.json").write_text(json.dumps({
        "policy": "static", "setting": "oracle", "n": 1, "pass@1": 1.0, "pass@2": 1.0, "pass@5": 1.0,
        "failures": {"model": 0, "infra": 0}, "source": str(run)}))
    shown = runner.invoke(app, ["mlbench", "report", str(run), "--config", str(cfg), "--set", "bench.policy=static"])
    assert shown.exit_code == 0 and "| run | oracle |" in shown.stdout
    refused = runner.invoke(app, ["mlbench", "report", str(run), "--set", "bench.policyy=static"])
    assert refused.exit_code == 2 and "bench.policyy" in refused.stderr


def test_ablate_config_is_the_base_of_every_cell_unless_the_spec_names_one(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text("retrieval:\n  k: 7\n")
    spec = tmp_path / "s.yaml"
    spec.write_text("axes:\n  retrieval.mode: [bm25, dense]\n")
    with_base = tmp_path / "with-base.yaml"
    with_base.write_text("base: base.yaml\naxes:\n  retrieval.mode: [bm25, dense]\n")

    def hashes(*args: str) -> list[str]:
        res = runner.invoke(app, ["ablate", *args, "--list", "--json"])
        assert res.exit_code == 0, res.output
        return [c["config_hash"] for c in json.loads(res.stdout)["cells"]]

    assert hashes(str(spec), "--config", str(base)) == hashes(str(with_base))
    assert hashes(str(spec), "--config", str(base)) != hashes(str(spec))
    both = runner.invoke(app, ["ablate", str(with_base), "--config", str(base), "--list"])
    assert both.exit_code == 2 and "give one of them" in both.stderr
