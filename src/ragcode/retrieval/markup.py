"""Markdown markup that costs context budget and tells a code model nothing.

``strip_markup(lines)`` rewrites documentation lines outside code fences:

- images (``![alt](target)``) go, badges included (``[![alt](img)](link)``);
- a link to a web address keeps its text and loses the address (``[docs](https://..)`` ->
  ``docs``); a link to a repository file (``[train.sh](scripts/train.sh)``) is kept whole, since
  it names something the answer may run;
- HTML tags (``<p align="center">``, ``<img ...>``, ``<br/>``) go; placeholders such as
  ``<DATA_DIR>`` or ``<path/to/ckpt>`` are not HTML and stay;
- a line left with nothing but punctuation is dropped.

Fenced code (as the markdown chunker finds it, ``chunking.markdown.fence_mask``) is never
touched. ML-Bench's own oracle passages are rendered README text (link
addresses and images gone), so this is also closer to what annotators read.
"""

from __future__ import annotations

import re

from ragcode.chunking.markdown import fence_mask

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_WEB_LINK = re.compile(r"\[([^\]]*)\]\((?:https?|ftp)://[^)\s]*(?:\s+\"[^\"]*\")?\)")
_EMPTY_LINK = re.compile(r"\[\s*\]\([^)]*\)")
_HTML_TAGS = (
    "a", "abbr", "b", "br", "center", "code", "details", "div", "em", "font", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "picture", "pre", "source", "span",
    "strong", "sub", "summary", "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
    "video",
)
_HTML = re.compile(r"</?(?:%s)(?:\s[^<>]*)?/?>" % "|".join(_HTML_TAGS), re.IGNORECASE)
_HTML_COMMENT = re.compile(r"<!--.*?-->")
_NOTHING_LEFT = re.compile(r"^[\s\W_]*$")


def strip_line(line: str) -> str:
    """One prose line without images, web-link addresses and HTML tags."""
    out = _IMAGE.sub("", line)
    out = _WEB_LINK.sub(r"\1", out)
    out = _EMPTY_LINK.sub("", out)
    out = _HTML_COMMENT.sub("", out)
    return _HTML.sub("", out)


def strip_markup(lines: list[str]) -> list[str]:
    """``lines`` with prose markup removed outside code fences (see the module docstring)."""
    out: list[str] = []
    for line, in_fence in zip(lines, fence_mask(lines)):
        if in_fence or not line.strip():
            out.append(line)
            continue
        new = strip_line(line)
        if new != line and _NOTHING_LEFT.match(new):
            continue  # a badge row, an image, a bare <p> tag
        out.append(new.rstrip() if new != line else line)
    return out
