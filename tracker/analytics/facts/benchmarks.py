"""MLPerf results as reference data: what a GPU model does on a public
benchmark, per GPU, from the systems MLCommons published.

Each MLPerf Inference round's results repository (github.com/mlcommons/
inference_results_v4.1, _v5.1...) carries `summary_results.json`: one
record per system, benchmark and scenario, with the submitter, division
(`Category`: closed or open), the system's name, its accelerator and how
many it has per node (`a#`), the nodes, the result and its units. The
tables shipped in tracker/data/mlperf_inference_<round>.csv are those
records, datacenter throughput scenarios only (Offline, Server,
Interactive; a latency in ms is no throughput), the result divided by the
accelerators of every node (`per_gpu`) and the accelerator named as the GPU
datasheet names it (`gpu_model`; empty where the datasheet has no such GPU,
or where a system mixes two). `rebuild` makes such a table from a saved
summary file (`gpu-tracker benchmarks update --replay FILE`).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from tracker.analytics.facts.gpu_models import lookup
from tracker.errors import UserError

TABLE_PREFIX = "mlperf_inference_"
BENCHMARK_COLUMNS = [
    "round",
    "division",
    "availability",
    "submitter",
    "system",
    "benchmark",
    "scenario",
    "accelerator",
    "gpu_model",
    "accelerators",
    "nodes",
    "result",
    "units",
    "per_gpu",
    "unit",
    "source_url",
]
SCENARIOS = ("Offline", "Server", "Interactive")
# The summary's units, and the unit of work a million of which is costed.
UNITS = {"Tokens/s": "tokens", "Samples/s": "samples", "Queries/s": "queries"}
PER_GPU = Decimal("0.001")

# The summary's accelerator names, in the order tried, and the datasheet's
# name (tracker/data/gpu_models.csv) of each; tests hold every target to the
# datasheet. A name matching none is left unmapped (its rows keep an empty
# gpu_model), never guessed.
ACCELERATORS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), model)
    for pattern, model in (
        (r"\bH100[- ]NVL\b", "H100 NVL"),
        (r"\bH100[- ]PCIe\b", "H100 PCIe"),
        (r"\bH100[- ]SXM\b", "H100"),
        (r"\bH200[- ]NVL\b", ""),  # the 600 W PCIe card: not the datasheet's SXM H200
        (r"\bH200[- ]SXM\b", "H200"),
        (r"\bGH200\b", "GH200"),
        (r"\bGB200\b", "GB200"),
        (r"\bB200[- ]SXM\b", "B200"),
        (r"\bL40S\b", "L40S"),
        (r"\bL4(-PCIe-24GB)?$", "L4"),
        (r"\bMI300X\b", "MI300X"),
        (r"\bMI325X\b", "MI325X"),
        (r"\bRTX 4090\b", "RTX 4090"),
        (r"\bRTX PRO 6000 Blackwell Server\b", "RTX PRO 6000"),
        (r"\bRTX 4000 Ada\b", "RTX 4000 Ada"),
        (r"^Tesla T4$", "T4"),
    )
)


def gpu_model_of(accelerator: str) -> str:
    """The datasheet's name for a summary's accelerator; '' for none (or two kinds in one system)."""
    if "," in accelerator or " (x" in accelerator:
        return ""  # a system of two accelerator kinds
    for pattern, model in ACCELERATORS:
        if pattern.search(accelerator.strip()):
            return model
    return ""


def _number(value: Any) -> Decimal | None:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() and number > 0 else None


def summary_rows(records: Iterable[dict[str, Any]]) -> tuple[list[dict[str, str]], int]:
    """The table rows of a summary's records, and how many records were set
    aside (edge systems, latency scenarios, no accelerator, no result)."""
    rows: list[dict[str, str]] = []
    skipped = 0
    for rec in records:
        units = UNITS.get(str(rec.get("Performance_Units")))
        accelerator = str(rec.get("Accelerator") or "").strip()
        per_node, nodes, result = (
            _number(rec.get("a#")),
            _number(rec.get("Nodes") or 1),
            _number(rec.get("Performance_Result")),
        )
        if (
            "datacenter" not in str(rec.get("Suite"))
            or rec.get("Scenario") not in SCENARIOS
            or not (units and accelerator and per_node and nodes and result)
        ):
            skipped += 1
            continue
        count = per_node * nodes
        rows.append(
            {
                "round": f"Inference {rec.get('version')}",
                "division": str(rec.get("Category")),
                "availability": str(rec.get("Availability")),
                "submitter": str(rec.get("Submitter")),
                "system": " ".join(str(rec.get("System")).split()),
                "benchmark": str(rec.get("Model")),
                "scenario": str(rec.get("Scenario")),
                "accelerator": accelerator,
                "gpu_model": gpu_model_of(accelerator),
                "accelerators": f"{count.normalize():f}",
                "nodes": f"{nodes.normalize():f}",
                "result": f"{result.normalize():f}",
                "units": str(rec.get("Performance_Units")),
                "per_gpu": f"{(result / count).quantize(PER_GPU)}",
                "unit": units,
                "source_url": str(rec.get("Details") or ""),
            }
        )
    rows.sort(key=lambda r: (r["benchmark"], r["scenario"], r["gpu_model"], r["submitter"], r["system"]))
    return rows, skipped


def read_summary(path: Path) -> tuple[str, list[dict[str, str]], int]:
    """A saved `summary_results.json`: its round ('v5.1'), its table rows and how many records were set aside."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise UserError(f"{path} is not JSON; save the round's summary_results.json") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise UserError(f"{path} is not an MLPerf summary: expected a list of result records")
    versions = {str(r.get("version")) for r in records if r.get("version")}
    if len(versions) != 1:
        raise UserError(f"{path}: expected the results of one round, found {', '.join(sorted(versions)) or 'none'}")
    rows, skipped = summary_rows(records)
    if not rows:
        raise UserError(f"{path}: no datacenter throughput result in it")
    return versions.pop(), rows, skipped


