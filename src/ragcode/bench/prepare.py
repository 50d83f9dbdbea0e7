"""``ragcode mlbench prepare``: the 14 repositories at their pinned commits under ML-Bench's folder names.

Existing folders are verified (present; when a ``.git`` exists, ``HEAD`` must match the pin);
missing ones are cloned with git and checked out at the pin. Without a network the first failed
contact stops further attempts, and every missing repository is listed with the commands to
place it by hand.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ragcode.bench.repos import MLBENCH_REPOS, BenchRepo

_GIT_ENV = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}


@dataclass
class RepoStatus:
    repo: BenchRepo
    state: str  # ok | unverified | wrong-commit | missing | cloned | clone-failed
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.state in ("ok", "unverified", "cloned")

    def manual_steps(self, repos_dir: Path) -> str:
        d = repos_dir / self.repo.folder
        return (f"git clone {self.repo.url} {d} && git -C {d} checkout {self.repo.commit}   "
                f"(or copy a source tree of {self.repo.slug}@{self.repo.commit} to {d})")


def _git(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, timeout=timeout, env=_GIT_ENV)


def verify_repo(repos_dir: Path, repo: BenchRepo) -> RepoStatus:
    d = repos_dir / repo.folder
    if not d.is_dir():
        return RepoStatus(repo, "missing", f"{d} does not exist")
    if not (d / ".git").exists():
        return RepoStatus(repo, "unverified", "no .git: present, commit cannot be checked")
    try:
        head = _git("-C", str(d), "rev-parse", "HEAD", timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return RepoStatus(repo, "unverified", f"git rev-parse failed: {exc}")
    if head and head.startswith(repo.commit):
        return RepoStatus(repo, "ok", head[:12])
    return RepoStatus(repo, "wrong-commit", f"HEAD is {head[:12] or '?'}, pinned {repo.commit}; "
                                             f"run: git -C {d} checkout {repo.commit}")


def clone_repo(repos_dir: Path, repo: BenchRepo, timeout: float = 1800) -> RepoStatus:
    d = repos_dir / repo.folder
    try:
        proc = _git("clone", "--quiet", repo.url, str(d), timeout=timeout)
        if proc.returncode != 0:
            return RepoStatus(repo, "clone-failed", proc.stderr.strip().splitlines()[-1] if proc.stderr else "git clone failed")
        proc = _git("-C", str(d), "checkout", "--quiet", repo.commit, timeout=300)
        if proc.returncode != 0:
            return RepoStatus(repo, "clone-failed", f"checkout {repo.commit}: {proc.stderr.strip()}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return RepoStatus(repo, "clone-failed", str(exc))
    return RepoStatus(repo, "cloned", repo.commit)


def network_reachable(url: str, timeout: float = 15) -> tuple[bool, str]:
    try:
        proc = _git("ls-remote", "--heads", url, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    return proc.returncode == 0, (proc.stderr.strip().splitlines() or [""])[-1]


def prepare_repos(repos_dir: str | Path, clone: bool = True, github_ids: list[int] | None = None) -> list[RepoStatus]:
    repos_dir = Path(repos_dir)
    repos_dir.mkdir(parents=True, exist_ok=True)
    wanted = [MLBENCH_REPOS[g] for g in (github_ids or sorted(MLBENCH_REPOS))]
    statuses = [verify_repo(repos_dir, r) for r in wanted]
    online: bool | None = None
    offline_reason = ""
    for i, st in enumerate(statuses):
        if st.state != "missing" or not clone:
            continue
        if online is None:
            online, offline_reason = network_reachable(st.repo.url)
        if not online:
            statuses[i] = RepoStatus(st.repo, "missing", f"not cloned: cannot reach github.com ({offline_reason})")
            continue
        statuses[i] = clone_repo(repos_dir, st.repo)
    return statuses
