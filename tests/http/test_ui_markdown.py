"""The web UI's inline markdown (``static/inline.js``) reads text as CommonMark does: checked, in
Node, against markdown-it-py's CommonMark renderer on the spec's kinds of emphasis, on what a
tool answer looks like (snake_case ids), and on thousands of strings of the characters that
matter, so an underscore inside a word never turns into emphasis again."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

INLINE_JS = Path(__file__).parents[2] / "src" / "runyard" / "http" / "ui" / "static" / "inline.js"

_RENDER = """
import { parseInline } from %s;
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;");
const html = (nodes) => nodes.map((n) => {
  if (n.t === "text") return escape(n.v);
  if (n.t === "code") return `<code>${escape(n.v)}</code>`;
  if (n.t === "link") return `<a href="${escape(n.href)}">${html(n.c)}</a>`;
  return `<${n.t}>${html(n.c)}</${n.t}>`;
}).join("");
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(JSON.parse(input).map((t) => html(parseInline(t)))));
});
"""

CASES = [
    'save_note returned {"id": "note_8b9c"}',
    "snake_case_words and __init__ and foo_bar_",
    "*foo bar*",
    "a * foo bar*",
    'a*"foo"*',
    "* a *",
    "foo*bar*",
    "5*6*78",
    "_foo bar_",
    "_ foo bar_",
    'a_"foo"_',
    "foo_bar_",
    "5_6_78",
    "пристаням_стремятся_",
    'aa_"bb"_cc',
    "foo-_(bar)_",
    "_foo*",
    "*foo bar *",
    "*(*foo)",
    "*(*foo*)*",
    "*foo*bar",
    "_foo bar _",
    "_(_foo)",
    "_(_foo_)_",
    "_foo_bar",
    "_пристаням_стремятся",
    "_foo_bar_baz_",
    "_(bar)_.",
    "**foo bar**",
    "** foo bar**",
    'a**"foo"**',
    "foo**bar**",
    "__foo bar__",
    "__ foo bar__",
    "foo__bar__",
    "__foo, __bar__, baz__",
    "foo-__(bar)__",
    "**foo bar **",
    "**(**foo)",
    "*(**foo**)*",
    '**foo "*bar*" foo**',
    "*foo**bar**baz*",
    "*foo**bar*",
    "***foo** bar*",
    "*foo **bar***",
    "foo***bar***baz",
    "foo******bar*********baz",
    "**foo *bar **baz**\nbim* bop**",
    "*foo *bar**",
    "**foo*",
    "*foo**",
    "***foo***",
    "_____foo_____",
    "*foo _bar* baz_",
    "**foo*bar**",
    "`code_with_underscores` and `a`b`",
    "`` ` `` and ```x`y```",
    r"\*not emphasis\* and \_neither\_",
    "see [the *docs*](https://example.com/a_b_c) now",
    "*[foo*](https://example.com)",
]


def _alphabet_strings(count: int) -> list[str]:
    rng = random.Random(28)
    alphabet = "**__ab .!`\\"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(count)]


def _rendered(texts: list[str], tmp_path: Path) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    script = tmp_path / "render.mjs"
    script.write_text(_RENDER % json.dumps(INLINE_JS.as_uri()))
    done = subprocess.run(
        [node, str(script)], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("texts", [CASES, _alphabet_strings(3000)], ids=["cases", "generated"])
def test_inline_markdown_reads_as_commonmark_does(texts: list[str], tmp_path: Path) -> None:
    commonmark = MarkdownIt("commonmark")
    ours = _rendered(texts, tmp_path)
    differ = [
        (text, mine, commonmark.renderInline(text))
        for text, mine in zip(texts, ours, strict=True)
        if mine != commonmark.renderInline(text)
    ]
    assert differ == []


def test_an_underscore_inside_a_word_stays_as_written(tmp_path: Path) -> None:
    (html,) = _rendered(['save_note returned {"id": "note_8b9c"} for list_notes'], tmp_path)
    assert html == "save_note returned {&quot;id&quot;: &quot;note_8b9c&quot;} for list_notes"
