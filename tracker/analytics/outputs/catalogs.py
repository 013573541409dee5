"""Catalogs other tools read, written from the current prices:
`export --format skypilot DIR` writes SkyPilot's `<cloud>/vms.csv`, and
`export --format gpuhunt DIR` the `<provider>.csv` that gpuhunt (and dstack,
which queries offers through it) reads.

What the formats are, and where that was read (SkyPilot 0.14.1 and gpuhunt
0.1.34, the versions the tests were checked against):

- SkyPilot (skypilot-org/skypilot): `sky/catalog/common.py` `read_catalog`
  reads `~/.sky/catalogs/<CATALOG_SCHEMA_VERSION>/<cloud>/vms.csv` with
  pandas (`sky/skylet/constants.py`: `CATALOG_DIR = '~/.sky/catalogs'`,
  `CATALOG_SCHEMA_VERSION = 'v8'`), and leaves a file it did not download
  alone (no `.meta/<file>.md5`: "manually populated"); `list_accelerators_impl`
  parses `GpuInfo` with `ast.literal_eval` and reads
  `Gpus[0].MemoryInfo.SizeInMiB`. The columns, and GpuInfo as SkyPilot's own
  fetchers write it (a JSON object with single quotes: Name, Manufacturer,
  Count, MemoryInfo.SizeInMiB, TotalGpuMemoryInMiB), are those of
  `sky/catalog/data_fetchers/fetch_lambda_cloud.py` (and fetch_aws.py's AWS
  GpuInfo); skypilot-org/skypilot-catalog's README lists the vms.csv fields.
  One row per zone: the on-demand price is the region's, the spot price the
  zone's, an empty price "not offered". The column names are those
  tracker/file_import/skypilot.py reads (`COLUMNS`, `GPU_NAMES`: one place).
- gpuhunt (dstackai/gpuhunt): `src/gpuhunt/_internal/storage.py`
  `CATALOG_V2_FIELDS` (the columns, in order) and `item_from_row` (cpu and
  gpu_count whole numbers, memory and price numbers, `spot` True/False,
  gpu_memory per GPU in GB, provider_data JSON); `_internal/catalog.py`: the
  offline providers (`OFFLINE_PROVIDERS`) are read from
  `$GPUHUNT_CATALOG_DIR/<provider>.csv` when that variable is set.

Only the clouds whose instance names the tools launch by are written: a
marketplace group ("8x H100 SXM verified") or a GCP host with attached GPUs
("n1-standard-8+nvidia-tesla-t4x1") is no instance type either tool knows,
and a price in another currency than the dollar is left out; each file says
nothing of stock (neither format has a column for it). SkyPilot's GCP
catalog is not written: it prices each GPU on a row of its own, without an
instance type, apart from its host VM (`gcp_catalog.list_accelerators`
asserts so), where our GCP prices are whole machine types.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from db.money import effective_hourly
from db.store.reads.rows import PriceFilter
from tracker.analytics.facts.gpu_models import lookup
from tracker.analytics.points import price_records
from tracker.errors import UserError
from tracker.file_import.skypilot import COLUMNS as SKYPILOT_COLUMNS
from tracker.file_import.skypilot import GPU_NAMES

if TYPE_CHECKING:
    import sqlalchemy as sa

CATALOGS = ("skypilot", "gpuhunt")
# Our provider -> SkyPilot's cloud folder (`sky/catalog/<cloud>_catalog.py`'s read_catalog('<cloud>/vms.csv')).
SKYPILOT_CLOUDS = {
    "aws": "aws",
    "azure": "azure",
    "lambda": "lambda",
    "oci": "oci",
    "nebius": "nebius",
    "digitalocean": "do",
    "verda": "verda",
}
# Our provider -> gpuhunt's offline provider (`_internal/catalog.py` OFFLINE_PROVIDERS): its file name.
GPUHUNT_PROVIDERS = {
    "aws": "aws",
    "azure": "azure",
    "gcp": "gcp",
    "lambda": "lambdalabs",
    "nebius": "nebius",
    "oci": "oci",
    "verda": "verda",
}
GPUHUNT_COLUMNS = (
    "instance_name",
    "location",
    "price",
    "cpu",
    "memory",
    "gpu_count",
    "gpu_name",
    "gpu_memory",
    "spot",
    "disk_size",
    "gpu_vendor",
    "flags",
    "cpu_arch",
    "provider_data",
)
SPOT_MODELS = ("spot", "low_priority")
# Our GPU model -> SkyPilot's accelerator name: the importer's table read the other way (its first name wins).
SKYPILOT_NAMES = {ours: theirs for theirs, ours in reversed(list(GPU_NAMES.items()))}


@dataclass
class Written:
    """What an export wrote: files (path, rows), and what it left out, counted by reason."""

    files: list[tuple[Path, int]] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.left_out[reason] = self.left_out.get(reason, 0) + 1


def skypilot_name(gpu_model: str) -> str:
    """SkyPilot's accelerator name: its own where the importer knows it
    ('A100 80GB' -> 'A100-80GB'), else ours without spaces, a memory size
    joined with a hyphen ('RTX 4090' -> 'RTX4090', 'A800 80GB' -> 'A800-80GB')."""
    if gpu_model in SKYPILOT_NAMES:
        return SKYPILOT_NAMES[gpu_model]
    words = gpu_model.split()
    if len(words) > 1 and words[-1].upper().endswith("GB") and words[-1][:-2].isdigit():
        return "".join(words[:-1]) + "-" + words[-1].upper()
    return "".join(words)


def gpuhunt_name(gpu_model: str) -> str:
    """gpuhunt's GPU name: the model without its memory size (gpu_memory says
    it) and without spaces: 'A100 80GB' -> 'A100', 'RTX PRO 6000' -> 'RTXPRO6000'."""
    words = gpu_model.split()
    if len(words) > 1 and words[-1].upper().endswith("GB") and words[-1][:-2].isdigit():
        words = words[:-1]
    return "".join(words)


def gpu_info(name: str, count: Decimal, memory_gb: Decimal | None) -> str:
    """GpuInfo as SkyPilot's fetchers write it (fetch_lambda_cloud.py): a JSON
    object with single quotes, which `ast.literal_eval` reads."""
    per_gpu = int(memory_gb * 1024) if memory_gb else None
    info: dict[str, Any] = {
        "Gpus": [
            {
                "Name": name,
                "Manufacturer": _vendor(name, default="NVIDIA"),
                "Count": float(count),
                "MemoryInfo": {"SizeInMiB": per_gpu},
            }
        ],
        "TotalGpuMemoryInMiB": int(per_gpu * count) if per_gpu else None,
    }
    return json.dumps(info).replace('"', "'").replace("null", "None")


def _vendor(gpu_model: str, default: str) -> str:
    model = lookup(gpu_model)
    return model.vendor if model else default


def _memory_per_gpu(row: dict[str, Any]) -> Decimal | None:
    count, memory = row.get("gpu_count"), row.get("gpu_memory_gb")
    if isinstance(memory, Decimal) and memory > 0 and count:
        return memory / count
    model = lookup(row.get("gpu_model"))
    return model.memory_gb if model else None


def _number(value: Decimal | None) -> str:
    """A figure as the tools' own files write it: SkyPilot's floats ('8.0'), exact ('2.545643')."""
    if value is None:
        return ""
    text = f"{value.normalize():f}"
    return text if "." in text else text + ".0"


def _hourly(row: dict[str, Any]) -> Decimal | None:
    if row["unit"] != "hour" or row["term"]:
        return None
    return effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])


def catalog_rows(
    store: sa.Engine, providers: dict[str, str], *, gpu: str | None, provider: str | None, written: Written
) -> dict[str, dict[tuple[str, str, str], dict[str, Any]]]:
    """The current hourly Linux prices with GPUs of the providers a catalog
    knows, per its file name and (region, zone, instance type): the
    instance's figures with `on_demand` (the region's, lowest) and `spot`."""
    if provider and provider not in providers:
        raise UserError(f"this catalog has no cloud for {provider}; it writes {', '.join(sorted(providers))}")
    where = PriceFilter(provider=provider, gpu=gpu, os="linux", with_gpus=True, include_suspect=False)
    out: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = {}
    on_demand: dict[tuple[str, str, str], Decimal] = {}
    for row in price_records(store, where):
        name = providers.get(row["provider"])
        model = row["price_model"]
        kind = "on_demand" if model == "on_demand" else "spot" if model in SPOT_MODELS else None
        hourly = _hourly(row) if name and kind else None
        if name is None or kind is None or hourly is None:
            continue  # a term, a month: neither catalog has a column for it
        if row["currency"] != "USD":
            written.skip(f"priced in {row['currency']}, not USD")
            continue
        if "+" in row["instance_type"] or not row.get("gpu_model"):
            written.skip("a GCP host with GPUs attached (no machine type of its own)")
            continue
        place = (row["region"], row["instance_type"])
        if kind == "on_demand":
            on_demand[(name, *place)] = min(hourly, on_demand.get((name, *place), hourly))
        zone = row["zone"] if kind == "spot" else ""
        entry = out.setdefault(name, {}).setdefault((row["region"], zone, row["instance_type"]), {"row": row})
        entry[kind] = min(hourly, entry.get(kind, hourly))
    for name, entries in out.items():
        for (region, _, instance_type), entry in entries.items():
            entry.setdefault("on_demand", on_demand.get((name, region, instance_type)))
    return out


def _drop_covered(entries: dict[tuple[str, str, str], dict[str, Any]]) -> list[tuple[tuple[str, str, str], dict]]:
    """The rows to write: one per zone with a spot price (the region's on-demand
    price beside it), and a zone-less row only where no zone row carries the region's price."""
    zoned = {(region, instance_type) for (region, zone, instance_type) in entries if zone}
    return sorted(
        ((key, entry) for key, entry in entries.items() if key[1] or (key[0], key[2]) not in zoned),
        key=lambda item: (item[0][2], item[0][0], item[0][1]),
    )


