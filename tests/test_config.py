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


# --- value ranges -----------------------------------------------------------------------------

@pytest.mark.parametrize("override, message", [
    ("execution.memory_mb=-1", "execution.memory_mb = -1: must be > 0"),  # would switch the limit off
    ("execution.cpu_s=-1", "execution.cpu_s = -1: must be > 0"),
    ("execution.timeout_s=-1", "execution.timeout_s = -1: must be > 0"),  # every answer a timeout
    ("execution.max_procs=0", "execution.max_procs = 0: must be > 0"),
    ("execution.disk_mb=0", "execution.disk_mb = 0: must be > 0"),
    ("execution.sandbox_uid_base=-1", "execution.sandbox_uid_base = -1: must be in [0, 4294000000]"),
    ("context.budget=-100", "context.budget = -100: must be > 0"),  # an empty context
    ("retrieval.k=0", "retrieval.k = 0: must be > 0"),
    ("retrieval.dense_weight=1.5", "retrieval.dense_weight = 1.5: must be in [0, 1]"),
    ("retrieval.kind_weights.code=-0.5", "retrieval.kind_weights.code = -0.5: must be >= 0"),
    ("rerank.top_n=-3", "rerank.top_n = -3: must be > 0"),
    ("generation.n=0", "generation.n = 0: must be > 0"),
    ("generation.llm.top_p=0", "generation.llm.top_p = 0: must be in (0, 1]"),
    ("generation.llm.timeout_s=0", "generation.llm.timeout_s = 0: must be > 0"),
    ("embedder.batch_size=0", "embedder.batch_size = 0: must be > 0"),
    ("chunking.text.overlap_lines=-1", "chunking.text.overlap_lines = -1: must be >= 0"),
    ("bench.exec_timeout_s=-2", "bench.exec_timeout_s = -2: must be >= 0"),
])
def test_out_of_range_value_names_the_dotted_field_and_the_range(override, message):
    with pytest.raises(ConfigError) as err:
        load_config(None, [override])
    assert message in str(err.value) and "\n" not in str(err.value)


def test_every_range_error_is_named_on_one_line():
    with pytest.raises(ConfigError) as err:
        load_config(None, ["execution.memory_mb=-1", "context.budget=0", "retrieval.nope=1"])
    text = str(err.value)
    assert "\n" not in text
    for part in ("execution.memory_mb", "context.budget", "retrieval.nope: Extra inputs"):
        assert part in text


def test_values_at_the_edge_of_a_range_still_load():
    cfg = load_config(None, [
        "context.expand_top=0", "context.section_top=0", "generation.context_tokens=0",
        "retrieval.duplicate_threshold=1", "retrieval.dense_weight=0", "bench.exec_timeout_s=0",
        "bench.legacy_require_n=0", "execution.sandbox_uid_base=0", "generation.llm.temperature=0",
        "generation.llm.top_p=1", "generation.llm.n_threads=0"])
    assert cfg.retrieval.duplicate_threshold == 1 and cfg.execution.sandbox_uid_base == 0


def test_models_reject_out_of_range_values_built_in_code_too():
    from pydantic import ValidationError

    from ragcode.config import ExecutionConfig

    with pytest.raises(ValidationError):
        ExecutionConfig(memory_mb=-1)
    ex = ExecutionConfig()
    with pytest.raises(ValidationError):
        ex.cpu_s = -1  # assignment is validated as well


def test_a_missing_scratch_dir_is_refused_and_an_existing_one_kept(tmp_path):
    with pytest.raises(ConfigError, match=r"execution.scratch_dir = '.*nope': no such folder"):
        load_config(None, [f"execution.scratch_dir={tmp_path / 'nope'}"])
    assert load_config(None, [f"execution.scratch_dir={tmp_path}"]).execution.scratch_dir == str(tmp_path)


def test_override_or_file_that_is_not_yaml_is_a_one_line_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not valid YAML") as err:
        load_config(None, ["retrieval.k=[1,"])
    assert "\n" not in str(err.value)
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval:\n  k: [1, 2\n")
    with pytest.raises(ConfigError, match="bad.yaml is not valid YAML") as err:
        load_config(bad)
    assert "\n" not in str(err.value)


def test_shipped_configs_load_within_the_ranges():
    from ragcode.ablation import load_grid

    assert load_config(ROOT / "configs" / "default.yaml").hash() == Config().hash()
    for preset in sorted((ROOT / "configs" / "ablation").glob("*.yaml")):
        assert load_grid(preset).expand(), preset
