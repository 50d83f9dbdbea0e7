"""Fixtures for the LlamaIndex integration tests: a small repository and the network off."""

from __future__ import annotations

import socket
import textwrap
from pathlib import Path

import pytest

FILES = {
    "README.md": """\
        # Tiny trainer

        A small project used by the LlamaIndex integration tests.

        ## Install

        ```bash
        pip install -e .
        ```

        ## Training

        Train the classifier with a learning rate and a number of epochs:

        ```bash
        python train.py --lr 0.01 --epochs 3
        ```
        """,
    "train.py": '''\
        """Train the tiny classifier."""
        import argparse


        def build_parser():
            parser = argparse.ArgumentParser(description="train the classifier")
            parser.add_argument("--lr", type=float, default=0.1, help="learning rate")
            parser.add_argument("--epochs", type=int, default=3, help="number of epochs")
            return parser


        def main():
            args = build_parser().parse_args()
            print(args.lr, args.epochs)


        if __name__ == "__main__":
            main()
        ''',
    "tiny/model.py": '''\
        """The model."""


        class Classifier:
            """A linear classifier over feature vectors."""

            def __init__(self, dim):
                self.weights = [0.0] * dim

            def predict(self, features):
                score = sum(w * x for w, x in zip(self.weights, features))
                return 1 if score > 0 else 0
        ''',
}


def write_repo(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def tiny_repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "tiny-repo")


@pytest.fixture
def network_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection to a non-loopback address fails; no OpenAI key is visible."""
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") \
                and self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"network is off in this test (tried {address!r})")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def restore_llamaindex_settings():
    """LlamaIndex ``Settings`` is global: put back whatever a test changed."""
    from llama_index.core import Settings

    saved = (Settings._llm, Settings._embed_model)
    yield Settings
    Settings._llm, Settings._embed_model = saved
