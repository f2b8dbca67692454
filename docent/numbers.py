"""The number words, written once: what a figure's words are worth (generate/figures.py)
and the words that count an amount ("two weeks", generate/answer_types.py) or an age ("a
six-year-old", docent/versions.py); and the months' names and their numbers (a date in a
figure, generate/figures.py; a period a question names, docent/periods.py)."""

from __future__ import annotations

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
_TENS = "thirty forty fifty sixty seventy eighty ninety".split()
CARDINALS: dict[str, int] = (
    {word: n for n, word in enumerate(_UNITS)}
    | {word: 30 + 10 * n for n, word in enumerate(_TENS)}
    | {"hundred": 100, "thousand": 1000}
)


def counting_words() -> str:
    """The cardinal words from one to ninety as a regular-expression alternation, longest
    first (so "seventeen" is tried before "seven")."""
    words = [w for w, n in CARDINALS.items() if 1 <= n <= 90]
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))


# Month names (and their short forms) to their numbers.
MONTHS: dict[str, int] = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
