"""Config resolution: defaults file in sync, overrides, base files, clear errors."""

from pathlib import Path

import pytest
import yaml

from ragcode.config import Config, load_config
from ragcode.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_default_yaml_matches_code_defaults():
    shipped = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    expected = Config().to_dict()
    expected["index"].pop("cache_dir")
    assert shipped == expected


def test_override_of_one_mapping_key_keeps_the_others():
    cfg = load_config(None, ["chunking.chunkers.markdown=lines", "retrieval.k=7"])
    assert cfg.chunking.chunkers["markdown"] == "lines"
    assert cfg.chunking.chunkers["python"] == Config().chunking.chunkers["python"]
    assert cfg.retrieval.k == 7


def test_file_with_base_and_partial_mapping(tmp_path):
    (tmp_path / "base.yaml").write_text("retrieval:\n  mode: bm25\n  k: 3\n")
    (tmp_path / "child.yaml").write_text(
        "base: base.yaml\nretrieval:\n  k: 9\nchunking:\n  chunkers:\n    rst: lines\n")
    cfg = load_config(tmp_path / "child.yaml")
    assert (cfg.retrieval.mode, cfg.retrieval.k) == ("bm25", 9)
    assert cfg.chunking.chunkers["rst"] == "lines"
    assert cfg.chunking.chunkers["markdown"] == "markdown"


def test_unknown_field_is_an_error_naming_it(tmp_path):
    with pytest.raises(ConfigError, match="retrieval.not_a_field"):
        load_config(None, ["retrieval.not_a_field=1"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")


def test_hash_changes_with_settings_and_section_hash_is_local():
    a, b = Config(), load_config(None, ["retrieval.k=3"])
    assert a.hash() != b.hash()
    assert a.section_hash("chunking") == b.section_hash("chunking")
