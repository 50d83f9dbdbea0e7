"""One agent episode: the model calls tools until it submits or a budget runs out.

Each step is one model call and (at most) one tool call; its result goes back as the next
message. Budgets (``agent.*``): ``max_steps`` model calls, ``max_tokens`` prompt + reply tokens
summed over the calls, ``max_seconds`` of wall time (steps and tools), ``max_observation_chars``
per tool result. The conversation is kept under the model's context (``generation.llm.n_ctx``
less ``agent.reply_tokens``) by replacing the oldest results with a one-line note.

Every episode ends with an answer: the submitted one; else, when a budget ran out, the best
answer that ``check`` or ``run`` judged during the episode (fewest findings, the later on a
tie); else the single-shot answer with the retrieved context (``generate_from_config``).
Only the instruction reaches the model; the task's working directory is used by ``check`` and
``run`` alone, as in checked generation.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from ragcode.agent.protocol import Call, Turn, choose_protocol, count_message
from ragcode.agent.schema import Observation, Tool, ToolCallError
from ragcode.agent.tools import AgentEnv, cut, load_tools
from ragcode.agent.trajectory import Trajectory, message_hash
from ragcode.generation.generate import to_candidate
from ragcode.generation.llm import LLM, Sampling
from ragcode.types import Candidate, Context, sha256_text

log = logging.getLogger(__name__)

StepHook = Callable[[dict[str, Any], bool], None]  # (step record, read back from the file)
ContextSource = Context | None | Callable[[], "Context | None"]
_PRIVATE = ("type", "episode", "assistant", "feedback")


def run_episode(instruction: str, env: AgentEnv, llm: LLM, config: Any,
                trajectory: Trajectory | None = None, episode: int = 0,
                on_step: StepHook | None = None, context: ContextSource = None) -> Candidate:
    """Episode ``episode`` of ``instruction`` (resumed from ``trajectory`` where it has steps);
    ``context`` (or a function returning it) is the retrieved context a fallback answer uses."""
    agent = config.agent
    if callable(context):  # retrieved once, for the task message and a fallback answer
        context = functools.cache(context)
    tools = load_tools(tuple(agent.tools), agent.search_k)
    protocol = choose_protocol(agent.protocol, llm)
    base = Sampling.from_config(config.generation.llm)
    sampling = dataclasses.replace(base, max_tokens=agent.reply_tokens, seed=base.seed + episode,
                                   stop=tuple(dict.fromkeys(base.stop + protocol.stop)))
    header = {"instruction_sha256": sha256_text(instruction), "model": llm.model_id,
              "protocol": protocol.name, "tools": [t.name for t in tools],
              "agent": agent.model_dump(mode="json"), "seed": sampling.seed}
    traj = trajectory if trajectory is not None else Trajectory()
    state = traj.open_episode(episode, header)
    steps = list(state.steps)
    for rec in steps:
        if on_step is not None:
            on_step(rec, True)
    if state.final is not None:
        return _candidate(state.final["text"], episode, state.final["metadata"], steps)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": protocol.system_prompt(tools, agent.max_steps)},
        {"role": "user", "content": task_message(instruction, context, agent.context_chars)}]
    for rec in steps:
        messages += [rec["assistant"], *rec["feedback"]]
    used_tokens = sum(r["tokens"]["prompt"] + r["tokens"]["completion"] for r in steps)
    used_s = sum(r["seconds"] for r in steps)
    started = time.monotonic()
    window = max(256, config.generation.llm.n_ctx - agent.reply_tokens)
    by_name = {t.name: t for t in tools}
    stop = ""
    while True:
        k = len(steps) + 1
        prompt: list[dict[str, Any]] = []
        if steps and steps[-1].get("done"):
            stop = "submitted"
        elif k > agent.max_steps:
            stop = "max_steps"
        elif used_s + time.monotonic() - started >= agent.max_seconds:
            stop = "max_seconds"
        else:
            prompt = fit_window(messages, llm, window)
            if used_tokens + sum(count_message(llm, m) for m in prompt) > agent.max_tokens:
                stop = "max_tokens"
        if stop:
            break
        t0 = time.monotonic()
        turn = protocol.ask(llm, prompt, tools, sampling)
        results, obs = execute(turn.calls, by_name, env)
        note = "One tool call left: submit your answer now." if k + 1 == agent.max_steps else ""
        rec = _step_record(episode, k, prompt, turn, results[0], obs, time.monotonic() - t0)
        rec["feedback"] = [] if rec["done"] else protocol.feedback(turn, results, note)
        traj.append(rec)
        steps.append(rec)
        messages += [rec["assistant"], *rec["feedback"]]
        used_tokens += turn.prompt_tokens + turn.completion_tokens
        if on_step is not None:
            on_step(rec, False)
    seconds = used_s + time.monotonic() - started
    meta: dict[str, Any] = {"model": llm.model_id, "agent": {
        "episode": episode, "protocol": protocol.name, "stop": stop, "steps": len(steps),
        "tokens": used_tokens, "seconds": round(seconds, 3)},
        "chunk_ids": list(dict.fromkeys(cid for r in steps for cid in r.get("chunk_ids") or []))}
    text = _final_answer(stop, steps, meta, instruction, env, llm, config, episode, context)
    traj.append({"type": "final", "episode": episode, "stop": stop, "source": meta["agent"]["source"],
                 "text": text, "metadata": meta})
    return _candidate(text, episode, meta, steps)


def task_message(instruction: str, context: ContextSource, chars: int) -> str:
    """The first user message: the task, and (``chars`` > 0) its retrieved context, cut there."""
    text = f"Task: {instruction}"
    if chars <= 0 or context is None:
        return text
    ctx = context() if callable(context) else context
    found = (ctx.text if ctx is not None else "").strip()
    if not found:
        return text
    if len(found) > chars:
        found = found[:chars].rsplit("\n", 1)[0] + "\n[...]"
    return (f"{text}\n\nWhat a search of the repository found for this task (search, open "
            f"and cli show more):\n{found}")


def execute(calls: list[Call], tools: dict[str, Tool], env: AgentEnv) -> tuple[list[str], Observation | None]:
    """Run the first call of a reply (the others are refused: one call per step); a result
    text per call, and the first call's ``Observation`` when it ran."""
    results: list[str] = []
    first: Observation | None = None
    for i, call in enumerate(calls):
        if i > 0:
            results.append("not run: one tool call per step")
            continue
        if call.error:
            results.append(call.error)
            continue
        tool = tools.get(call.name)
        if tool is None:
            results.append(f"unknown tool {call.name!r}; the tools are {', '.join(tools)}")
            continue
        try:
            first = tool(env, call.arguments)
            results.append(cut(first.text, env.limit))
        except ToolCallError as exc:
            results.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - a tool failure is the model's observation, not a crash
            log.warning("agent tool %s failed", call.name, exc_info=True)
            results.append(f"{call.name} failed: {type(exc).__name__}: {exc}"[:500])
    return results, first


