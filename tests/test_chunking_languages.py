"""tree-sitter code units beyond Python: C, C++, CUDA, JavaScript, TypeScript and shell, with
the real grammar packages; fallbacks when a grammar is missing or the code is minified."""

from __future__ import annotations

import logging

from ragcode.chunking import chunk_file, file_kind
from ragcode.chunking.code import chunk_code
from ragcode.chunking.languages import CPP, Language, language_for
from ragcode.config import ChunkingConfig
from ragcode.types import SourceFile, sha256_text

TINY = ChunkingConfig.model_validate({"code": {"max_chars": 60, "min_chars": 0}})

C_SRC = """\
#include <stdio.h>

/* a point */
struct point { int x; int y; };

static int add(int a, int b) {
    int s = a + b;
    return s;
}

#ifdef USE_MAIN
int main(int argc, char **argv) {
    printf("%d\\n", add(1, 2));
    return 0;
}
#endif
"""

CPP_SRC = """\
#include <vector>
namespace nn {
template <typename T>
class Net : public Base {
 public:
  T forward(const T& x) const {
    T y = x * weight_ + bias_;
    return y;
  }
 private:
  T weight_;
};
}  // namespace nn
"""

CUDA_SRC = """\
__global__ void add_kernel(float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}

void launch(float* a, float* b, int n) {
  add_kernel<<<(n + 255) / 256, 256>>>(a, b, n);
}
"""

JS_SRC = """\
import x from "y";
// adds two numbers
export function add(a, b) {
  return a + b;
}
export class Runner extends Base {
  run(job) {
    return job.start();
  }
}
const double = (v) => v * 2;
"""

TS_SRC = """\
interface Opts { lr: number; }
export class Trainer {
  fit(opts: Opts): void {
    console.log(opts.lr);
  }
}
"""

SH_SRC = """\
#!/bin/bash
set -e
# train one model
train() {
  python train.py --lr "$1"
}
train 0.1
"""


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _shape(chunks):  # type: ignore[no-untyped-def]
    return [(c.start_line, c.end_line, c.symbol, c.metadata.get("unit")) for c in chunks]


def _exact(chunks, text: str) -> None:  # type: ignore[no-untyped-def]
    lines = text.split("\n")
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])


def test_c_functions_structs_and_ifdef_blocks() -> None:
    chunks = chunk_code(_file("src/add.c", C_SRC), TINY)
    assert _shape(chunks) == [
        (1, 1, "", "module"),
        (3, 4, "point", "class"),  # the comment above stays with the struct
        (6, 9, "add", "function"),
        (11, 11, "", "module"),  # `#ifdef USE_MAIN` adds nothing to the path
        (12, 12, "main", "function"),  # signature + `{`
        (13, 16, "main", "body"),  # the closing brace and `#endif` stay with the last piece
    ]
    _exact(chunks, C_SRC)
    assert all(c.kind == "code" and c.language == "c" for c in chunks)
    assert chunks[5].header == "// src/add.c :: int main(int argc, char **argv)"
    whole = chunk_code(_file("src/add.c", C_SRC), ChunkingConfig())
    assert [(c.start_line, c.end_line) for c in whole] == [(1, 16)]
    assert whole[0].metadata["symbols"] == ["point", "add", "main"]  # main: inside #ifdef


def test_cpp_namespace_template_class_and_methods() -> None:
    chunks = chunk_code(_file("net.cpp", CPP_SRC), TINY)
    assert _shape(chunks) == [
        (1, 1, "", "module"),
        (2, 2, "nn", "namespace"),
        (3, 4, "nn::Net", "class"),  # the template line belongs to the class header
        (5, 5, "nn::Net", "body"),
        (6, 9, "nn::Net::forward", "method"),
        (10, 13, "nn::Net", "body"),  # `};` and the namespace's `}` close the last piece
    ]
    _exact(chunks, CPP_SRC)
    assert chunks[2].header == "// net.cpp :: namespace nn"
    assert chunks[4].header == "// net.cpp :: template <typename T> class Net : public Base"


