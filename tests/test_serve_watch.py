"""``--watch`` and the index swap, in process: a lease keeps the old index open across a swap,
an edited file is found after the watcher's next look, and searches running while the index is
updated again and again always get a whole index (the old one or the new one)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from agent_helpers import agent_config
from serve_helpers import serve_fixture

from ragcode.serve.served import open_served
from ragcode.serve.server import run_call
from ragcode.serve.tools import Catalogue
from ragcode.serve.watch import Watcher

NEW_WORD = "quokkafeature"


def _catalogue(tmp_path: Path) -> tuple[Path, Catalogue]:
    repo, index_dir = serve_fixture(tmp_path)
    cat = Catalogue(open_served([str(index_dir)], agent_config(tmp_path)))
    return repo, cat


def _search(cat: Catalogue, query: str) -> list[str]:
    tools = {t.name: t for t in cat.tools()}
    obs = run_call(cat, tools, "search", {"query": query, "k": 5})
    return [cid.split(":", 1)[0] for cid in obs.chunk_ids]


def test_a_lease_keeps_the_old_index_open_across_a_swap(tmp_path: Path):
    from ragcode.index.store import open_index_dir

    _, cat = _catalogue(tmp_path)
    served = cat.served[0]
    with served.lease() as old:
        served.swap(open_index_dir(served.dir))
        assert served.index is not old and served.updates == 1
        assert old._store.count() > 0  # still open: the call that leased it finishes on it
    with pytest.raises(sqlite3.ProgrammingError):
        old._store.count()  # closed with its last lease
    with served.lease() as new:
        assert new._store.count() > 0
    served.close()


def test_a_file_edited_while_serving_is_found_after_the_next_look(tmp_path: Path):
    repo, cat = _catalogue(tmp_path)
    watcher = Watcher(cat.served)
    assert watcher.poll(cat.served[0]) is False  # nothing changed yet
    assert "implementations/wgan/wgan.py" not in _search(cat, NEW_WORD)
    wgan = repo / "implementations" / "wgan" / "wgan.py"
    wgan.write_text(wgan.read_text() + f"\n\ndef {NEW_WORD}():\n    return 'a {NEW_WORD} helper'\n")
    assert watcher.poll(cat.served[0]) is True
    assert _search(cat, NEW_WORD)[0] == "implementations/wgan/wgan.py"
    assert watcher.poll(cat.served[0]) is False  # seen: no second update
    (repo / "notes.md").write_text(f"# Notes\n\nThe {NEW_WORD} lives in wgan.\n")  # a new file
    assert watcher.poll(cat.served[0]) is True
    assert "notes.md" in _search(cat, NEW_WORD)
    assert cat.served[0].updates == 2
    cat.served[0].close()


def test_searches_during_updates_always_see_a_whole_index(tmp_path: Path):
    """The bug this pins: a search reading an index while an update replaces its files. Every
    search must succeed, on the old index or the new one."""
    repo, cat = _catalogue(tmp_path)
    served = cat.served[0]
    watcher = Watcher(cat.served)
    notes = repo / "notes.md"
    results: list[list[str]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def search_loop() -> None:
        while not done.is_set():
            try:
                results.append(_search(cat, f"{NEW_WORD} dcgan"))
            except BaseException as exc:  # noqa: BLE001 - recorded, asserted below
                errors.append(exc)

    searcher = threading.Thread(target=search_loop)
    searcher.start()
    try:
        for round_ in range(6):
            if round_ % 2 == 0:
                notes.write_text(f"# Notes {round_}\n\nthe {NEW_WORD} of round {round_}\n")
            else:
                notes.unlink()
            assert watcher.poll(served) is True
    finally:
        done.set()
        searcher.join()
    assert not errors, errors[:3]
    assert len(results) > 0
    assert all(r and all(p in {"README.md", "CONTRIBUTING.md", "notes.md", "implementations/dcgan/dcgan.py",
                               "implementations/wgan/wgan.py"} for p in r) for r in results)
    assert served.updates == 6 and "notes.md" not in _search(cat, NEW_WORD)  # deleted last
    served.close()
