"""Ctrl-C during ``ragcode index``: a real subprocess, a real index of a small fixture repository
with the real embedder (onnxruntime), and a real SIGINT delivered while the background embedding
thread is inside the model's native call. It must stop with the resume hint and exit 130, never abort in
the interpreter's teardown (``terminate called without an active exception``, exit 134: a daemon
thread unwound out of C++ code)."""

from __future__ import annotations

import subprocess
import sys

from bench_helpers import cli_env
from fixture_repo import make_fixture_repo

# The moment is chosen, the rest is real: the main thread, waiting for the background embedding
# to finish, sends itself SIGINT once that thread has entered the model
INTERRUPTING = """
import os, signal, sys, threading
# Ctrl-C as a terminal delivers it: a shell that starts a job in the background without job
# control hands it SIGINT ignored, and Python then keeps it ignored
signal.signal(signal.SIGINT, signal.default_int_handler)
from ragcode.embedding import cache
from ragcode.index import parallel

in_model = threading.Event()
real_embed = cache.CachedEmbedder.embed


class Entering:  # onnxruntime's session: says when the model call has begun
    def __init__(self, session):
        self.session = session

    def run(self, *args):
        in_model.set()
        return self.session.run(*args)


def embed(self, texts, on_progress=None):
    model = self.inner  # loaded on first use
    if not isinstance(model.session, Entering):
        model.session = Entering(model.session)
    return real_embed(self, texts, on_progress)


real_finish = parallel.Prefetch.finish

def finish(self):
    self._queue.put(None)  # the rest goes to the model now
    if not in_model.wait(120):
        sys.exit(99)  # the model was never called: the test proves nothing
    os.kill(os.getpid(), signal.SIGINT)
    return real_finish(self)

class SlowTeardown:
    # a teardown as slow as a process with many native libraries loaded has: the model call
    # then ends while the interpreter is finalizing, so the abort is certain, not a race
    def __del__(self, sleep=__import__("time").sleep):  # nothing can be imported at that point
        for _ in range(600):
            sleep(0.1)

cache.CachedEmbedder.embed = embed
parallel.Prefetch.finish = finish
teardown = SlowTeardown()
from ragcode.cli import main
main(sys.argv[1:])
"""
PARAGRAPH = "The generator is trained on cifar10 with a batch size of 64 and the Adam optimiser. " * 12


def test_ctrl_c_while_the_model_embeds_exits_130_with_the_resume_hint(tmp_path):
    repo = make_fixture_repo(tmp_path / "demo")
    (repo / "docs").mkdir(exist_ok=True)
    (repo / "docs" / "guide.md").write_text("\n\n".join(f"## Step {j}\n\n{PARAGRAPH}" for j in range(20)))
    argv = [sys.executable, "-c", INTERRUPTING, "index", str(repo), "--out", str(tmp_path / "idx"),
            "--set", f"index.cache_dir={tmp_path / 'cache'}", "--set", "embedder.backend=onnx",
            "--set", "embedder.batch_size=256"]  # one long model call
    proc = subprocess.run(argv, env=cli_env(RAGCODE_CACHE=str(tmp_path / "cache")), capture_output=True,
                          text=True, timeout=600)
    assert "terminate called" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert "run the same command to resume" in proc.stderr
    assert not (tmp_path / "idx" / "demo" / "manifest.json").exists()  # nothing half-built was committed
