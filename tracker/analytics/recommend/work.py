"""`recommend --benchmark NAME`: an MLPerf benchmark as the throughput table
the ranking by cost per unit of work reads.

For each option, the speed of one of its GPUs is the per-GPU result of the
measured system closest to it: the same GPU model, the closed division (the
open one lets a submitter change the model), the accelerator count nearest
the instance's GPU count; on a tie an available system, the newest round,
then the best result. A GPU model with
no result gets its datasheet TFLOPS (tracker/data/gpu_models.csv) scaled
from the measured GPU whose TFLOPS are nearest (the same vendor first), and
its "why" says it is an estimate. A GPU with no TFLOPS figure either has no
speed, and is left out as a throughput table leaves out a model it lacks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tracker.analytics.facts.benchmarks import Result, check_benchmark, results
from tracker.analytics.facts.gpu_models import GpuModel, lookup
from tracker.errors import UserError

if TYPE_CHECKING:
    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References
    from tracker.analytics.recommend.rank import Needs

RATE = Decimal("0.001")


def _version(round_name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", round_name))


@dataclass
class Work:
    """The measured speeds of one benchmark and scenario, by GPU model."""

    benchmark: str
    scenario: str
    unit: str  # tokens, samples or queries
    by_model: dict[str, list[Result]] = field(repr=False)
    _seen: dict[tuple[str, Decimal | None], tuple[Decimal, str] | None] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, text: str) -> Work:
        """The benchmark named ('llama2-70b-99', 'llama2-70b-99/Server'); one sentence when unknown."""
        name, scenario = check_benchmark(text)
        found = [r for r in results(f"{name}/{scenario}") if r.gpu_model]
        by_model: dict[str, list[Result]] = {}
        for r in found:
            by_model.setdefault(r.gpu_model.lower(), []).append(r)
        first = found[0] if found else results(f"{name}/{scenario}")[0]
        return cls(first.benchmark, first.scenario, first.unit, by_model)

    @property
    def title(self) -> str:
        return f"{self.benchmark} {self.scenario}, cost per million {self.unit}"

    @property
    def singular(self) -> str:
        return self.unit.removesuffix("s")

    def closest(self, gpu_model: str, gpu_count: Decimal | None) -> Result | None:
        """The measured system of this GPU model nearest the option's GPU count."""
        measured = self.by_model.get(gpu_model.lower())
        if not measured:
            return None
        count = float(gpu_count) if gpu_count else 1.0
        return min(
            measured,
            key=lambda r: (
                r.division != "closed",
                abs(r.accelerators - count),
                r.availability != "available",
                tuple(-n for n in _version(r.round)),
                -r.per_gpu,
                r.system,
            ),
        )

    def speed(self, row: dict[str, Any]) -> Decimal | None:
        """Units of work a second of one GPU of this price row's instance."""
        found = self._basis(row)
        return found[0] if found else None

    def basis(self, row: dict[str, Any]) -> str | None:
        """What the speed rests on, for the "why"."""
        found = self._basis(row)
        return found[1] if found else None

    def _basis(self, row: dict[str, Any]) -> tuple[Decimal, str] | None:
        model = str(row.get("gpu_model") or "")
        count = row.get("gpu_count")
        count = count if isinstance(count, Decimal) and count > 0 else None
        key = (model.lower(), count)
        if key not in self._seen:
            self._seen[key] = self._work_out(model, count) if model else None
        return self._seen[key]

    def _work_out(self, model: str, count: Decimal | None) -> tuple[Decimal, str] | None:
        measured = self.closest(model, count)
        if measured is not None:
            return (
                measured.per_gpu,
                f"{measured.per_gpu.normalize():f} {self.unit}/s per GPU measured: {measured.label}",
            )
        spec = lookup(model)
        tflops = spec.compute_tflops if spec else None
        if not tflops:
            return None
        assert spec is not None
        nearest = self._nearest(spec, tflops)
        if nearest is None:
            return None
        ref_model, ref_tflops = nearest
        ref = self.closest(ref_model, count)
        if ref is None:
            return None
        speed = (ref.per_gpu * tflops / ref_tflops).quantize(RATE)
        return speed, (
            f"estimate, not measured: {speed.normalize():f} {self.unit}/s per GPU, {ref.gpu_model}'s "
            f"{ref.per_gpu.normalize():f} scaled by datasheet TFLOPS {tflops.normalize():f}/{ref_tflops.normalize():f} "
            f"({ref.label})"
        )

    def _nearest(self, target: GpuModel, tflops: Decimal) -> tuple[str, Decimal] | None:
        """The measured GPU model whose TFLOPS are nearest (by ratio), the same
        vendor first; on a tie the same architecture, then the nearest memory
        bandwidth (an H800 is scaled from the H100, not the GH200)."""
        vendor = target.vendor
        choices = []
        for results_of in self.by_model.values():
            spec = lookup(results_of[0].gpu_model)
            ref = spec.compute_tflops if spec else None
            if spec is None or not ref:
                continue
            distance = abs(math.log(float(tflops) / float(ref)))
            choices.append((spec.vendor != vendor, distance, _apart(target, spec), spec.gpu_model, ref))
        if not choices:
            return None
        *_, name, ref = min(choices)
        return name, ref