def write_skypilot(store: sa.Engine, folder: Path, *, gpu: str | None = None, provider: str | None = None) -> Written:
    """`<folder>/<cloud>/vms.csv` for each SkyPilot cloud with prices."""
    written = Written()
    for cloud, entries in sorted(
        catalog_rows(store, SKYPILOT_CLOUDS, gpu=gpu, provider=provider, written=written).items()
    ):
        lines = []
        for (region, zone, instance_type), entry in _drop_covered(entries):
            row = entry["row"]
            if not (isinstance(row.get("vcpu"), Decimal) and isinstance(row.get("memory_gb"), Decimal)):
                # SkyPilot asserts one vCPU count and one memory size per type (NaN is never one).
                written.skip("no vCPU count or memory (SkyPilot needs both)")
                continue
            name = skypilot_name(row["gpu_model"])
            count = row["gpu_count"]
            lines.append(
                {
                    "InstanceType": _skypilot_type(cloud, instance_type),
                    "AcceleratorName": name,
                    "AcceleratorCount": _number(count),
                    "vCPUs": _number(row.get("vcpu")),
                    "MemoryGiB": _number(row.get("memory_gb")),
                    "GpuInfo": gpu_info(name, count, _memory_per_gpu(row)),
                    "Price": _number(entry.get("on_demand")),
                    "SpotPrice": _number(entry.get("spot")),
                    "Region": region,
                    "AvailabilityZone": zone,
                }
            )
        written.files.append((_write_csv(folder / cloud / "vms.csv", SKYPILOT_COLUMNS, lines), len(lines)))
    return written


