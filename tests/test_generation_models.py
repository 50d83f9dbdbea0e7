"""Offline weights: chunks from installed packages assembled once, verified, atomically."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace

import pytest

from ragcode.errors import ModelUnavailableError
from ragcode.generation import models
from ragcode.generation.models import PACKAGED_MODELS, PackagedModel, assemble, resolve_model

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    """Three tiny packages ``rgtestpart1..3`` shaped like the real weight packages."""
    site = tmp_path / "site"
    for i, data in enumerate(CHUNKS, 1):
        pkg = site / f"rgtestpart{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{i:02d}.bin')\n")
    monkeypatch.syspath_prepend(str(site))
    yield PackagedModel(alias="test-model", filename="test.gguf", package_prefix="rgtestpart", parts=3,
                        version="0.1.0", sha256=hashlib.sha256(b"".join(CHUNKS)).hexdigest(),
                        size=sum(map(len, CHUNKS)), extra="test-extra", upstream="test")
    for i in range(1, 4):
        sys.modules.pop(f"rgtestpart{i}", None)


def test_assemble_concatenates_in_order_and_stamps_the_hash(fake_parts, tmp_path):
    path = assemble(fake_parts, tmp_path / "cache")
    assert path == tmp_path / "cache" / "models" / "test.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert (path.parent / "test.gguf.sha256").read_text().strip() == fake_parts.sha256
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".part")]  # no temp left


def test_assembled_file_is_reused_not_rebuilt(fake_parts, tmp_path, monkeypatch):
    first = assemble(fake_parts, tmp_path)
    monkeypatch.setattr(models, "part_paths", lambda m: pytest.fail("rebuilt a finished file"))
    assert assemble(fake_parts, tmp_path) == first


def test_truncated_file_is_rebuilt(fake_parts, tmp_path):
    path = assemble(fake_parts, tmp_path)
    path.write_bytes(b"GGUF")
    assert assemble(fake_parts, tmp_path).read_bytes() == b"".join(CHUNKS)


def test_hash_mismatch_leaves_no_file_and_names_the_fix(fake_parts, tmp_path):
    wrong = replace(fake_parts, sha256="0" * 64)
    with pytest.raises(ModelUnavailableError, match="sha256 .* expected 0000") as err:
        assemble(wrong, tmp_path)
    assert "pip install 'ragcode[test-extra]'" in str(err.value)
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_packages_name_the_pip_command(tmp_path):
    ghost = PackagedModel(alias="ghost", filename="g.gguf", package_prefix="rg-no-such-pkg-", parts=2,
                          version="1.2.3", sha256="", size=0, extra="ghost-extra", upstream="x")
    with pytest.raises(ModelUnavailableError) as err:
        assemble(ghost, tmp_path)
    msg = str(err.value)
    assert "rg-no-such-pkg-1" in msg and "pip install 'ragcode[ghost-extra]'" in msg
    assert "rg-no-such-pkg-2==1.2.3" in msg


def test_resolve_model_paths_and_names(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(b"x")
    assert resolve_model(str(f), tmp_path) == str(f.resolve())
    assert resolve_model("Qwen/Qwen2.5-Coder-7B-Instruct", tmp_path) == "Qwen/Qwen2.5-Coder-7B-Instruct"


def test_pinned_models_are_complete():
    for alias, m in PACKAGED_MODELS.items():
        assert alias.startswith("qwen2.5-coder-")
        assert len(m.sha256) == 64 and m.size > 100_000_000
        assert m.licence == "Apache-2.0" and m.extra.startswith("qwen")


def test_first_assembly_prints_one_progress_line_with_size_and_place(fake_parts, tmp_path, capsys):
    path = assemble(fake_parts, tmp_path)
    err = capsys.readouterr().err
    assert "assembling model test-model (1.8 KB, 3 packaged chunks)" in err and str(path) in err
    assemble(fake_parts, tmp_path)  # already assembled: silent
    assert capsys.readouterr().err == ""


def test_human_size_reads_like_pip():
    assert [models.human_size(n) for n in (5, 1782, 2_400_000_000)] == ["5 B", "1.8 KB", "2.4 GB"]
