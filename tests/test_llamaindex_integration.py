"""ragcode inside LlamaIndex: the node parser in an IngestionPipeline, the retriever in a
RetrieverQueryEngine with MockLLM, the embedding wrapper in Settings. Network off throughout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, SimpleDirectoryReader, VectorStoreIndex  # noqa: E402
from llama_index.core.ingestion import IngestionPipeline  # noqa: E402
from llama_index.core.llms import MockLLM  # noqa: E402
from llama_index.core.query_engine import RetrieverQueryEngine  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode  # noqa: E402

from ragcode.config import ChunkingConfig, load_config  # noqa: E402
from ragcode.errors import ConfigError, RagcodeError  # noqa: E402
from ragcode.integrations.llamaindex import (  # noqa: E402
    RagcodeEmbedding,
    RagcodeNodeParser,
    RagcodeRetriever,
    chunk_to_node,
    node_to_chunk,
    use_offline_settings,
)
from ragcode.types import Chunk  # noqa: E402

pytest_plugins = ["llamaindex_helpers"]  # fixtures: tiny_repo, network_off, restore_llamaindex_settings


def file_lines(repo: Path, rel: str, start: int, end: int) -> str:
    return "\n".join((repo / rel).read_text().split("\n")[start - 1:end])


def ingest(repo: Path, **parser_kwargs) -> list:
    docs = SimpleDirectoryReader(str(repo), recursive=True, filename_as_id=True).load_data()
    pipeline = IngestionPipeline(transformations=[RagcodeNodeParser(repo_root=str(repo),
                                                                    **parser_kwargs)])
    return pipeline.run(documents=docs)


def small_units() -> ChunkingConfig:
    """Chunking that keeps every function its own chunk (the fixture files are tiny)."""
    return ChunkingConfig.model_validate({"code": {"max_chars": 100, "min_chars": 0}})


def test_node_parser_in_ingestion_pipeline_keeps_paths_lines_and_symbols(tiny_repo, network_off):
    nodes = ingest(tiny_repo, chunking=small_units())
    assert nodes and all(isinstance(n, TextNode) for n in nodes)
    paths = {n.metadata["path"] for n in nodes}
    assert {"README.md", "train.py", "tiny/model.py"} <= paths
    for node in nodes:
        meta = node.metadata
        assert 1 <= meta["start_line"] <= meta["end_line"]
        assert meta["kind"] in {"markdown", "code", "cli", "api"}
        if meta["kind"] not in ("cli", "api"):  # tables/listings are derived text; the others are file lines
            span = file_lines(tiny_repo, meta["path"], meta["start_line"], meta["end_line"])
            assert node.get_content().strip() in span
            doc_text = (tiny_repo / meta["path"]).read_text()
            assert doc_text[node.start_char_idx:node.end_char_idx] == node.get_content()
    training = next(n for n in nodes if n.metadata["path"] == "README.md"
                    and "--epochs 3" in n.get_content())
    assert training.metadata["symbol"].startswith("Tiny trainer")
    # small sections are merged; the ones merged are listed (a JSON string: flat metadata)
    assert "Tiny trainer > Training" in json.loads(training.metadata["sections"])
    predict = next(n for n in nodes if "def predict" in n.get_content())
    assert predict.metadata["path"] == "tiny/model.py" and predict.metadata["language"] == "python"
    assert predict.metadata["symbol"] == "Classifier.predict"
    lines = (tiny_repo / "tiny/model.py").read_text().split("\n")
    assert lines[predict.metadata["start_line"] - 1].strip().startswith("def predict")
    assert lines[predict.metadata["end_line"] - 1].strip() == "return 1 if score > 0 else 0"


def test_node_parser_relationships_point_to_the_document_and_neighbours(tiny_repo, network_off):
    nodes = ingest(tiny_repo, chunking=small_units())
    by_id = {n.node_id: n for n in nodes}
    model_nodes = [n for n in nodes if n.metadata["path"] == "tiny/model.py"]
    assert len(model_nodes) >= 3
    doc_ids = {n.ref_doc_id for n in model_nodes}
    assert len(doc_ids) == 1 and next(iter(doc_ids)).endswith("tiny/model.py")
    first, second = model_nodes[0], model_nodes[1]
    assert first.metadata["start_line"] < second.metadata["start_line"]
    assert first.relationships[NodeRelationship.NEXT].node_id == second.node_id
    assert second.relationships[NodeRelationship.PREVIOUS].node_id == first.node_id
    assert NodeRelationship.PREVIOUS not in first.relationships
    for node in nodes:  # neighbours never cross files
        nxt = node.relationships.get(NodeRelationship.NEXT)
        if nxt is not None:
            assert by_id[nxt.node_id].metadata["path"] == node.metadata["path"]
            assert by_id[nxt.node_id].metadata["start_line"] >= node.metadata["start_line"]


def test_node_parser_links_readme_commands_to_the_script_cli_table(tiny_repo, network_off):
    nodes = ingest(tiny_repo)
    cli = [n for n in nodes if n.metadata["kind"] == "cli"]
    assert cli, "train.py's argparse parser should give a CLI table node"
    table = cli[0]
    assert table.metadata["path"] == "train.py" and "--epochs" in table.get_content()
    links = json.loads(table.metadata["cli_links"])
    assert any("README.md" in json.dumps(link) for link in links)


def test_node_ids_are_stable_and_embed_text_shows_only_location(tiny_repo, network_off):
    ids_a = [n.node_id for n in ingest(tiny_repo)]
    ids_b = [n.node_id for n in ingest(tiny_repo)]
    assert ids_a == ids_b and len(set(ids_a)) == len(ids_a)
    node = ingest(tiny_repo)[0]
    embed = node.get_content(metadata_mode=MetadataMode.EMBED)
    assert f"path: {node.metadata['path']}" in embed
    assert "chunk_id" not in embed and "creation_date" not in embed


def test_node_parser_uses_the_configured_chunkers(tiny_repo, network_off):
    chunking = load_config().chunking
    chunking.chunkers = {**chunking.chunkers, "markdown": "llamaindex-markdown"}
    nodes = ingest(tiny_repo, chunking=chunking)
    readme = [n for n in nodes if n.metadata["path"] == "README.md"]
    assert readme and all(n.metadata.get("chunker") == "llamaindex-markdown" for n in readme)


def test_from_config_takes_a_yaml_file(tmp_path):
    cfg_file = tmp_path / "li.yaml"
    cfg_file.write_text("chunking:\n  code:\n    max_chars: 321\n")
    parser = RagcodeNodeParser.from_config(cfg_file, repo_root=str(tmp_path))
    assert parser.chunking.code.max_chars == 321 and parser.repo_root == str(tmp_path)
    assert parser.to_dict()["chunking"]["code"]["max_chars"] == 321  # part of the cache key


def test_document_without_a_path_is_an_error_that_says_what_to_set():
    with pytest.raises(RagcodeError, match="metadata"):
        RagcodeNodeParser().get_nodes_from_documents([Document(text="# hi\n")])


def test_plain_document_with_path_metadata():
    doc = Document(text="# Title\n\nSome text.\n", metadata={"path": "docs/guide.md"})
    nodes = RagcodeNodeParser().get_nodes_from_documents([doc])
    assert nodes[0].metadata["path"] == "docs/guide.md"
    assert nodes[0].metadata["start_line"] == 1
    assert nodes[0].ref_doc_id == doc.doc_id


def test_chunk_node_round_trip_keeps_everything():
    chunk = Chunk(path="a/b.py", kind="code", text="def f():\n    return 1", start_line=3,
                  end_line=4, symbol="f", header="a/b.py\ndef f()", language="python",
                  metadata={"cli_links": [{"path": "README.md", "line": 9}], "chunker": "python"})
    node = chunk_to_node(chunk)
    assert node.node_id == chunk.id
    assert isinstance(node.metadata["cli_links"], str)  # flat, for any vector store
    back = node_to_chunk(node)
    assert back == chunk and back.metadata["chunker"] == "python"


# --- retriever ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory):
    from llamaindex_helpers import write_repo

    from ragcode.api import index_repo

    base = tmp_path_factory.mktemp("li-index")
    repo = write_repo(base / "tiny-repo")
    cfg = load_config(overrides={"index.root": str(base / "indexes"),
                                 "index.cache_dir": str(base / "cache")})
    index_repo(repo, config=cfg, name="tiny", progress=False)
    return base / "indexes" / "tiny", cfg


@pytest.mark.slow
def test_retriever_in_query_engine_with_mock_llm(tiny_index, network_off):
    path, cfg = tiny_index
    retriever = RagcodeRetriever.from_index(path, config=cfg, mode="hybrid", k=3)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query("which command line flag sets the number of epochs for training?")
    assert 1 <= len(response.source_nodes) <= 3
    top = response.source_nodes[0]
    assert top.score is not None and top.node.metadata["path"] in {"train.py", "README.md"}
    assert "--epochs" in top.node.get_content()
    # MockLLM echoes its prompt: the retrieved text and its location reached the LLM
    assert "--epochs" in str(response) and f"path: {top.node.metadata['path']}" in str(response)


@pytest.mark.slow
def test_retriever_settings_are_applied_and_checked(tiny_index, network_off):
    path, cfg = tiny_index
    code_only = RagcodeRetriever.from_index(path, config=cfg, mode="bm25", k=5, kinds=["code"])
    assert code_only.config.retrieval.mode == "bm25"
    hits = code_only.retrieve("classifier predict weights")
    assert hits and {h.node.metadata["kind"] for h in hits} == {"code"}
    assert hits[0].node.metadata["path"] == "tiny/model.py"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    with pytest.raises(ConfigError, match="unknown retrieval setting"):
        RagcodeRetriever.from_index(path, config=cfg, top_k=3)
    with pytest.raises(ConfigError, match="mode"):
        RagcodeRetriever.from_index(path, config=cfg, mode="magic")


# --- offline settings -----------------------------------------------------------------------

@pytest.mark.slow
def test_offline_settings_build_a_vector_index_from_ragcode_nodes(
        tiny_repo, network_off, restore_llamaindex_settings):
    use_offline_settings()
    settings = restore_llamaindex_settings
    assert isinstance(settings.llm, MockLLM)
    assert isinstance(settings.embed_model, RagcodeEmbedding)
    nodes = ingest(tiny_repo)
    index = VectorStoreIndex(nodes)  # embeds with ragcode's MiniLM through Settings
    hits = index.as_retriever(similarity_top_k=2).retrieve("linear classifier prediction")
    assert hits[0].node.metadata["path"] == "tiny/model.py"
    vec = settings.embed_model.get_query_embedding("hello")
    assert len(vec) == 384 and abs(sum(v * v for v in vec) - 1.0) < 1e-3
    answer = index.as_query_engine().query("how is the classifier trained?")
    assert "Classifier" in str(answer)  # MockLLM echoed the retrieved context
