"""Card wording more than one task type uses."""

RANDOM_ORDER = "the outputs of a screen are shown in a fresh random order for every assignment"
# how a type with a score per output aggregates, with its normalisation inserted
MEANS = (
    "Per output: mean of the raters' values; per system: mean over outputs{}, with percentile bootstrap "
    "intervals over items on the platform's results page."
)
