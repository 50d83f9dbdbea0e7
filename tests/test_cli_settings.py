"""One owner per setting: a command-line flag is only a spelling of its config override, so the
flag and ``--set`` give the same result, and no flag silently beats ``--set`` or ``--config``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ablation_helpers import make_world
from ragcode.cli import app

BM25_ONLY = ["--set", "embedder.enabled=false", "--set", "retrieval.mode=bm25"]


def invoke(*args: str):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_retrieve_index_root_flag_and_set_index_root_build_in_the_same_place(tmp_path, monkeypatch, gan_bench):
    monkeypatch.chdir(tmp_path)  # the default index.root ("indexes") would land here
    repos, tasks = gan_bench
    common = ["mlbench", "retrieve", "--tasks", str(tasks), "--repos", str(repos), "-q", *BM25_ONLY]
    invoke(*common, "--out", str(tmp_path / "a.jsonl"), "--index-root", str(tmp_path / "by-flag"))
    invoke(*common, "--out", str(tmp_path / "b.jsonl"), "--set", f"index.root={tmp_path / 'by-set'}")
    for root in ("by-flag", "by-set"):
        assert (tmp_path / root / "PyTorch-GAN" / "manifest.json").is_file(), root
    assert not (tmp_path / "indexes").exists()  # --set index.root is no longer ignored
    a = [json.loads(x)["context"] for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    b = [json.loads(x)["context"] for x in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert a == b


def test_a_config_file_index_root_reaches_retrieve_and_run_alike(tmp_path, monkeypatch, gan_bench):
    monkeypatch.chdir(tmp_path)
    repos, tasks = gan_bench
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"index:\n  root: {tmp_path / 'shared-idx'}\nembedder:\n  enabled: false\n"
                   "retrieval:\n  mode: bm25\n")
    invoke("mlbench", "retrieve", "--tasks", str(tasks), "--repos", str(repos), "-q",
           "--out", str(tmp_path / "c.jsonl"), "--config", str(cfg))
    manifest = tmp_path / "shared-idx" / "PyTorch-GAN" / "manifest.json"
    built = manifest.read_text()
    answer = json.dumps("python3 dcgan.py --lr 0.001")
    invoke("mlbench", "run", "--tasks", str(tasks), "--repos", str(repos), "--out", str(tmp_path / "run"),
           "--setting", "ragcode", "--llm", "scripted", "-n", "1", "-q", "--config", str(cfg),
           "--set", f"generation.llm.scripted_answers=[{answer}]")
    assert manifest.read_text() == built  # run reused the index retrieve built, in the same folder
    assert not (tmp_path / "indexes").exists()


def test_ablate_index_root_flag_and_set_index_root_agree(tmp_path):
    repos, tasks = make_world(tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(json.dumps({"name": "s", "set": {"embedder.enabled": False, "retrieval.mode": "bm25"},
                                "ks": [1]}))
    for name, how in (("flag", ["--index-root", str(tmp_path / "idx-flag")]),
                      ("set", ["--set", f"index.root={tmp_path / 'idx-set'}"])):
        invoke("ablate", str(spec), "--tasks", str(tasks), "--repos", str(repos),
               "--out", str(tmp_path / f"out-{name}"), "-q", *how)
        assert len(list((tmp_path / f"idx-{name}").iterdir())) == 2  # dgl and bert
        assert not (tmp_path / f"out-{name}" / "indexes").exists()
