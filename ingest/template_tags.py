"""Remove Liquid / Eleventy / Jekyll template tags (``{% … %}``, ``{{ … }}``) from source
text and from extracted element text.

Real handbooks keep these shortcodes in their Markdown (``[leave]({% page "/leave/" %})``,
``{% alert "Heads up!" %}``, ``{% slack_channel "people-ops" %}``) and format conversions
carry them over as literal text. A few carry words a reader needs, so they are rendered:
a Slack channel becomes ``#name`` and an alert keeps its title; comment blocks vanish with
their content; every other tag vanishes on its own.
"""

from __future__ import annotations

import re

_COMMENT_BLOCK = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL)
_SLACK = re.compile(r"\{%-?\s*slack_channel\s+[\"']([^\"']*)[\"'][^%]*?-?%\}")
_ALERT = re.compile(r"\{%-?\s*alert\s+[\"']([^\"']+)[\"'].*?-?%\}", re.DOTALL)
_TAG = re.compile(r"\{%.*?%\}", re.DOTALL)
_OUTPUT = re.compile(r"\{\{.*?\}\}", re.DOTALL)
# What a tag inside a Markdown link target leaves behind, seen as literal text in
# DOCX/PDF/HTML conversions: "[label]()" or "[label]( )".
_EMPTY_LINK = re.compile(r"\[([^\[\]]*)\]\(\s*\)")
# A reference-style link whose definition the page does not hold (a site-wide include
# supplies it when the handbook is published): Markdown leaves "[label][ref]" as text.
_UNRESOLVED_REFERENCE = re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]")
_SPACES = re.compile(r"[ \t\u00a0]+")


def has_template_tags(text: str) -> bool:
    return "{%" in text or "{{" in text


def strip_template_tags(text: str) -> str:
    """Source-level removal: line structure is kept, so Markdown still parses the same (a
    channel's "#name" at the start of a line or item is kept from being read as a heading
    by ``ingest.markdown_source.escape_hash_words``, as any such line is)."""
    if not has_template_tags(text):
        return text
    text = _COMMENT_BLOCK.sub("", text)
    text = _SLACK.sub(lambda m: f"#{m.group(1)}", text)
    text = _ALERT.sub(lambda m: m.group(1), text)
    text = _TAG.sub("", text)
    return _OUTPUT.sub("", text)


def clean_element_text(text: str) -> str:
    """Element-level cleanup after extraction: tags, empty link shells, unresolved
    reference links, doubled spaces."""
    if has_template_tags(text):
        text = strip_template_tags(text)
    if "](" in text:
        text = _EMPTY_LINK.sub(r"\1", text)
    if "][" in text:
        text = _UNRESOLVED_REFERENCE.sub(r"\1", text)
    text = _SPACES.sub(" ", text)
    text = re.sub(r" +([,.;:!?)])", r"\1", text) if " " in text else text
    return "\n".join(line.strip() for line in text.splitlines()).strip()