def table_name(version: str) -> str:
    return f"{TABLE_PREFIX}{version}.csv"


def shipped_folder() -> Path:
    """Where the shipped tables are (a source checkout's tracker/data)."""
    return Path(str(resources.files("tracker") / "data"))


def write_table(rows: Sequence[dict[str, str]], path: Path) -> None:
    try:
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=BENCHMARK_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


@dataclass(frozen=True)
class Result:
    """One published result, per GPU."""

    round: str
    division: str
    availability: str
    submitter: str
    system: str
    benchmark: str
    scenario: str
    accelerator: str
    gpu_model: str
    accelerators: int
    nodes: int
    per_gpu: Decimal
    unit: str
    source_url: str

    @property
    def label(self) -> str:
        """'HPE Cray XD670 (8x H100-SXM-80GB, TensorRT) by HPE, MLPerf Inference v4.1 closed, 8 GPUs'."""
        gpus = f"{self.accelerators} GPU{'s' if self.accelerators != 1 else ''}"
        return f"{self.system} by {self.submitter}, MLPerf {self.round} {self.division}, {gpus}"


def _result(row: dict[str, str]) -> Result:
    return Result(
        round=row["round"],
        division=row["division"],
        availability=row["availability"],
        submitter=row["submitter"],
        system=row["system"],
        benchmark=row["benchmark"],
        scenario=row["scenario"],
        accelerator=row["accelerator"],
        gpu_model=row["gpu_model"],
        accelerators=int(Decimal(row["accelerators"])),
        nodes=int(Decimal(row["nodes"])),
        per_gpu=Decimal(row["per_gpu"]),
        unit=row["unit"],
        source_url=row["source_url"],
    )


