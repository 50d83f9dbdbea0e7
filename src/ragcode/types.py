"""Plain data passed between pipeline stages.

Every stage takes and returns these, never another stage's internals:
walk -> ``SourceFile`` -> chunk -> ``Chunk`` -> retrieve -> ``Hit`` -> pack -> ``Context``
-> generate -> ``Candidate`` -> execute/score -> ``Verdict``. ``Task`` is one benchmark record.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

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
    """One benchmark task: an ML-Bench record (original field names; ``arguments`` already
    parsed), or a record of a task file that names its repository (``repo``: ``owner/name``, a
    folder name under ``--repos`` or a folder path; ``commit``: the pin; ``params``: what the
    reference sets; ``github_id`` 0). ``repo_path``: the folder a folder-path ``repo`` resolved
    to when the task file was read."""

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
    repo: str = ""
    commit: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    repo_path: str = ""

    @property
    def key(self) -> str:
        """``github_id:id`` for an ML-Bench task, ``repo:id`` for one that names its repository."""
        return f"{self.repo}:{self.id}" if self.repo else f"{self.github_id}:{self.id}"


class FindingRecord(TypedDict):
    """One check finding as stored in ``Candidate.metadata["check"]["findings"]`` (the dict
    form of ``ragcode.check.Finding``)."""

    check: str  # the check that found it: bash, python, coverage
    code: str  # the kind, e.g. unknown-flag
    message: str
    severity: str  # error | warning
    line: int  # 1-based in the answer; 0 = the whole answer
    target: str  # the script or module concerned
    suggestion: str  # the closest real spelling, when there is one


class CheckRecord(TypedDict, total=False):
    """``Candidate.metadata["check"]``: what the answer checks found and did."""

    findings: list[FindingRecord]
    penalty: float
    errors: int
    seconds: float
    agreement: int  # how many samples agree with this answer (checked selection)
    words_said: int
    original_index: int  # the sample it was before checked selection reordered them
    rank: int
    parsed: bool  # the repository's own parser accepted it (checked selection prefers such an answer)
    autofix: dict[str, Any]  # the corrections autofix and fill made
    repair: list[dict[str, Any]]  # the repair rounds


class CandidateMetadata(TypedDict, total=False):
    """``Candidate.metadata``: how an answer was made. A plain dict at run time (stored as JSON
    in run folders); the keys are the ones below, each present when its stage ran."""

    model: str
    template: str
    template_sha256: str
    chunk_ids: list[str]  # the context's chunks, in prompt order
    context_chars: int
    context_truncated: bool
    prompt_tokens: int
    sampling: dict[str, Any]
    seed: int
    seconds: float
    tokens_per_s: float | None
    answer_tokens: int
    fenced: bool
    fence_label: str
    check: CheckRecord  # with generation.check
    converted_from: str  # a command the user asked for as Python, written as its call (ragcode.answer.pipeline.as_asked)
    repaired_round: int
    agent: dict[str, Any]  # an agent episode: protocol, stop, steps, tokens, source
    single_shot: dict[str, Any]
    trajectory: Any  # the episode's steps; in a run folder, where they are stored


@dataclass(frozen=True)
class Candidate:
    """One generated answer: raw model text, the extracted code and its answer type."""

    text: str
    code: str
    answer_type: str  # "bash" | "python"
    sample_index: int = 0
    metadata: CandidateMetadata = field(default_factory=lambda: CandidateMetadata(), compare=False, hash=False)


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
