"""The 14 ML-Bench repositories (folder names, GitHub slugs, pinned commits, by github_id), and
the one place that finds a task's repository folder and working directory under ``--repos``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragcode.errors import RepoNotFoundError, TaskFormatError

if TYPE_CHECKING:
    from ragcode.types import Task


@dataclass(frozen=True)
class BenchRepo:
    github_id: int
    folder: str
    slug: str
    commit: str

    @property
    def url(self) -> str:
        return f"https://github.com/{self.slug}"


MLBENCH_REPOS: dict[int, BenchRepo] = {r.github_id: r for r in (
    BenchRepo(1, "dgl", "dmlc/dgl", "f5c8c0b500db810210d22add9b7d6fc809edc0d2"),
    BenchRepo(2, "bert", "google-research/bert", "eedf5716ce1268e56f0a50264a88cafad334ac61"),
    BenchRepo(3, "lavis", "salesforce/LAVIS", "7f00a08"),
    BenchRepo(4, "if", "deep-floyd/IF", "ffc8163891682beaca0c5eb6b9077860a3bc6509"),
    BenchRepo(5, "vid2vid", "NVIDIA/vid2vid", "2e6d13755fc2e33200e7d4c0c44f2692d6ab0898"),
    BenchRepo(6, "esm", "facebookresearch/esm", "2b369911bb5b4b0dda914521b9475cad1656b2ac"),
    BenchRepo(7, "open_clip", "mlfoundations/open_clip", "91923dfc376afb9d44577a0c9bd0930389349438"),
    BenchRepo(8, "Time-Series-Library", "thuml/Time-Series-Library",
              "51e80b6f76b7823fea2512d6d170b1b83b149d2d"),
    BenchRepo(9, "External-Attention-pytorch", "xmu-xiaoma666/External-Attention-pytorch",
              "90e774ed4a2a734fe91dde6a4a737de0f0c54122"),
    BenchRepo(10, "PyTorch-GAN", "eriklindernoren/PyTorch-GAN",
              "36d3c77e5ff20ebe0aeefd322326a134a279b93e"),
    BenchRepo(11, "pytorch-image-models", "huggingface/pytorch-image-models",
              "205d8ad37c838c20c541b787dca840edd9ed1408"),
    BenchRepo(13, "learning3d", "vinits5/learning3d", "becc4a0017488390d3f04e4bc2ce9efb368115c5"),
    BenchRepo(14, "muzic", "microsoft/muzic", "9d52ff30b209a19fe51606242797c51a1bf7d7c1"),
    BenchRepo(15, "Grounded-Segment-Anything", "IDEA-Research/Grounded-Segment-Anything",
              "d1c510118c0fdffb87bab3cd3dfe3e6b02a36f8b"),
)}


def repo_for(github_id: int) -> BenchRepo:
    """The repository of ``github_id``; ``TaskFormatError`` when ML-Bench has none by that id."""
    try:
        return MLBENCH_REPOS[int(github_id)]
    except (KeyError, ValueError, TypeError):
        known = ", ".join(str(k) for k in MLBENCH_REPOS)
        raise TaskFormatError(f"github_id {github_id!r} is not an ML-Bench repository ({known})") from None


def repo_folder(github_id: int) -> str:
    """The folder name of ``github_id`` under ``--repos`` (an unknown id: the id itself)."""
    try:
        return repo_for(github_id).folder
    except TaskFormatError:
        return str(github_id)


def repo_dir_for(task: Task | int, repos_dir: str | Path) -> tuple[Path, str]:
    """(folder path, folder name) of a task's (or a github_id's) repository under ``repos_dir``;
    the folder need not exist (see ``require_repo_dir``)."""
    github_id = task if isinstance(task, int) else task.github_id
    folder = repo_folder(github_id)
    return Path(repos_dir) / folder, folder


def require_repo_dir(github_id: int, repos_dir: str | Path, needed_by: str = "") -> Path:
    """The existing folder of ``github_id`` under ``repos_dir``; ``TaskFormatError`` for an id
    that ML-Bench has not, ``RepoNotFoundError`` (saying how to place it) when it is missing."""
    repo = repo_for(github_id)
    path = Path(repos_dir) / repo.folder
    if not path.is_dir():
        why = f" (needed by {needed_by})" if needed_by else ""
        raise RepoNotFoundError(
            f"repository folder {path} for github_id {repo.github_id} is missing{why}; run "
            f"`ragcode mlbench prepare --repos {repos_dir}` or check out {repo.slug} at {repo.commit} there")
    return path


def task_dir(repo_dir: Path, path: str) -> Path:
    """The task's working directory: its ``path`` (``./x/y``, ``x/y`` or empty) under the repo."""
    rel = path.removeprefix("./")
    rel = rel.strip("/") or "."
    return repo_dir / rel
