"""`ragcode generate` through the real CLI app, with the scripted backend."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ragcode.cli import app

ANSWERS = '["Run:\\n```bash\\npython train.py --lr 0.01\\n```", "```python\\nimport os\\n```"]'


def test_generate_json_prints_candidates_with_metadata():
    result = CliRunner().invoke(app, ["generate", "train the model", "--llm", "scripted", "-n", "2",
                                      "--set", f"generation.llm.scripted_answers={ANSWERS}", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [d["answer_type"] for d in data] == ["bash", "python"]
    assert data[0]["code"] == "python train.py --lr 0.01"
    assert data[0]["metadata"]["template"].startswith("ragcode-v")
    assert data[0]["metadata"]["chunk_ids"] == []


def test_generate_quiet_prints_code_only_and_template_option():
    result = CliRunner().invoke(app, ["generate", "x", "--llm", "scripted", "-n", "1", "-q",
                                      "--template", "mlbench-none",
                                      "--set", f"generation.llm.scripted_answers={ANSWERS}"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "python train.py --lr 0.01"


def test_unknown_backend_is_a_clear_error():
    result = CliRunner().invoke(app, ["generate", "x", "--llm", "opnai"])
    assert result.exit_code == 2
    assert "unknown llm backend 'opnai'" in result.output and "openai" in result.output
