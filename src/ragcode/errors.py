"""One error hierarchy. Messages say what was wrong, where, and what to do about it."""

from __future__ import annotations


class RagcodeError(Exception):
    """Base of every error ragcode raises on purpose. The CLI prints it and exits 2."""

    exit_code = 2


class ConfigError(RagcodeError):
    """A config file or override is invalid."""


class UnknownNameError(RagcodeError):
    """A registry name (chunker, retriever, llm, ...) is not known."""


class RepoNotFoundError(RagcodeError):
    """The repository path does not exist or is not a directory."""


class RepoCommitError(RagcodeError):
    """A repository checkout is at another commit than the task pins."""


class IndexStateError(RagcodeError):
    """An index is missing, corrupt, or was built with incompatible settings."""


class IndexNameError(RagcodeError):
    """An index name would not be one plain folder under the index root."""


class ModelUnavailableError(RagcodeError):
    """A model cannot be loaded (unknown, missing files, or would need a download offline)."""


class TaskFormatError(RagcodeError):
    """A benchmark task record is malformed."""


class ExecutionError(RagcodeError):
    """The sandbox could not run an answer (infrastructure failure, not a model failure)."""


class RunConfigMismatchError(RagcodeError):
    """A run directory was started with a different config."""


class OutputBusyError(RagcodeError):
    """Another ragcode process is writing the same run folder or output file."""


class RepoPathError(RagcodeError):
    """A path given by a user or a model leaves the repository it must stay in (or cannot be read
    as a path at all)."""


class EmptyInputError(RagcodeError):
    """A query, instruction or answer is empty or only whitespace: nothing to search, ask or check."""


def require_text(text: str, what: str, example: str) -> str:
    """``text`` when it says something, else ``EmptyInputError`` naming ``what`` and an example
    of what to give (so ``ragcode generate ""`` stops before it spends a model call)."""
    if not text or not text.strip():
        raise EmptyInputError(f"the {what} is empty; give one, e.g. {example}")
    return text