def _apart(target: GpuModel, other: GpuModel) -> tuple[bool, float]:
    """How far two GPUs are apart beyond their TFLOPS: another architecture, the memory bandwidth's ratio."""
    mine, theirs = target.memory_bandwidth_gbs, other.memory_bandwidth_gbs
    bandwidth = abs(math.log(float(mine) / float(theirs))) if mine and theirs else math.inf
    return target.architecture != other.architecture, bandwidth


def by_benchmark(needs: Needs, benchmark: str | None, nodes: int = 1) -> Needs:
    """The needs ranked by the cost of a benchmark's work (an empty throughput
    table: a GPU the benchmark gives no speed is left out, as one a table
    lacks), and spanning `nodes` machines."""
    if nodes < 1:
        raise UserError("--nodes must be 1 or more")
    if nodes > 1 and nodes > needs.gpus:
        raise UserError(f"--nodes {nodes} spreads the job over more machines than it has GPUs (--gpus {needs.gpus:f})")
    if benchmark and needs.throughput is not None:
        raise UserError("give either --throughput or --benchmark: both say how fast each GPU works")
    if benchmark:
        needs = replace(needs, benchmark=Work.of(benchmark), throughput={})
    return replace(needs, nodes=nodes) if nodes != needs.nodes else needs


def notes_of(needs: Needs) -> list[str]:
    """What the ranking by a benchmark, or over nodes, rests on: said once, before the options."""
    notes = []
    if needs.benchmark is not None:
        notes.append(
            f"ranked by MLPerf {needs.benchmark.benchmark} {needs.benchmark.scenario}: cost per million "
            f"{needs.benchmark.unit} at the per-GPU result of the measured system nearest each option "
            "(an estimate from datasheet TFLOPS where its GPU has none; see `gpu-tracker benchmarks`)"
        )
    if needs.nodes > 1:
        notes.append(
            f"{needs.nodes} nodes: only instance types whose provider states an RDMA-class network "
            "(EFA, InfiniBand, RoCE); the others are left out"
        )
    return notes


def ranked_rows(
    store: Db | Any, refs: References, needs: Needs, *, limit: int | None, **where: Any
) -> tuple[list[dict[str, Any]], list[str]]:
    """`store.recommend_rows`, with what a ranking by a benchmark or over
    nodes rests on said first among its notes."""
    from tracker.analytics.recommend.store import recommend_rows

    rows, notes = recommend_rows(store, refs, needs, limit=limit, **where)
    return rows, notes_of(needs) + notes
