"""The 14 ML-Bench repositories (folder names, GitHub slugs, pinned commits, by github_id), and
the one place that finds a task's repository folder and working directory under ``--repos``.

A task that names its repository (``Task.repo``, see ``ragcode.bench.repo_tasks``) is found
without any ML-Bench table: ``owner/name`` at ``ROOT/owner+name`` or ``ROOT/name``, a bare name at
``ROOT/name``, a folder path where it points. ``require_task_repo`` also checks the checkout's
commit against the task's pin (``checkout_commit``).
"""

from __future__ import annotations

import logging
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragcode.errors import RepoCommitError, RepoNotFoundError, TaskFormatError

if TYPE_CHECKING:
    from ragcode.types import Task

log = logging.getLogger(__name__)
SLUG = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
COMMITS_FILE = "commits.txt"  # under --repos: "<folder> <commit>" lines, for checkouts without .git


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


def is_slug(repo: str) -> bool:
    """Whether a task's ``repo`` is a GitHub ``owner/name`` (else a folder name or path)."""
    return bool(SLUG.fullmatch(repo)) and not repo.startswith(".")


def is_folder_path(repo: str) -> bool:
    """Whether a task's ``repo`` is a folder path (absolute, ``./``, ``../``, ``~`` or several
    parts) rather than a name under ``--repos``."""
    return "/" in repo and not is_slug(repo) or repo.startswith(("~", "."))


def named_repo_dir(repo: str, repos_dir: str | Path) -> Path:
    """The folder of ``owner/name`` (``ROOT/owner+name`` when it exists, else ``ROOT/name``) or
    of a bare name under ``repos_dir``; it need not exist."""
    root = Path(repos_dir)
    if is_slug(repo):
        owner, name = repo.split("/")
        both = root / f"{owner}+{name}"
        return both if both.is_dir() else root / name
    return root / repo


def repo_dir_for(task: Task | int, repos_dir: str | Path) -> tuple[Path, str]:
    """(folder path, folder name) of a task's (or a github_id's) repository under ``repos_dir``;
    the folder need not exist (see ``require_repo_dir`` / ``require_task_repo``)."""
    if not isinstance(task, int) and task.repo:
        path = Path(task.repo_path) if task.repo_path else named_repo_dir(task.repo, repos_dir)
        return path, path.name
    github_id = task if isinstance(task, int) else task.github_id
    folder = repo_folder(github_id)
    return Path(repos_dir) / folder, folder


def checkout_commit(repo_dir: Path, repos_dir: Path | None = None, names: tuple[str, ...] = ()) -> str:
    """The commit a checkout is at: ``git rev-parse HEAD`` in a git checkout, else its line in
    ``repos_dir/commits.txt`` (``<name> <commit>``, the name the folder's or one of ``names``,
    e.g. ``owner+name``); '' when neither tells."""
    if (repo_dir / ".git").exists():
        try:
            proc = subprocess.run(["git", "-C", str(repo_dir), "rev-parse", "HEAD"], capture_output=True,
                                  text=True, timeout=30)
            return proc.stdout.strip() if proc.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            return ""
    manifest = (repos_dir or repo_dir.parent) / COMMITS_FILE
    if manifest.is_file():
        for line in manifest.read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in (repo_dir.name, *names):
                return parts[1]
    return ""


def _how_to_get(task: Task, path: Path) -> str:
    if is_slug(task.repo):
        pin = f" && git -C {path} checkout {task.commit}" if task.commit else ""
        return f"get it with: git clone https://github.com/{task.repo} {path}{pin}"
    return "place the repository's checkout there"


def require_task_repo(task: Task, repos_dir: str | Path, needed_by: str = "") -> Path:
    """The existing folder of ``task``'s repository, its commit checked against ``task.commit``
    when the checkout tells one. ``RepoNotFoundError`` (saying how to get it) when the folder is
    missing, ``RepoCommitError`` when the checkout is at another commit. An ML-Bench task goes
    through ``require_repo_dir``."""
    if not task.repo:
        return require_repo_dir(task.github_id, repos_dir, needed_by)
    path, _folder = repo_dir_for(task, repos_dir)
    why = f", needed by {needed_by}" if needed_by else ""
    if not path.is_dir():
        where = path if task.repo_path or not is_slug(task.repo) else (
            f"{Path(repos_dir) / task.repo.replace('/', '+')} nor {path}")
        raise RepoNotFoundError(f"repository {task.repo} (task {task.id}{why}) not found: no folder "
                                f"{where}; {_how_to_get(task, path)}")
    if task.commit:
        at = checkout_commit(path.absolute(), None if task.repo_path else Path(repos_dir).resolve(),
                             (task.repo.replace("/", "+"),))
        if at and not (at.startswith(task.commit) or task.commit.startswith(at)):
            raise RepoCommitError(f"repository {task.repo} at {path} is at commit {at[:12]}, but task "
                                  f"{task.id} pins {task.commit[:12]}; run: git -C {path} checkout {task.commit}")
        if not at:
            log.info("%s: no .git and no %s line; commit %s not checked", path, COMMITS_FILE, task.commit[:12])
    return path


def require_task_repos(tasks: list[Task], repos_dir: str | Path, needed_by: str = "") -> None:
    """``require_task_repo`` for every task that names its repository, once per repository, so a
    missing or mis-pinned checkout stops a run before it starts (ML-Bench tasks are left alone)."""
    seen: set[tuple[str, str, str]] = set()
    for task in tasks:
        ident = (task.repo, task.repo_path, task.commit)
        if task.repo and ident not in seen:
            seen.add(ident)
            require_task_repo(task, repos_dir, needed_by)


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
