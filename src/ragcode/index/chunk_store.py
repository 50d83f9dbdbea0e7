"""The SQLite chunk store: chunks with stable int64 ids (the FAISS ids), and indexed files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterable, Iterator

from ragcode.errors import IndexStateError
from ragcode.types import Chunk

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    symbol TEXT NOT NULL,
    header TEXT NOT NULL,
    language TEXT NOT NULL,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    has_vector INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE TABLE IF NOT EXISTS symbols (
    chunk INTEGER NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_path ON symbols(path);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    kind TEXT NOT NULL
);
"""

_COLUMNS = "id, path, kind, text, start_line, end_line, symbol, header, language, metadata"


def _row_to_chunk(row: tuple, where: str) -> tuple[int, Chunk]:
    """A row as a ``Chunk``; ``IndexStateError`` (naming ``where``) when a column holds garbage."""
    cid, path, kind, text, start, end, symbol, header, language, meta = row
    try:
        metadata = json.loads(meta) if isinstance(meta, str) else None
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict):
        raise IndexStateError(f"{where}: chunk {cid} has metadata that is not a JSON object")
    if not all(isinstance(v, str) for v in (path, kind, text, symbol, header, language)) \
            or not all(type(v) is int for v in (cid, start, end)):
        raise IndexStateError(f"{where}: chunk {cid} has columns of the wrong type")
    return cid, Chunk(path=path, kind=kind, text=text, start_line=start, end_line=end,
                      symbol=symbol, header=header, language=language, metadata=metadata)


class ChunkStore:
    """One SQLite file. Writers use ``with store.transaction():``; readers open ``readonly``.

    ``hint`` (what to do about a corrupt store) ends the message of a garbage row's error.
    """

    def __init__(self, path: str | Path, readonly: bool = False, hint: str = ""):
        self.path = Path(path)
        self.hint = hint
        self.label = self.path.name  # named in errors; a copy keeps its source's name
        if readonly:
            uri = f"file:{self.path}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            self.db = sqlite3.connect(str(self.path), check_same_thread=False)
            self.db.executescript(_SCHEMA)

    def copy_to(self, dest: str | Path) -> ChunkStore:
        """A writable copy (SQLite online backup) at ``dest``."""
        target = sqlite3.connect(str(dest))
        with target:
            self.db.backup(target)
        target.close()
        copy = ChunkStore(dest, hint=self.hint)
        copy.label = self.label
        return copy

    def transaction(self) -> sqlite3.Connection:
        return self.db  # ``with conn:`` commits on success and rolls back on error

    def close(self) -> None:
        self.db.close()

    def _chunk(self, row: tuple) -> tuple[int, Chunk]:
        where = f"index at {self.path.parent} is corrupt: chunk store {self.label}"
        try:
            return _row_to_chunk(row, where)
        except IndexStateError as exc:
            raise IndexStateError(f"{exc}; {self.hint}" if self.hint else str(exc)) from None

    # --- files ---------------------------------------------------------------------------
    def files(self) -> dict[str, tuple[str, str]]:
        """path -> (sha256, kind)."""
        rows = list(self.db.execute("SELECT path, sha256, kind FROM files"))
        if not all(isinstance(v, str) for row in rows for v in row):
            msg = (f"index at {self.path.parent} is corrupt: chunk store {self.label} has "
                   "files rows of the wrong type")
            raise IndexStateError(f"{msg}; {self.hint}" if self.hint else msg)
        return {p: (h, k) for p, h, k in rows}

    def put_file(self, path: str, sha256: str, kind: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", (path, sha256, kind))

    def delete_file(self, path: str) -> list[int]:
        """Remove a file and its chunks; returns the removed chunk ids."""
        ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE path=?", (path,))]
        self.db.execute("DELETE FROM chunks WHERE path=?", (path,))
        self.db.execute("DELETE FROM symbols WHERE path=?", (path,))
        self.db.execute("DELETE FROM files WHERE path=?", (path,))
        return ids

    # --- chunks --------------------------------------------------------------------------
    def add_chunks(self, chunks: Iterable[Chunk]) -> list[int]:
        ids = []
        for c in chunks:
            cur = self.db.execute(
                "INSERT INTO chunks (chunk_id, path, kind, start_line, end_line, symbol, header,"
                " language, text, metadata, content_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (c.id, c.path, c.kind, c.start_line, c.end_line, c.symbol, c.header, c.language,
                 c.text, json.dumps(c.metadata, sort_keys=True, default=str), c.content_hash),
            )
            ids.append(int(cur.lastrowid or 0))  # an INSERT always sets it
            if c.metadata.get("definitions"):
                self._add_symbols(ids[-1], c.metadata["definitions"])
        return ids

    # --- symbols (the definitions a module's first code chunk carries) ------------------
    def _add_symbols(self, cid: int, symbols: list[dict]) -> None:
        self.db.executemany(
            "INSERT INTO symbols (chunk, path, name, qualname, data) VALUES (?,?,?,?,?)",
            [(cid, s.get("path", ""), s.get("name", ""), s.get("qualname", ""),
              json.dumps(s, sort_keys=True)) for s in symbols if isinstance(s, dict)])

    def symbols(self, name: str | None = None) -> list[dict]:
        """The stored definitions (``Symbol.to_dict()``), all or those whose bare name or
        qualified name is ``name``; ``[]`` for a store made before the table existed."""
        sql = "SELECT data FROM symbols"
        args: tuple = ()
        if name is not None:
            sql += " WHERE name=? OR qualname=?"
            args = (name, name)
        try:
            rows = list(self.db.execute(sql + " ORDER BY rowid", args))
        except sqlite3.OperationalError:  # an older store (opened read-only): no table
            return []
        out = []
        for (data,) in rows:
            try:
                d = json.loads(data)
            except ValueError:
                continue
            if isinstance(d, dict):
                out.append(d)
        return out

    def set_metadata(self, cid: int, metadata: dict) -> None:
        self.db.execute("UPDATE chunks SET metadata=? WHERE id=?",
                        (json.dumps(metadata, sort_keys=True, default=str), cid))

    def set_has_vector(self, ids: Iterable[int], value: bool) -> None:
        self.db.executemany("UPDATE chunks SET has_vector=? WHERE id=?",
                            [(int(value), int(i)) for i in ids])

    def iter_chunks(self) -> Iterator[tuple[int, Chunk]]:
        for row in self.db.execute(f"SELECT {_COLUMNS} FROM chunks ORDER BY id"):
            yield self._chunk(row)

    def get(self, ids: Iterable[int]) -> dict[int, Chunk]:
        wanted = [int(i) for i in ids]
        out: dict[int, Chunk] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            marks = ",".join("?" * len(part))
            for row in self.db.execute(f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})", part):
                cid, chunk = self._chunk(row)
                out[cid] = chunk
        return out

    def kinds_by_id(self) -> dict[int, str]:
        return dict(self.db.execute("SELECT id, kind FROM chunks"))

    def vector_ids(self) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT id FROM chunks WHERE has_vector=1")}

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def count_vectors(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks WHERE has_vector=1").fetchone()[0]

    def counts_by_kind(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT kind, COUNT(*) FROM chunks GROUP BY kind ORDER BY kind"))