def _skypilot_type(cloud: str, instance_type: str) -> str:
    """SkyPilot's name of the instance type: Nebius's is `<platform>_<preset>`
    (fetch_nebius.py: `fullname=f'{platform_name}_{preset.name}'`), ours `<platform>.<preset>`."""
    return instance_type.replace(".", "_", 1) if cloud == "nebius" else instance_type


def _gpuhunt_type(provider: str, instance_type: str) -> str:
    """gpuhunt's name of the instance type: Nebius's is `<platform> <preset>`
    (providers/nebius.py: `instance_name=f"{platform} {preset.name}"`)."""
    return instance_type.replace(".", " ", 1) if provider == "nebius" else instance_type


# gpuhunt's accelerator vendors (`_internal/models.py` AcceleratorVendor).
GPUHUNT_VENDORS = ("nvidia", "amd", "google", "intel", "tenstorrent")


def write_gpuhunt(store: sa.Engine, folder: Path, *, gpu: str | None = None, provider: str | None = None) -> Written:
    """`<folder>/<provider>.csv` for each gpuhunt offline provider with prices:
    one row per instance, location and spot or not."""
    written = Written()
    for name, entries in sorted(
        catalog_rows(store, GPUHUNT_PROVIDERS, gpu=gpu, provider=provider, written=written).items()
    ):
        best: dict[tuple[str, str, bool], tuple[Decimal, dict[str, Any]]] = {}
        for (region, _, instance_type), entry in entries.items():
            for spot in (False, True):
                price = entry.get("spot" if spot else "on_demand")
                key = (instance_type, region, spot)
                if price is not None and (key not in best or price < best[key][0]):
                    best[key] = (price, entry["row"])
        lines = []
        for (instance_type, region, spot), (price, row) in sorted(best.items()):
            line = _gpuhunt_line(_gpuhunt_type(name, instance_type), region, spot, price, row)
            if isinstance(line, str):
                written.skip(line)
            else:
                lines.append(line)
        written.files.append((_write_csv(folder / f"{name}.csv", GPUHUNT_COLUMNS, lines), len(lines)))
    return written


