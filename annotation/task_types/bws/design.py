"""The tuples a best–worst project's raters judge, drawn from the outputs to scale: evaluation.stats.bws_tuples's
seeded design (every output in about the same number of tuples, every pair of outputs together about equally
often), laid out as item import lines."""

import numpy as np

from evaluation.stats import bws_tuples

from ..base import ScaledOutput, TaskTypeError


def _output(o: ScaledOutput) -> dict:
    return (
        {"system": o.system, "text": o.text}
        if o.output_turns is None
        else {"system": o.system, "turns": o.output_turns}
    )


def design_lines(outputs: list[ScaledOutput], config: dict, *, first_tuple: int) -> list[dict]:
    """Item import lines of the tuples over ``outputs`` under a project's normalised ``config`` (k, tuples per
    output, seed): tuple ``first_tuple`` onwards, named ``tuple-<number>``, each output named by its ``system``
    (the scaled output's stable id); the design's seed, size and the outputs' own ids are in each tuple's meta.
    Raises TaskTypeError naming the line of a problem."""
    seen = {}
    for o in outputs:
        if o.system in seen:
            raise TaskTypeError(
                f"line {o.line}: system {o.system!r} names another output to scale already (line "
                f"{seen[o.system]}); it is the output's id in every tuple and must be unique"
            )
        seen[o.system] = o.line
        if o.input != outputs[0].input:
            raise TaskTypeError(
                f"line {o.line}: the outputs to scale share one input (the question the tuples "
                f"ask), as on line {outputs[0].line}"
            )
    k, n = config["k"], len(outputs)
    if n < k:
        raise TaskTypeError(
            f"line {outputs[-1].line}: {n} outputs to scale, fewer than the tuples' k = {k} (task_config.k)"
        )
    n_tuples = max(1, round(config["tuples_per_output"] * n))
    design = bws_tuples(n, k=k, n_tuples=n_tuples, rng=np.random.default_rng(config["seed"]))
    subgroups = {o.subgroup for o in outputs}
    subgroup = subgroups.pop() if len(subgroups) == 1 else ""
    return [
        {
            "external_id": f"tuple-{first_tuple + t:05d}",
            "input": outputs[0].input if outputs[0].input_turns is None else outputs[0].input_turns,
            "outputs": [_output(outputs[i]) for i in row],
            "subgroup": subgroup,
            "meta": {
                "bws_design": {
                    "seed": config["seed"],
                    "k": k,
                    "n_tuples": n_tuples,
                    "n_outputs": n,
                    "tuple": first_tuple + t,
                    "outputs": [outputs[i].external_id for i in row],
                }
            },
        }
        for t, row in enumerate(design.tolist())
    ]
