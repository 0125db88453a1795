"""Golden files compared to the digits that mean something."""

import re

FLOAT = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def float_digits(text: str) -> str:
    """Numbers with a fraction to 10 significant digits, and below 1e-12 in size to 0: fits, bootstraps and
    statistics end in iterative solvers, BLAS and summation orders whose last bits change between numpy and scipy
    releases (a fresh install moved the last digit of Bradley–Terry strengths and of some agreement intervals),
    which is no change in what users receive."""

    def digits(match: re.Match) -> str:
        value = float(match.group())
        return "0" if abs(value) < 1e-12 else f"{value:.10g}"

    return FLOAT.sub(digits, text)
