"""The symbol index and api chunks: definitions read with tree-sitter, api listings and their
links, the symbols table of an index (incremental), name queries, the search kind filter."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcode.chunking import chunk_file, chunk_repo
from ragcode.chunking.api import call_form, chunk_api
from ragcode.chunking.symbols import extract_symbols, module_name
from ragcode.cli import app
from ragcode.config import ChunkingConfig, load_config
from ragcode.types import SourceFile, sha256_text

MODEL = textwrap.dedent('''\
    """A tiny GPT."""
    import math
    import torch.nn as nn

    model_registry = {
        "gpt2": "GPT",
    }


    def get_lr(it, warmup=10):
        """Learning rate schedule: warmup, then cosine decay.

        More text."""
        return math.cos(it) * helper(it)


    def _private(x):
        return x


    class GPT(nn.Module):
        """The full GPT language model."""

        def __init__(self, config):
            super().__init__()
            self.config = config

        @classmethod
        def from_pretrained(cls, model_type,
                            override_args=None):  # the OpenAI weights
            \'\'\'Load OpenAI GPT-2 weights.\'\'\'
            model = GPT(config)
            model.crop_block_size(3)
            return model

        def get_num_params(self, non_embedding: bool = True) -> int:
            """Return the number of parameters in the model."""
            def inner():
                pass
            return sum(p.numel() for p in self.parameters())

        def _hidden(self):
            pass


    try:
        import fast
    except ImportError:
        def fallback_kernel(a, *args, **kw):
            pass
    ''')

README = textwrap.dedent('''\
    # nano

    A tiny GPT, with a learning rate schedule described at length: the rate, the rate, the rate
    follows a warmup and then a cosine decay, and the learning rate is the rate.

    ## Usage

    ```python
    from nano.model import GPT
    model = GPT.from_pretrained("gpt2")
    print(model.get_num_params())
    ```
    ''')


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _by_name(symbols):
    return {s.qualname: s for s in symbols}


def test_symbols_have_qualified_names_signatures_decorators_and_docstrings():
    syms = _by_name(extract_symbols("src/nano/model.py", MODEL))
    assert set(syms) == {
        "nano.model.get_lr", "nano.model._private", "nano.model.GPT", "nano.model.GPT.__init__",
        "nano.model.GPT.from_pretrained", "nano.model.GPT.get_num_params",
        "nano.model.GPT._hidden", "nano.model.fallback_kernel",
        "nano.model.model_registry"}  # not the nested inner()
    reg = syms["nano.model.model_registry"]
    assert (reg.kind, reg.signature, reg.line, reg.end_line) == (
        "variable", "model_registry = {", 5, 7)
    lr = syms["nano.model.get_lr"]
    assert (lr.kind, lr.signature, lr.doc) == (
        "function", "def get_lr(it, warmup=10)",
        "Learning rate schedule: warmup, then cosine decay.")
    assert lr.refs == ("cos", "helper") and lr.line == 10
    fp = syms["nano.model.GPT.from_pretrained"]
    assert fp.kind == "method" and fp.parent == "GPT" and fp.decorators == ("classmethod",)
    assert fp.signature == "def from_pretrained(cls, model_type, override_args=None)"
    assert fp.doc == "Load OpenAI GPT-2 weights." and "crop_block_size" in fp.refs
    gpt = syms["nano.model.GPT"]
    assert gpt.kind == "class" and gpt.bases == ("nn.Module",)
    assert gpt.doc == "The full GPT language model."
    assert syms["nano.model.GPT.get_num_params"].signature == \
        "def get_num_params(self, non_embedding: bool = True) -> int"
    assert not syms["nano.model._private"].public and syms["nano.model.GPT.__init__"].public


@pytest.mark.parametrize("path,module", [
    ("src/pkg/model.py", "pkg.model"), ("pkg/__init__.py", "pkg"), ("train.py", "train"),
    ("my-tools/run.py", "my_tools.run")])
def test_module_names_from_paths(path, module):
    assert module_name(path) == module


def test_api_chunk_lists_public_callables_with_signatures_and_one_docstring_line():
    chunks = chunk_api(_file("nano/model.py", MODEL), ChunkingConfig())
    assert len(chunks) == 1
    api = chunks[0]
    assert api.kind == "api" and api.symbol == "nano.model"
    assert api.text.split("\n") == [
        "# API of nano.model (nano/model.py)",
        "def get_lr(it, warmup=10) - Learning rate schedule: warmup, then cosine decay.",
        "class GPT(nn.Module) - The full GPT language model.",
        "  GPT(config)",
        "  @classmethod GPT.from_pretrained(model_type, override_args=None) - Load OpenAI GPT-2 "
        "weights.",
        "  GPT.get_num_params(non_embedding: bool = True) -> int - Return the number of "
        "parameters in the model.",
        "def fallback_kernel(a, *args, **kw)",
    ]
    assert "_private" not in api.text and "_hidden" not in api.text
    assert api.metadata["listed"][:2] == ["nano.model.get_lr", "nano.model.GPT"]
    # every definition, private ones too, travels on the first code chunk (the symbols table)
    chunks = chunk_file(_file("nano/model.py", MODEL), ChunkingConfig())
    first = next(c for c in chunks if c.kind == "code")
    assert {s["name"] for s in first.metadata["definitions"]} >= {"_private", "_hidden", "get_lr"}
    assert not any("definitions" in c.metadata for c in chunks if c is not first)


def test_api_chunk_lists_a_public_alias_of_the_modules_own_function_under_its_own_name():
    text = textwrap.dedent("""
        def build_vit_h(checkpoint=None):
            \"\"\"The huge model.\"\"\"

        class Net:
            pass

        build = build_vit_h
        build = build_vit_h
        Model = Net
        _hidden = build_vit_h
        device = cuda
        build_vit_h = build_vit_h
    """)
    api = chunk_api(_file("pkg/build.py", text), ChunkingConfig())[0]
    lines = api.text.split("\n")
    assert lines[-2:] == ["def build(checkpoint=None) - the same as build_vit_h", "class Model - the same as Net"]
    assert api.metadata["listed"][-2:] == ["pkg.build.build", "pkg.build.Model"]
    assert "_hidden" not in api.text and "device" not in api.text  # private names and other values stay out


def test_api_chunks_split_long_modules_and_skip_tests():
    body = "".join(f"def function_number_{i}(alpha, beta, gamma=3):\n    \"\"\"Doc {i}.\"\"\"\n\n"
                   for i in range(80))
    cfg = ChunkingConfig()
    chunks = chunk_api(_file("pkg/many.py", body), cfg)
    assert len(chunks) > 1 and all(len(c.text) <= cfg.api.max_chars for c in chunks)
    assert sum(len(c.metadata["listed"]) for c in chunks) == 80
    assert chunk_api(_file("tests/test_many.py", body), cfg) == []
    off = ChunkingConfig.model_validate({"api": {"enabled": False}})
    assert not [c for c in chunk_file(_file("pkg/many.py", body), off) if c.kind == "api"]


def test_call_form_drops_self_and_spells_the_constructor():
    syms = _by_name(extract_symbols("m.py", MODEL))
    assert call_form(syms["m.GPT.__init__"]) == "GPT(config)"
    assert call_form(syms["m.GPT.get_num_params"]) == \
        "GPT.get_num_params(non_embedding: bool = True) -> int"


def _make_repo(root: Path) -> Path:
    (root / "nano").mkdir(parents=True)
    (root / "nano" / "model.py").write_text(MODEL)
    (root / "nano" / "data.py").write_text(
        'def load_shards(folder):\n    """Read the token shards of a folder."""\n    return []\n')
    (root / "nano" / "utils.py").write_text(  # private definitions only: no api chunk
        "def _prepare_image(raw, size):\n    return raw.resize(size)\n")
    (root / "README.md").write_text(README)
    return root


def test_readme_passage_links_the_api_chunk_it_calls(tmp_path):
    repo = chunk_repo(_make_repo(tmp_path / "r"))
    chunks = repo.all_chunks()
    api = next(c for c in chunks if c.kind == "api" and c.path == "nano/model.py")
    usage = next(c for c in chunks if c.kind == "markdown" and "from_pretrained" in c.text)
    assert usage.metadata["api_links"] == [api.id]
    assert usage.id in api.metadata["api_links"]
    data_api = next(c for c in chunks if c.kind == "api" and c.path == "nano/data.py")
    assert "api_links" not in data_api.metadata  # nothing calls load_shards


@pytest.fixture()
def nano_index(tmp_path):
    from ragcode.index.build import index_repo

    repo = _make_repo(tmp_path / "nano-repo")
    cfg = load_config(None, ["embedder.enabled=false", f"index.cache_dir={tmp_path / 'cache'}"])
    index_repo(repo, cfg, name="nano", out=tmp_path / "indexes", progress=False).close()
    return repo, cfg, tmp_path / "indexes"


def test_index_stores_symbols_and_updates_them_incrementally(nano_index):
    from ragcode.index.build import index_repo

    repo, cfg, out = nano_index
    from ragcode.index.store import load_index

    idx = load_index(out / "nano")
    (lr,) = idx.symbols("get_lr")
    assert lr["qualname"] == "nano.model.get_lr" and lr["path"] == "nano/model.py"
    assert idx.symbols("nano.data.load_shards")[0]["doc"] == "Read the token shards of a folder."
    idx.close()
    (repo / "nano" / "data.py").write_text(
        'def load_tokens(folder, split="train"):\n    """Read one split."""\n    return []\n')
    idx = index_repo(repo, cfg, name="nano", out=out, progress=False)
    assert idx.summary.files_changed == 1 and idx.summary.files_unchanged == 3
    assert idx.symbols("load_shards") == []
    assert idx.symbols("load_tokens")[0]["signature"] == 'def load_tokens(folder, split="train")'
    assert idx.symbols("get_lr")  # the unchanged module keeps its definitions
    assert idx.symbols("_prepare_image")[0]["path"] == "nano/utils.py"  # no api chunk there
    idx.close()
    (repo / "nano" / "data.py").unlink()
    idx = index_repo(repo, cfg, name="nano", out=out, progress=False)
    assert idx.symbols("load_tokens") == [] and len(idx.symbols("GPT")) == 1
    idx.close()


@pytest.mark.parametrize("query,symbol", [
    ("get_lr", "get_lr"), ("GPT.from_pretrained", "GPT.from_pretrained"),
    ("where is nano.model.get_lr defined", "get_lr"), ("GPT", "GPT"),
    ("_prepare_image", "_prepare_image"), ("model_registry", "model_registry"),
    ("Return the number of parameters in the model", "GPT.get_num_params"),
    ("the learning rate schedule with warmup and cosine decay", "get_lr")])
def test_name_query_finds_the_definition_first(nano_index, query, symbol):
    from ragcode.retrieval.search import search

    _repo, cfg, out = nano_index
    cfg = load_config(None, ["embedder.enabled=false", "retrieval.mode=bm25",
                             "chunking.code.max_chars=200", "chunking.code.min_chars=10"])
    from ragcode.index.build import index_repo

    idx = index_repo(_repo, cfg, name="small", out=out, progress=False)
    hits = search(idx, query, k=5, config=cfg)
    first = hits[0].chunk
    (defn,) = [d for d in idx.symbols() if d["qualname"].endswith("." + symbol)]
    assert first.kind == "code" and first.path == defn["path"]
    assert first.start_line <= defn["line"] <= first.end_line
    off = cfg.model_copy(update={"retrieval": cfg.retrieval.model_copy(
        update={"symbol_weight": 0.0, "api_explain_top": 0})})
    if query == "get_lr":  # without the symbol index the README that repeats it wins
        assert search(idx, query, k=5, config=off)[0].chunk.kind == "markdown"
    idx.close()


def test_long_instruction_naming_a_class_keeps_its_ranking(nano_index):
    """An instruction that mentions a class (train GPT with ...) asks how to run something:
    only search-sized queries are routed to the definition by name."""
    from ragcode.retrieval.search import search

    _repo, _cfg, out = nano_index
    cfg = load_config(None, ["retrieval.mode=bm25"])
    off = cfg.model_copy(update={"retrieval": cfg.retrieval.model_copy(
        update={"symbol_weight": 0.0, "api_explain_top": 0})})
    from ragcode.index.store import load_index

    idx = load_index(out / "nano")
    long = ("I would like to train the GPT model on my own text with a learning rate schedule "
            "and then print how many parameters it has")
    assert [h.chunk.id for h in search(idx, long, 10, cfg)] == \
        [h.chunk.id for h in search(idx, long, 10, off)]
    from ragcode.retrieval.search import retrieve_context

    no_api = cfg.model_copy(update={"context": cfg.context.model_copy(update={"api_top": 0})})
    assert retrieve_context(idx, long, cfg).text == retrieve_context(idx, long, no_api).text
    assert search(idx, "GPT", 1, cfg)[0].chunk.kind == "code"
    idx.close()


def test_python_instruction_gets_the_api_signatures_and_a_command_query_does_not(nano_index):
    from ragcode.index.store import load_index
    from ragcode.retrieval.search import retrieve_context

    _repo, _cfg, out = nano_index
    cfg = load_config(None, ["retrieval.mode=bm25"])
    idx = load_index(out / "nano")
    ctx = retrieve_context(
        idx, "Write Python that loads the pretrained GPT-2 model and prints its parameter count",
        cfg)
    assert "GPT.get_num_params(non_embedding: bool = True) -> int" in ctx.text
    command = "train with a learning rate warmup then cosine decay"
    off = cfg.model_copy(update={"context": cfg.context.model_copy(update={"api_top": 0})})
    assert retrieve_context(idx, command, cfg).text == retrieve_context(idx, command, off).text
    idx.close()


def test_search_prints_kinds_and_filters_by_kind(nano_index):
    _repo, _cfg, out = nano_index
    runner = CliRunner()
    args = ["search", str(out / "nano"), "GPT from_pretrained", "--json",
            "--set", "retrieval.mode=bm25"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    kinds = {h["kind"] for h in json.loads(res.stdout)}
    assert {"doc", "api", "code"} <= kinds
    res = runner.invoke(app, args + ["--kind", "api", "--kind", "doc"])
    hits = json.loads(res.stdout)
    assert hits and {h["kind"] for h in hits} <= {"api", "doc"}
    assert {h["chunk_kind"] for h in hits} <= {"api", "markdown", "notebook", "text"}
    table = runner.invoke(app, args[:3] + ["--kind", "api", "--set", "retrieval.mode=bm25"])
    assert table.exit_code == 0 and " api " in table.stdout
    bad = runner.invoke(app, args + ["--kind", "docs"])
    assert bad.exit_code == 2 and "unknown kind 'docs'" in bad.output


def test_api_listings_leave_a_command_instructions_ranking_unchanged(tmp_path):
    """Regression: api listings in BM25 shifted the ranks (and word statistics) of the README
    passages a long command instruction needs; an ML-Bench task lost its oracle section."""
    from ragcode.index.build import index_repo
    from ragcode.retrieval.search import retrieve_context, search

    repo = _make_repo(tmp_path / "r")
    ask = ("I would like to train the GPT model on my own text with a learning rate schedule "
           "that warms up and decays, please give me the command")
    got = {}
    for api in (True, False):
        cfg = load_config(None, ["embedder.enabled=false", "retrieval.mode=bm25",
                                 f"chunking.api.enabled={str(api).lower()}",
                                 f"index.cache_dir={tmp_path / 'cache'}"])
        idx = index_repo(repo, cfg, name=f"api-{api}", out=tmp_path / "idx", progress=False)
        assert any(c.kind == "api" for c in idx.chunks().values()) is api
        got[api] = ([(h.chunk.id, round(h.score, 9)) for h in search(idx, ask, 10, cfg)],
                    retrieve_context(idx, ask, cfg).text)
        idx.close()
    assert got[True] == got[False]
