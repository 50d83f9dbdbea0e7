"""``mlbench run --setting agent``: ``generation.n`` independent episodes per task.

The run's context builder has already built (or updated) the repository's index and retrieved
the task's context, which is what a fallback answer uses; the episodes read the repository
checkout under ``--repos`` and record themselves in ``RUN/trajectories/TASK.jsonl`` (one file
per task, every episode in it), so a killed run resumes mid-episode. In ``samples.jsonl`` each
candidate's metadata points at its trajectory instead of repeating it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcode.agent.trajectory import safe_name
from ragcode.types import Candidate, Context, Task

TRAJECTORIES = "trajectories"


def trajectory_file(run_dir: str | Path, task_key: str) -> Path:
    return Path(run_dir) / TRAJECTORIES / f"{safe_name(task_key)}.jsonl"


def agent_generate_fn(config: Any, llm: Any, repos_dir: str | Path,
                      run_dir: str | Path) -> Callable[[Task, "Context | None"], list[Candidate]]:
    """The runner's ``generate(task, context)`` for the agent setting."""
    from ragcode.agent.loop import run_episode
    from ragcode.agent.tools import AgentEnv
    from ragcode.agent.trajectory import Trajectory
    from ragcode.bench.repos import repo_dir_for
    from ragcode.index.store import load_index

    indexes: dict[str, Any] = {}

    def generate(task: Task, context: Context | None) -> list[Candidate]:
        repo_dir, folder = repo_dir_for(task, Path(repos_dir))
        if folder not in indexes:
            indexes[folder] = load_index(folder, config)
        env = AgentEnv(repo_dir, indexes[folder], config, task.path or ".", task.instruction, folder)
        path = trajectory_file(run_dir, task.key)
        traj = Trajectory(path)
        out = []
        for episode in range(config.generation.n):
            cand = run_episode(task.instruction, env, llm, config, traj, episode, context=context)
            steps = cand.metadata.pop("trajectory", [])
            cand.metadata["trajectory"] = {"file": f"{TRAJECTORIES}/{path.name}", "episode": episode,
                                           "steps": len(steps)}
            out.append(cand)
        return out

    return generate