def _gpuhunt_line(
    instance_type: str, region: str, spot: bool, price: Decimal, row: dict[str, Any]
) -> dict[str, str] | str:
    """The row of gpuhunt's catalog, or why there is none."""
    cpu, memory, count = row.get("vcpu"), row.get("memory_gb"), row.get("gpu_count")
    if not (_whole(cpu) and _whole(count) and isinstance(memory, Decimal)):
        return "a slice of a GPU, or no vCPU count or memory (gpuhunt needs whole GPUs, vCPUs and memory)"
    assert isinstance(cpu, Decimal) and isinstance(count, Decimal)
    vendor = _vendor(row["gpu_model"], default="nvidia").lower()
    if vendor not in GPUHUNT_VENDORS:
        return f"an accelerator of {vendor}, a vendor gpuhunt does not know"
    per_gpu = _memory_per_gpu(row)
    return {
        "instance_name": instance_type,
        "location": region,
        "price": f"{price.normalize():f}",
        "cpu": f"{int(cpu)}",
        "memory": f"{memory.normalize():f}",
        "gpu_count": f"{int(count)}",
        "gpu_name": gpuhunt_name(row["gpu_model"]),
        "gpu_memory": f"{per_gpu.normalize():f}" if per_gpu else "",
        "spot": "True" if spot else "False",
        "disk_size": "",
        "gpu_vendor": vendor,
        "flags": "",
        "cpu_arch": "x86",
        "provider_data": "{}",
    }


def _whole(value: Any) -> bool:
    return isinstance(value, Decimal) and value > 0 and value == value.to_integral_value()


def _write_csv(path: Path, columns: Iterable[str], lines: list[dict[str, str]]) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(columns), lineterminator="\n")
            writer.writeheader()
            writer.writerows(lines)
    except OSError as exc:
        raise UserError(f"{path}: cannot write it: {exc.strerror or exc}") from None
    return path


def write_catalogs(
    store: sa.Engine, kind: str, folder: Path, *, gpu: str | None = None, provider: str | None = None
) -> Written:
    """The catalogs of `kind` (skypilot or gpuhunt) in `folder`."""
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: a {kind} catalog is a folder of files; give a folder, not a file")
    written = (write_skypilot if kind == "skypilot" else write_gpuhunt)(store, folder, gpu=gpu, provider=provider)
    if not written.files:
        raise UserError(f"no current price of a cloud {kind} knows ({', '.join(_clouds(kind))}); nothing written")
    return written


def _clouds(kind: str) -> list[str]:
    return sorted(SKYPILOT_CLOUDS if kind == "skypilot" else GPUHUNT_PROVIDERS)