def test_cuda_kernels_are_functions() -> None:
    chunks = chunk_code(_file("k/add.cu", CUDA_SRC), ChunkingConfig.model_validate(
        {"code": {"max_chars": 150, "min_chars": 0}}))
    assert _shape(chunks) == [(1, 4, "add_kernel", "function"), (6, 8, "launch", "function")]
    assert {c.language for c in chunks} == {"cuda"}
    assert chunk_code(_file("k/add.cuh", CUDA_SRC), ChunkingConfig())[0].language == "cuda"


def test_javascript_exports_classes_and_arrow_functions() -> None:
    cfg = ChunkingConfig.model_validate({"code": {"max_chars": 40, "min_chars": 0}})
    chunks = chunk_code(_file("web/app.js", JS_SRC), cfg)
    assert _shape(chunks) == [
        (1, 1, "", "module"),
        (2, 3, "add", "function"),  # comment + export function + `{`
        (4, 5, "add", "body"),
        (6, 6, "Runner", "class"),
        (7, 10, "Runner.run", "method"),
        (11, 11, "double", "function"),
    ]
    _exact(chunks, JS_SRC)
    assert chunks[2].header == "// web/app.js :: function add(a, b)"
    assert chunks[4].header == "// web/app.js :: class Runner extends Base"


def test_typescript_interfaces_and_methods() -> None:
    chunks = chunk_code(_file("src/train.ts", TS_SRC), TINY)
    assert _shape(chunks) == [
        (1, 1, "Opts", "class"), (2, 2, "Trainer", "class"),
        (3, 6, "Trainer.fit", "method"),
    ]
    assert chunks[0].language == "typescript"
    assert chunk_code(_file("ui/App.tsx", "export const App = () => <div/>;\n"),
                      ChunkingConfig())[0].symbol == "App"


def test_shell_functions_are_units_of_kind_shell() -> None:
    chunks = chunk_code(_file("scripts/run.sh", SH_SRC),
                        ChunkingConfig.model_validate({"code": {"max_chars": 30, "min_chars": 0}}))
    assert _shape(chunks) == [
        (1, 2, "", "module"), (3, 4, "train", "function"), (5, 6, "train", "body"),
        (7, 7, "", "module"),
    ]
    assert {(c.kind, c.language) for c in chunks} == {("shell", "bash")}
    assert chunks[2].header == "# scripts/run.sh :: train()"


def test_file_kinds_and_registry_route_each_extension() -> None:
    assert [file_kind(p) for p in ("a.c", "a.h", "a.cu", "a.js", "a.tsx", "a.sh", "a.py")] == [
        "code", "code", "code", "code", "code", "shell", "python"]
    assert language_for("inc/x.h") is CPP
    chunks = chunk_file(_file("src/add.c", C_SRC), ChunkingConfig())
    assert [c.kind for c in chunks] == ["code"] and chunks[0].language == "c"


def test_missing_grammar_degrades_to_line_windows_with_a_logged_reason(caplog) -> None:  # type: ignore[no-untyped-def]
    ghost = Language("ghost", "tree_sitter_no_such_grammar", units={"x": "function"})
    with caplog.at_level(logging.WARNING, logger="ragcode.chunking.languages"):
        chunks = chunk_code(_file("a.ghost", "line one\nline two\n"), ChunkingConfig(), ghost)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 2)]
    assert chunks[0].metadata == {"fallback": "no_grammar"} and chunks[0].language == "ghost"
    assert "no tree-sitter grammar for ghost" in caplog.text


def test_minified_code_becomes_line_windows() -> None:
    text = "var a=" + "1+" * 4000 + "1;\n"
    chunks = chunk_code(_file("static/app.min.js", text), ChunkingConfig())
    assert chunks and all(c.metadata == {"fallback": "long_lines"} for c in chunks)
    assert all(len(c.text) <= ChunkingConfig().text.max_chars for c in chunks)
