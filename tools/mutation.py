"""The random edits of the fuzzing harnesses (tools/fuzz_parse.py, tools/fuzz_timeline.py).

One to six edits of a real text per call: a run of characters cut, a hostile string put in, a
character replaced by one of the first 0x250 code points, a digit near the place changed
(times, counts, txgs), a line repeated elsewhere or cut. Deterministic for the rng's seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def mutate(rng: random.Random, text: str, hostile: Sequence[str]) -> str:
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        pos = rng.randrange(len(text) + 1)
        if op < 0.25 and text:
            text = text[:pos] + text[pos + rng.randint(1, 40):]
        elif op < 0.55:
            text = text[:pos] + rng.choice(hostile) + text[pos:]
        elif op < 0.7 and text:
            text = text[:pos] + chr(rng.randrange(0, 0x250)) + text[pos + 1:]
        elif op < 0.8 and text:  # a digit changed: times, counts, txgs
            digits = [i for i in range(max(0, pos - 60), min(len(text), pos + 60))
                      if text[i].isdigit()]
            if digits:
                i = rng.choice(digits)
                text = text[:i] + rng.choice("0123456789") + text[i + 1:]
        else:
            lines = text.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                if op < 0.9:
                    lines.insert(rng.randrange(len(lines) + 1), lines[i])
                else:
                    del lines[i]
                text = "".join(lines)
    return text
