"""``mlbench run --setting agent``: ``generation.n`` independent episodes per task.

The run's context builder has already built (or updated) the repository's index and retrieved
the task's context, which is what a fallback answer uses; the episodes read the repository
checkout under ``--repos`` and record themselves in ``RUN/trajectories/TASK.jsonl`` (one file
per task, every episode in it), so a killed run resumes mid-episode. In ``samples.jsonl`` each
candidate's metadata points at its trajectory instead of repeating it.

Which folder under ``--repos`` holds a task's repository is the benchmark's knowledge, and bench
sits above agent, so it is not imported here: ``locate`` is a function ``(task, repos_dir) ->
(repo_dir, folder)`` or a name in ``LOCATORS`` (default ``mlbench``, ML-Bench's folder table
``ragcode.bench.repos.repo_dir_for``, looked up by name on first use).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcode.agent.trajectory import safe_name
from ragcode.registry import Registry
from ragcode.types import Candidate, Context, Task

TRAJECTORIES = "trajectories"
Locator = Callable[[Task, Path], "tuple[Path, str]"]
LOCATORS = Registry("repository locator", {"mlbench": "ragcode.bench.repos:repo_dir_for"})


def trajectory_file(run_dir: str | Path, task_key: str) -> Path:
    return Path(run_dir) / TRAJECTORIES / f"{safe_name(task_key)}.jsonl"


def agent_generate_fn(config: Any, llm: Any, repos_dir: str | Path, run_dir: str | Path,
                      locate: Locator | str = "mlbench", index_name: Callable[[str], str] | None = None,
                      ) -> Callable[[Task, "Context | None"], list[Candidate]]:
    """The runner's ``generate(task, context)`` for the agent setting; ``locate`` finds a task's
    repository folder under ``repos_dir`` (see the module doc); ``index_name(folder)`` names its
    index under ``index.root`` (default: the folder's name, as ``mlbench run`` builds them; an
    ablation names them per chunking + embedder setting)."""
    from ragcode.agent.loop import run_episode
    from ragcode.agent.tools import AgentEnv
    from ragcode.agent.trajectory import Trajectory
    from ragcode.index.store import load_index

    find = LOCATORS.get(locate) if isinstance(locate, str) else locate
    indexes: dict[str, Any] = {}

    def generate(task: Task, context: Context | None) -> list[Candidate]:
        repo_dir, folder = find(task, Path(repos_dir))
        if folder not in indexes:
            indexes[folder] = load_index(index_name(folder) if index_name else folder, config)
        env = AgentEnv(repo_dir, indexes[folder], config, task.path or ".", task.instruction, folder)
        path = trajectory_file(run_dir, task.key)
        traj = Trajectory(path, make_parent=True)
        out = []
        for episode in range(config.generation.n):
            cand = run_episode(task.instruction, env, llm, config, traj, episode, context=context)
            steps = cand.metadata.pop("trajectory", [])
            cand.metadata["trajectory"] = {"file": f"{TRAJECTORIES}/{path.name}", "episode": episode,
                                           "steps": len(steps)}
            out.append(cand)
        return out

    return generate
