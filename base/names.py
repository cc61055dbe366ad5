"""Players' names as taldau recognises them: one normalised form (``name_key``) for every spelling of a name
that records write differently, so that a player is one player in ``taldau players`` and a game is one game
whatever record of it is read (``taldau.base.identity``).

A name is taken in Unicode compatibility form, case folded, without the site prefix of an online export
(``playok:``, ``galaxy:`` ...), its Cyrillic letters (Kazakh and Russian) transliterated to Latin, so that
``Магжан`` and ``magzhan`` are one name, and its runs of white space collapsed to one space.
"""

from __future__ import annotations

import re
import unicodedata

# Online sites whose exports write a player as ``site:name`` (or ``site/name``).
SITE_PREFIX = re.compile(
    r"^(?:playok|galaxy|backgammongalaxy|bgstudio|studio|fibs|gridgammon|heroes|lichess|playstrategy)"
    r"\s*[:/]\s*",
    re.IGNORECASE,
)
# Kazakh and Russian Cyrillic in Latin letters, as Kazakh players write their names online.
_LATIN = (
    ("а", "a"), ("б", "b"), ("в", "v"), ("г", "g"), ("д", "d"), ("е", "e"), ("ё", "yo"), ("ж", "zh"),
    ("з", "z"), ("и", "i"), ("й", "y"), ("к", "k"), ("л", "l"), ("м", "m"), ("н", "n"), ("о", "o"),
    ("п", "p"), ("р", "r"), ("с", "s"), ("т", "t"), ("у", "u"), ("ф", "f"), ("х", "kh"), ("ц", "ts"),
    ("ч", "ch"), ("ш", "sh"), ("щ", "shch"), ("ъ", ""), ("ы", "y"), ("ь", ""), ("э", "e"), ("ю", "yu"),
    ("я", "ya"), ("ә", "a"), ("ғ", "g"), ("қ", "q"), ("ң", "n"), ("ө", "o"), ("ұ", "u"), ("ү", "u"),
    ("һ", "h"), ("і", "i"),
)  # fmt: skip
CYRILLIC = dict(_LATIN)


def name_key(name: str) -> str:
    """The name players are recognised by: ``name`` in compatibility form, case folded, without the site
    prefix of an online export, Cyrillic transliterated, white space collapsed to one space."""
    text = SITE_PREFIX.sub("", unicodedata.normalize("NFKC", name).strip()).casefold()
    text = "".join(CYRILLIC.get(letter, letter) for letter in text)
    return " ".join(text.split())
