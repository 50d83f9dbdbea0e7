"""Definitions an instruction describes in plain words (``ragcode.retrieval.definitions``) and
their api chunks in a Python instruction's context (``context.api_described``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ragcode.config import load_config
from ragcode.retrieval.definitions import DefinitionIndex, stems

POS_EMBED = textwrap.dedent('''\
    import numpy as np


    def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
        """Fixed 2D sine-cosine position embedding over a square grid of tokens."""
        return np.zeros((grid_size * grid_size, embed_dim))


    def interpolate_checkpoint(model, checkpoint):
        """Resize the checkpoint's weights to the model."""
        return checkpoint


    def _grid(size):
        return size
    ''')

MODELS = textwrap.dedent('''\
    class VisionTransformer:
        """A plain ViT encoder."""

        def __init__(self, img_size=224, patch_size=16, depth=12):
            self.depth = depth

        def forward_features(self, x):
            return x


    def vit_large_patch16(**kwargs):
        return VisionTransformer(depth=24, **kwargs)
    ''')

README = textwrap.dedent('''\
    # Masked image models

    Pre-train a vision transformer on ImageNet, then fine-tune it for classification.

    ## Pre-training

    ```
    python main_pretrain.py --model vit_large_patch16 --batch_size 64 --epochs 800
    ```

    ## Position embeddings

    The encoder adds a fixed 2D sine-cosine position embedding to its tokens, computed on the
    grid of patches, with one more row for the class token. The position embedding is fixed:
    a sine-cosine embedding of each token's position on the grid is not learned.

    ## Fine-tuning

    ```
    python main_finetune.py --model vit_large_patch16 --finetune checkpoint.pth
    ```
    ''')

PY_TASK = ("In Python, compute the fixed 2D sine-cosine position embedding for "
           "768-dimensional tokens on a 14x14 grid, with a class token.")


def _defn(name, signature, doc="", kind="function", parent="", path="m.py"):
    return {"name": name, "qualname": f"m.{parent + '.' if parent else ''}{name}", "kind": kind,
            "signature": signature, "doc": doc, "parent": parent, "path": path}


def test_stems_cut_words_to_five_letters_and_drop_numbers():
    assert set(stems("position embeddings for 768-dim tokens")) == {"posit", "embed", "dim", "token"}
    assert set(stems("get_2d_sincos_pos_embed")) == {"get", "sinco", "pos", "embed"}
    # prose camel case and a snake-case name meet on the letters' whole run
    assert "resne" in set(stems("a DETR ResNet-50 model")) & set(stems("def detr_resnet50(pretrained)"))


def test_the_described_definition_ranks_first_and_a_stray_word_is_not_enough():
    index = DefinitionIndex([
        _defn("get_2d_sincos_pos_embed",
              "def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False)", "Fixed 2D sine-cosine position embedding over a square grid."),
        _defn("interpolate_checkpoint", "def interpolate_checkpoint(model, checkpoint)",
              "Resize the checkpoint's weights to the model."),
        _defn("_grid", "def _grid(size)", "A grid of tokens with position embedding."),
    ])
    best = index.best(PY_TASK)
    assert [d["name"] for d in best] == ["get_2d_sincos_pos_embed"]  # _grid is private
    assert index.best("In Python, resize the weights of a checkpoint")[0]["name"] == \
        "interpolate_checkpoint"
    assert index.best("In Python, print the grid") == []  # one shared word is not enough


def test_a_constructor_speaks_for_its_class_and_self_is_not_a_word():
    index = DefinitionIndex([
        _defn("__init__", "def __init__(self, z_dim, w_dim, img_resolution, img_channels)",
              kind="method", parent="Generator"),
        _defn("forward", "def forward(self, z, c)", kind="method", parent="Generator"),
    ])
    (best,) = index.best("In Python, build a generator for 256x256 images with 512-dim z "
                         "and w latents", limit=1)
    assert best["name"] == "__init__" and best["parent"] == "Generator"
    assert index.best("In Python, use self and forward it") == \
        index.best("In Python, forward it")


GUIDE_SECTION = textwrap.dedent('''\
    ## Position embeddings, part {n}

    The encoder adds a fixed 2D sine-cosine position embedding to its 768-dimensional tokens,
    computed on the 14x14 grid of patches, with one more row for the class token. The position
    embedding is fixed: a sine-cosine embedding of each token's position on the grid, for a
    class token too, is not learned; part {n} of the guide says why the grid is square.
    ''')


def _make_repo(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)  # passages that outrank the api listing, naming nothing
    (root / "docs" / "GUIDE.md").write_text("\n".join(GUIDE_SECTION.format(n=n) for n in range(6)))
    (root / "util").mkdir(parents=True)
    (root / "util" / "pos_embed.py").write_text(POS_EMBED)
    (root / "models_vit.py").write_text(MODELS)
    (root / "README.md").write_text(README)
    return root


@pytest.fixture()
def indexed(tmp_path):
    from ragcode.index.build import index_repo

    cfg = load_config(None, ["embedder.enabled=false", "retrieval.mode=bm25", "retrieval.k=3",
                             "context.pair_top=1",
                             f"index.cache_dir={tmp_path / 'cache'}"])
    idx = index_repo(_make_repo(tmp_path / "repo"), cfg, name="mim", out=tmp_path / "indexes",
                     progress=False)
    yield idx, cfg
    idx.close()


def _with(cfg, **context):
    return cfg.model_copy(update={"context": cfg.context.model_copy(update=context)})


def test_a_python_instruction_gets_the_signature_it_describes(indexed):
    from ragcode.retrieval.search import retrieve_context

    idx, cfg = indexed
    on = retrieve_context(idx, PY_TASK, cfg).text
    off = retrieve_context(idx, PY_TASK, _with(cfg, api_described=0)).text
    signature = "get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False) - Fixed"
    assert signature in on and "# API of util.pos_embed (util/pos_embed.py)" in on
    assert signature not in off  # neither named nor linked from a passage


def test_a_command_instruction_is_left_as_it_was(indexed):
    from ragcode.retrieval.search import retrieve_context

    idx, cfg = indexed
    command = "Pre-train the large ViT with a 2D sine-cosine position embedding for 800 epochs"
    assert retrieve_context(idx, command, cfg).text == \
        retrieve_context(idx, command, _with(cfg, api_described=0)).text
