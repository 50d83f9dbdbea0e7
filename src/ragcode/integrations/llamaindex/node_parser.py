"""``RagcodeNodeParser``: ragcode's chunkers as a LlamaIndex ``NodeParser``.

Each ``Document`` must name its file in metadata (``path``, or ``file_path`` as
``SimpleDirectoryReader`` sets it; ``repo_root`` makes absolute paths repository-relative, which
is what ragcode's chunkers and CLI linking expect). The document text is chunked by
``ragcode.chunking.chunk_file`` (the chunker chosen by file kind, per ``chunking.chunkers``),
README commands and script CLI tables are linked across the documents of one call, and every
chunk becomes a ``TextNode`` (see ``ragcode.integrations.llamaindex.nodes``) with ``SOURCE`` =
its document and ``PREVIOUS``/``NEXT`` = its neighbours in the same document, in line order.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

from ragcode.config import ChunkingConfig
from ragcode.errors import RagcodeError
from ragcode.integrations._extras import require_llamaindex
from ragcode.types import Chunk, SourceFile, sha256_text

require_llamaindex()

from llama_index.core.bridge.pydantic import Field  # noqa: E402
from llama_index.core.node_parser import NodeParser  # noqa: E402
from llama_index.core.schema import BaseNode, Document, NodeRelationship  # noqa: E402
from llama_index.core.utils import get_tqdm_iterable  # noqa: E402

from ragcode.integrations.llamaindex.nodes import (  # noqa: E402
    EMBED_KEYS,
    LLM_KEYS,
    LineIndex,
    chunk_char_span,
    chunk_to_node,
    ordered,
)

log = logging.getLogger(__name__)

PATH_KEYS = ("path", "file_path", "filepath", "filename", "file_name")


class RagcodeNodeParser(NodeParser):
    """Split code-repository documents with ragcode's chunkers (markdown sections, tree-sitter
    units, CLI tables), keeping path, line range, symbol path, chunk kind and CLI links."""

    chunking: ChunkingConfig = Field(
        default_factory=ChunkingConfig, description="ragcode chunking settings (config.chunking)."
    )
    repo_root: str | None = Field(
        default=None, description="Make absolute document paths relative to this directory."
    )
    link_cli: bool = Field(
        default=True, description="Link README commands and script CLI tables across documents."
    )

    @classmethod
    def class_name(cls) -> str:
        return "RagcodeNodeParser"

    @classmethod
    def from_config(cls, config: Any = None, **kwargs: Any) -> RagcodeNodeParser:
        """From a ragcode ``Config`` (or its path, or ``None`` for the defaults)."""
        from ragcode.config import Config, load_config

        if not isinstance(config, Config):
            config = load_config(config)
        return cls(chunking=config.chunking, **kwargs)

    def document_path(self, doc: BaseNode) -> str:
        """The repository-relative POSIX path of ``doc``'s file, from its metadata."""
        raw = next((doc.metadata[k] for k in PATH_KEYS if doc.metadata.get(k)), None)
        if raw is None:
            raise RagcodeError(
                f"document {doc.node_id!r} has no file path in its metadata (looked for "
                f"{', '.join(PATH_KEYS)}); RagcodeNodeParser chooses the chunker by file type. "
                "Load files with SimpleDirectoryReader or set Document(metadata={'path': ...})."
            )
        path = Path(str(raw))
        if self.repo_root and path.is_absolute():
            root = Path(self.repo_root).resolve()
            try:
                path = path.resolve().relative_to(root)
            except ValueError:
                log.warning("%s is outside repo_root %s; its absolute path is kept", path, root)
        return PurePath(path).as_posix()

    def _chunk_documents(self, docs: Sequence[BaseNode], show_progress: bool) -> list[list[Chunk]]:
        from ragcode.chunking import chunk_file, link_chunks

        per_doc: list[list[Chunk]] = []
        for doc in get_tqdm_iterable(docs, show_progress, "Chunking with ragcode"):
            text = doc.get_content()
            source = SourceFile(path=self.document_path(doc), text=text, sha256=sha256_text(text),
                                size=len(text.encode("utf-8", "surrogatepass")))
            per_doc.append(list(chunk_file(source, self.chunking)))
        if self.link_cli and self.chunking.cli.enabled:
            flat = [c for chunks in per_doc for c in chunks]
            linked = link_chunks(flat, self.chunking)  # the pass chunk_repo and the index make
            per_doc = _regroup(per_doc, flat, linked)
        return per_doc

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False,
                     **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc, chunks in zip(nodes, self._chunk_documents(nodes, show_progress)):
            lines = LineIndex(doc.get_content())
            doc_nodes = []
            for chunk in ordered(chunks):
                node = chunk_to_node(chunk, node_id=_node_id(doc, chunk),
                                     char_span=chunk_char_span(lines, chunk))
                node.relationships[NodeRelationship.SOURCE] = doc.as_related_node_info()
                doc_nodes.append(node)
            out.extend(doc_nodes)
        return out

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode],
                                  parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        # The base class re-finds each node's text to set character offsets and merges the
        # document's metadata in; ragcode knows the offsets exactly and shows the embedding
        # model and the LLM only its own location keys.
        spans = [(getattr(n, "start_char_idx", None), getattr(n, "end_char_idx", None)) for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, (start, end) in zip(nodes, spans):
            node.start_char_idx, node.end_char_idx = start, end  # type: ignore[attr-defined]
            node.excluded_embed_metadata_keys = [k for k in node.metadata if k not in EMBED_KEYS]
            node.excluded_llm_metadata_keys = [k for k in node.metadata if k not in LLM_KEYS]
        return nodes


def _node_id(doc: BaseNode, chunk: Chunk) -> str:
    """Deterministic: the same document chunked the same way gets the same node ids."""
    return f"{doc.node_id}:{chunk.id}"


def _regroup(per_doc: list[list[Chunk]], flat: list[Chunk], linked: list[Chunk]) -> list[list[Chunk]]:
    """Put ``link_chunks``'s output back into per-document lists."""
    if len(linked) == len(flat) and all(a.id == b.id for a, b in zip(flat, linked)):
        it = iter(linked)
        return [[next(it) for _ in chunks] for chunks in per_doc]
    by_id: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in linked:
        by_id[chunk.id].append(chunk)
    return [[by_id[c.id].pop(0) if by_id.get(c.id) else c for c in chunks] for chunks in per_doc]
