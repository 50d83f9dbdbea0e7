"""`ragcode search INDEX "query"`: ranked chunks as a table or JSON (a skin over ``search``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common
from ragcode.errors import require_text


def hits_table(hits: list[Any], title: str) -> Any:
    from rich.table import Table
    from ragcode.retrieval.base import kind_group

    table = Table(title=title, show_header=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("kind")
    table.add_column("path:lines", overflow="fold")
    table.add_column("heading / symbol", overflow="fold")
    for i, hit in enumerate(hits, 1):
        c = hit.chunk
        table.add_row(str(i), f"{hit.score:.4f}", kind_group(c.kind), c.location, c.symbol or "-")
    return table


def hit_dict(hit: Any) -> dict[str, Any]:
    """A hit as JSON: ``kind`` is doc, cli, api, code or config; ``chunk_kind`` the chunk's."""
    from ragcode.retrieval.base import kind_group

    c = hit.chunk
    return {"rank": hit.rank, "score": hit.score, "id": c.id, "kind": kind_group(c.kind),
            "chunk_kind": c.kind, "path": c.path,
            "start_line": c.start_line, "end_line": c.end_line, "symbol": c.symbol,
            "text": c.text}


def search_command(
    index: str = typer.Argument(..., help="Index name (under index.root) or folder."),
    query: str = typer.Argument(..., help="What to look for (natural language or code words)."),
    k: int = typer.Option(10, "-k", "--k", min=1, help="How many hits."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print hits as JSON on stdout."),
    kind: Optional[list[str]] = typer.Option(
        None, "--kind", help="Only hits of this kind: doc, cli, api, code, config, or a chunk "
        "kind (markdown, notebook, ...); repeat for several."),
) -> None:
    """Search an index with the configured retriever (bm25, dense or hybrid) and reranker."""
    common.setup_logging(quiet=True)
    require_text(query, "query", 'ragcode search NAME "train on my own images"')
    cfg = common.config_from(config, set_)
    from ragcode.index.store import load_index, resolve_index_dir
    from ragcode.retrieval.base import expand_kinds
    from ragcode.retrieval.search import search

    if kind:  # the same filter as retrieval.kinds
        cfg = cfg.model_copy(update={"retrieval": cfg.retrieval.model_copy(
            update={"kinds": expand_kinds(kind)})})
    # the index's own embedder is used for dense queries; the config chooses how to search
    idx = load_index(resolve_index_dir(index, cfg))
    try:
        hits = search(idx, query, k=k, config=cfg)
    finally:
        idx.close()
    if as_json:
        typer.echo(json.dumps([hit_dict(h) for h in hits], indent=1, ensure_ascii=False))
    else:
        title = f"{idx.name}: {cfg.retrieval.mode}" + (
            f" + {cfg.rerank.backend} rerank" if cfg.rerank.enabled else "")
        common.console.print(hits_table(hits, title))


def register(app: typer.Typer) -> None:
    """Add ``ragcode search`` to ``app``."""
    app.command("search")(common.handle_errors(search_command))
