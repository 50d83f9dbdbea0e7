"""ragcode inside LlamaIndex, and LlamaIndex's chunkers inside ragcode.

Needs the ``llamaindex`` extra (``pip install 'ragcode[llamaindex]'``); without it, importing this
module raises ``MissingExtraError`` (an ``ImportError`` and a ``RagcodeError``) saying so.

- ``RagcodeNodeParser``: ragcode's chunkers as a LlamaIndex ``NodeParser`` (``IngestionPipeline``).
- ``RagcodeRetriever``: a ragcode index as a LlamaIndex ``BaseRetriever`` (``RetrieverQueryEngine``).
- ``RagcodeEmbedding`` / ``use_offline_settings``: offline ``Settings.embed_model`` and ``Settings.llm``.
- ``chunk_to_node`` / ``node_to_chunk``: the conversion both directions use.
- The chunker names ``llamaindex-markdown`` and ``llamaindex-code`` (``ragcode.chunking``'s
  registry names them by path) live in ``ragcode.integrations.llamaindex.chunkers``.
"""

from __future__ import annotations

from ragcode.integrations._extras import MissingExtraError, require_llamaindex

require_llamaindex()

from ragcode.integrations.llamaindex.node_parser import RagcodeNodeParser  # noqa: E402
from ragcode.integrations.llamaindex.nodes import chunk_to_node, node_to_chunk  # noqa: E402
from ragcode.integrations.llamaindex.retriever import RagcodeRetriever  # noqa: E402
from ragcode.integrations.llamaindex.settings import (  # noqa: E402
    RagcodeEmbedding,
    use_offline_settings,
)

__all__ = [
    "MissingExtraError", "RagcodeEmbedding", "RagcodeNodeParser", "RagcodeRetriever",
    "chunk_to_node", "node_to_chunk", "use_offline_settings",
]