def fit_window(messages: list[dict[str, Any]], llm: LLM, window: int) -> list[dict[str, Any]]:
    """``messages`` with the oldest tool results replaced by a one-line note until the whole
    conversation fits ``window`` tokens (the system prompt, the task and the newest result stay)."""
    sizes = [count_message(llm, m) for m in messages]
    total = sum(sizes)
    out = list(messages)
    for i in range(2, len(out) - 1):
        if total <= window:
            break
        m = out[i]
        if m.get("role") in ("tool", "user") and m.get("content"):
            short = dict(m, content=f"[result dropped to fit the context ({len(m['content'])} "
                                    "characters); call the tool again if you need it]")
            total -= sizes[i] - count_message(llm, short)
            out[i] = short
    return out


def _step_record(episode: int, k: int, prompt: list[dict[str, Any]], turn: Turn, observation: str,
                 obs: Observation | None, seconds: float) -> dict[str, Any]:
    call = turn.calls[0]
    return {
        "type": "step", "episode": episode, "step": k,
        "messages": [message_hash(m) for m in prompt],
        "reply": turn.raw,
        "call": {"name": call.name, "arguments": call.arguments} if call.name else None,
        "error": "" if obs is not None else observation,
        "observation": observation, "observation_chars": len(observation),
        "tokens": {"prompt": turn.prompt_tokens, "completion": turn.completion_tokens},
        "seconds": round(seconds, 3),
        "chunk_ids": list(obs.chunk_ids) if obs is not None else [],
        "proposed": obs.proposed if obs is not None else None,
        "done": bool(obs is not None and obs.done),
        "answer": obs.answer if obs is not None and obs.done else "",
        "assistant": turn.assistant,
    }


def _final_answer(stop: str, steps: list[dict[str, Any]], meta: dict[str, Any], instruction: str,
                  env: AgentEnv, llm: LLM, config: Any, episode: int, context: ContextSource) -> str:
    if stop == "submitted":
        meta["agent"]["source"] = "submit"
        return steps[-1]["answer"]
    judged = [(r["proposed"], r["step"]) for r in steps if r.get("proposed")]
    if judged:
        best, step = min(judged, key=lambda p: (p[0]["penalty"], -p[1]))
        meta["agent"].update(source=f"best-{best['tool']}", from_step=step, penalty=best["penalty"])
        return str(best["answer"])
    from ragcode.answering import generate_from_config

    ctx = context() if callable(context) else context
    cfg = config.model_copy(deep=True)
    cfg.generation.llm.seed = config.generation.llm.seed + episode
    check_ctx = env.check_context() if cfg.generation.check else None
    cand = generate_from_config(instruction, ctx, llm, cfg, check_ctx, n=1)[0]
    meta["agent"]["source"] = "single-shot"
    meta["single_shot"] = {k: v for k, v in cand.metadata.items() if k not in ("fenced", "fence_label")}
    return cand.text


def _candidate(text: str, episode: int, meta: dict[str, Any], steps: list[dict[str, Any]]) -> Candidate:
    trajectory = [{k: v for k, v in r.items() if k not in _PRIVATE} for r in steps]
    return to_candidate(text, episode, meta, trajectory=trajectory)
