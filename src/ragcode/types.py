"""Plain data passed between pipeline stages.

Every stage takes and returns these, never another stage's internals:
walk -> ``SourceFile`` -> chunk -> ``Chunk`` -> retrieve -> ``Hit`` -> pack -> ``Context``
-> generate -> ``Candidate`` -> execute/score -> ``Verdict``. ``Task`` is one benchmark record.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

CHUNK_KINDS: tuple[str, ...] = ("markdown", "code", "cli", "api", "notebook", "shell", "config", "text")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class SourceFile:
    """A file the walker accepted: repository-relative POSIX path and decoded text."""

    path: str
    text: str
    sha256: str
    size: int
    decode_errors: bool = False


@dataclass(frozen=True)
class Chunk:
    """One retrievable unit of a repository.

    ``start_line``/``end_line`` are 1-based and inclusive. ``symbol`` is the heading path for
    documents (``"Install > From source"``) and the ancestor path for code (``"Trainer.fit"``).
    ``header`` is an optional line prepended for embedding only (file path + enclosing signature).
    """

    path: str
    kind: str
    text: str
    start_line: int
    end_line: int
    symbol: str = ""
    header: str = ""
    language: str = ""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def content_hash(self) -> str:
        """Hash of what gets embedded; the embedding cache key (with the model name)."""
        return sha256_text(self.embed_text)

    @property
    def id(self) -> str:
        """Stable textual id: where the chunk is plus what it holds."""
        return f"{self.path}:{self.start_line}-{self.end_line}:{self.kind}:{self.content_hash[:10]}"

    @property
    def embed_text(self) -> str:
        return f"{self.header}\n{self.text}" if self.header else self.text

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["id"] = self.id
        return d


@dataclass(frozen=True)
class Hit:
    """A chunk returned by a retriever with its score and rank (0-based) in that retriever."""

    chunk: Chunk
    score: float
    rank: int = 0
    source: str = ""


@dataclass(frozen=True)
class Context:
    """Packed retrieval context: exactly the text a prompt receives, and where it came from."""

    text: str
    chunk_ids: tuple[str, ...]
    budget: int
    unit: str = "chars"
    query: str = ""

    @property
    def size(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class Task:
    """One ML-Bench task record (original field names). ``arguments`` is already parsed."""

    id: int | str
    github_id: int
    instruction: str
    github: str = ""
    repo_id: int | None = None
    path: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    oracle: str = ""
    type: str = ""
    output: str = ""
    prefix_code: str = ""

    @property
    def key(self) -> str:
        return f"{self.github_id}:{self.id}"


@dataclass(frozen=True)
class Candidate:
    """One generated answer: raw model text, the extracted code and its answer type."""

    text: str
    code: str
    answer_type: str  # "bash" | "python"
    sample_index: int = 0
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Verdict:
    """The scoring of one sample under a named policy."""

    task_key: str
    sample_index: int
    policy: str
    passed: bool
    checks: dict[str, bool] = field(default_factory=dict)
    exit_code: int | None = None
    timed_out: bool = False
    infra_error: str = ""
    detail: str = ""
