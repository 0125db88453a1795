"""The allocation design: which places each item is planned for, pure Python (no Django).

A design has ``places`` 0..R-1, one per rater, taken by raters in the order they join. Each item with
``t`` raters wanted is planned for ``t`` places, written as a bit mask (bit p for place p):
- The d-th multiply-annotated item starts at place ``d mod R`` and steps by an offset ``o``, cycling
  through ``1..K`` one block of R items at a time. Offsets 1..⌊R/2⌋ reach every pair of places, so
  with K = ⌊R/2⌋ every pair of raters overlaps; a lead's minimum overlap m per pair lowers K until
  each pair of the K offsets still gets about D / (K·R) ≥ m shared units (K = 1 is a ring: the fewest
  pairs that keep the rater graph connected). This is a cyclic design, the construction of balanced
  incomplete block designs (Bose 1939) without their requirement that every pair meets equally often.
- Single-annotated items then fill each place up to an even share of all the slots, round robin, so
  that every place has the same work to within a screen or two and late joiners keep theirs.
"""

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

# Masks are PostgreSQL bigints (signed): 62 places leave the sign bit and a spare alone.
MAX_PLACES = 62
# A pair's agreement needs at least this many shared units, whatever the lead's minimum.
MIN_PAIR_UNITS = 2


def design_offsets(*, n_multi: int, places: int, min_pair_overlap: int) -> int:
    """K: how many offsets the multiply-annotated items cycle through."""
    widest = max(1, places // 2)
    if min_pair_overlap <= 0:
        return widest
    return max(1, min(widest, n_multi // (min_pair_overlap * places)))


def _multi_places(d: int, t: int, places: int, offsets: int, load: list[int]) -> list[int]:
    start, step = d % places, 1 + (d // places) % offsets
    chosen = []
    for j in range(t):
        p = (start + j * step) % places
        if p in chosen:  # the step's cycle is shorter than t: the least-loaded places fill the rest
            break
        chosen.append(p)
    for p in sorted(range(places), key=lambda p: (load[p], p)):
        if len(chosen) >= t:
            break
        if p not in chosen:
            chosen.append(p)
    return chosen


def item_masks(targets: list[int], *, places: int, min_pair_overlap: int = 0) -> list[int]:
    """The mask of each item, ``targets`` being the raters each wants (in id order)."""
    if places < 1:
        return [0] * len(targets)
    full = (1 << places) - 1
    n_multi = sum(1 for t in targets if 1 < t < places)
    offsets = design_offsets(n_multi=n_multi, places=places, min_pair_overlap=min_pair_overlap)
    load, masks, d = [0] * places, [], 0
    for t in targets:
        if t >= places and t > 1:
            masks.append(full)
            load = [n + 1 for n in load]
        elif t > 1:
            chosen = _multi_places(d, t, places, offsets, load)
            d += 1
            for p in chosen:
                load[p] += 1
            masks.append(sum(1 << p for p in chosen))
        else:
            masks.append(None)  # filled below
    n_single = sum(1 for t in targets if t == 1)
    level = -(-(sum(load) + n_single) // places)
    deficit = [max(0, level - n) for n in load]
    # Round robin over the places still short, so that each place's singles spread through the id order.
    order = []
    while len(order) < n_single:
        short = [p for p in range(places) if deficit[p] > 0] or list(range(places))
        for p in short:
            if len(order) < n_single:
                order.append(p)
                deficit[p] -= 1
    singles = iter(order)
    return [(1 << next(singles)) if m is None and t == 1 else (m or 0) for m, t in zip(masks, targets, strict=True)]


def free_places(places: int, held: set[int], claimed: int) -> list[int]:
    """The places a joining rater may take, in the order they take them: those nobody has taken yet, then the
    vacated ones (taken once, held by no one now), whose work raters with quota left are served meanwhile."""
    return sorted((p for p in range(places) if p not in held), key=lambda p: (claimed >> p & 1, p))


def vacated_mask(places: int, held: set[int], claimed: int) -> int:
    """The places taken once and held by no rater now."""
    return claimed & ((1 << places) - 1) & ~sum(1 << p for p in held)


def places_of(mask: int) -> list[int]:
    return [p for p in range(MAX_PLACES) if mask >> p & 1]


@dataclass(frozen=True)
class Design:
    """What a design plans: slots per place, shared units per pair of places."""

    places: int
    per_place: tuple[int, ...]
    pairs: tuple[tuple[int, int, int], ...]  # (place a, place b, shared units), every pair of places
    min_pair_overlap: int

    @property
    def overlapping_pairs(self) -> list[tuple[int, int, int]]:
        return [pair for pair in self.pairs if pair[2] > 0]

    @property
    def computable_pairs(self) -> list[tuple[int, int, int]]:
        """Pairs whose agreement will be computable: at least the lead's minimum, and MIN_PAIR_UNITS."""
        need = max(self.min_pair_overlap, MIN_PAIR_UNITS)
        return [pair for pair in self.pairs if pair[2] >= need]

    @property
    def connected(self) -> bool:
        """Whether the graph of places joined by overlapping pairs is connected (agreement links every rater)."""
        if self.places <= 1:
            return True
        reached, frontier = {0}, [0]
        while frontier:
            p = frontier.pop()
            for a, b, _ in self.overlapping_pairs:
                for x, y in ((a, b), (b, a)):
                    if x == p and y not in reached:
                        reached.add(y)
                        frontier.append(y)
        return len(reached) == self.places


def design_summary(masks: list[int], *, places: int, min_pair_overlap: int = 0) -> Design:
    per_place, shared = [0] * places, Counter()
    for mask in masks:
        chosen = [p for p in places_of(mask) if p < places]
        for p in chosen:
            per_place[p] += 1
        shared.update(combinations(chosen, 2))
    return Design(
        places=places,
        per_place=tuple(per_place),
        pairs=tuple((a, b, shared[(a, b)]) for a, b in combinations(range(places), 2)),
        min_pair_overlap=min_pair_overlap,
    )