def table_files(folder: Path | None = None) -> list[Path]:
    folder = folder or shipped_folder()
    return sorted(folder.glob(f"{TABLE_PREFIX}*.csv"))


@cache
def shipped_results() -> tuple[Result, ...]:
    """Every result of the shipped tables, newest round first."""
    from tracker.data import rows

    found: list[Result] = []
    for path in reversed(table_files()):
        found.extend(_result(r) for r in rows(path.name))
    return tuple(found)


def results(benchmark: str | None = None, gpu: str | None = None) -> list[Result]:
    """The shipped results of a benchmark ('llama2-70b-99', or with its
    scenario 'llama2-70b-99/server'), of GPU models matching `gpu` in part."""
    name, scenario = split_name(benchmark) if benchmark else (None, None)
    return [
        r
        for r in shipped_results()
        if (name is None or r.benchmark.lower() == name)
        and (scenario is None or r.scenario.lower() == scenario)
        and (gpu is None or gpu.lower() in r.gpu_model.lower())
    ]


def split_name(text: str) -> tuple[str, str]:
    """'llama2-70b-99/Server' -> ('llama2-70b-99', 'server'); the scenario is Offline when not given."""
    name, _, scenario = text.strip().lower().partition("/")
    return name.strip(), (scenario.strip() or "offline")


def benchmark_names() -> list[str]:
    """The benchmarks the shipped tables know, each with its scenarios ('llama2-70b-99/Offline')."""
    return sorted({f"{r.benchmark}/{r.scenario}" for r in shipped_results() if r.gpu_model})


def check_benchmark(text: str) -> tuple[str, str]:
    """The benchmark and scenario named, or one sentence with what is known."""
    name, scenario = split_name(text)
    if not any(r.benchmark.lower() == name and r.scenario.lower() == scenario for r in shipped_results()):
        known = sorted({r.benchmark for r in shipped_results() if r.gpu_model})
        raise UserError(
            f"no MLPerf result for {text!r}; known benchmarks (add /Server or /Interactive for those scenarios): "
            + ", ".join(known)
        )
    return name, scenario


def listing(benchmark: str | None = None, gpu: str | None = None) -> list[dict[str, Any]]:
    """`gpu-tracker benchmarks`: one row per result, best per GPU first within a benchmark."""
    found = results(benchmark, gpu) if benchmark else [r for r in shipped_results() if _gpu_matches(r, gpu)]
    found.sort(key=lambda r: (r.benchmark, r.scenario, r.gpu_model or "~", -r.per_gpu))
    return [
        {
            "round": r.round,
            "division": r.division,
            "availability": r.availability,
            "submitter": r.submitter,
            "system": r.system,
            "benchmark": r.benchmark,
            "scenario": r.scenario,
            "accelerator": r.accelerator,
            "gpu_model": r.gpu_model or None,
            "accelerators": r.accelerators,
            "nodes": r.nodes,
            "per_gpu": r.per_gpu,
            "unit": f"{r.unit}/s",
            "source_url": r.source_url,
        }
        for r in found
    ]


def _gpu_matches(result: Result, gpu: str | None) -> bool:
    return gpu is None or gpu.lower() in result.gpu_model.lower()


LISTING_COLUMNS = [
    "round",
    "division",
    "availability",
    "submitter",
    "system",
    "benchmark",
    "scenario",
    "accelerator",
    "gpu_model",
    "accelerators",
    "nodes",
    "per_gpu",
    "unit",
    "source_url",
]
LISTING_TABLE = [
    "round",
    "division",
    "submitter",
    "benchmark",
    "scenario",
    "gpu_model",
    "accelerators",
    "per_gpu",
    "unit",
]


def datasheet_models() -> set[str]:
    """The datasheet names ACCELERATORS maps to (tests hold each to the datasheet)."""
    return {model for _, model in ACCELERATORS if model}


def known_to_datasheet(model: str) -> bool:
    return lookup(model) is not None
