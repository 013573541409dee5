"""The GPU spec tables of AWS, Azure, GCP and the GPU clouds speak one interconnect
language (see tracker/normalize/gpu_specs/README.md)."""

from __future__ import annotations

import re

import pytest

from tracker.normalize.specs import GpuSpec, spec_table

LABEL = re.compile(
    r"^(?:PCIe|Infinity Fabric \((?P<if>\d+) GB/s\)"
    r"|NVLink (?P<link>\d)(?: via NVSwitch (?P<switch>\d))? \((?P<gbs>\d+) GB/s\))$"
)
# NVLink generation of each GPU, and the per-GPU bandwidths it comes in.
NVLINK = {"V100": 2, "A100": 3, "H100": 4, "H200": 4, "B200": 5, "B300": 5}
BANDWIDTH = {2: {300}, 3: {600}, 4: {900, 600}, 5: {1800}}  # 600: the H100 NVL bridge pair


def rows() -> list[tuple[str, GpuSpec]]:
    providers = (
        "aws",
        "azure",
        "gcp",
        "vultr",
        "digitalocean",
        "verda",
        "lambda",
        "oci",
        "nebius",
        "coreweave",
        "crusoe",
    )
    return [(p, s) for p in providers for s in spec_table(p).values()]


# Multi-GPU types whose provider does not say how their GPUs are linked: the
# cell stays empty (unknown), never a guess.
UNSTATED_LINKS = {
    # A6000 and A100 PCIe cards may or may not be bridged; V100 and H100 partial boards unstated
    ("lambda", t)
    for t in ("gpu_2x_a6000", "gpu_4x_a6000", "gpu_8x_v100", "gpu_2x_a100", "gpu_4x_a100")
    + ("gpu_2x_h100_sxm5", "gpu_4x_h100_sxm5")
} | {
    ("oci", "VM.GPU3.2"),
    ("oci", "VM.GPU3.4"),
    ("oci", "BM.GPU.GB200.4"),
    ("coreweave", "NVIDIA GB200 NVL72"),
    ("coreweave", "NVIDIA A100"),
}


@pytest.mark.parametrize("provider, spec", rows(), ids=lambda v: v if isinstance(v, str) else v.instance_type)
def test_interconnect_label_follows_the_convention(provider: str, spec: GpuSpec) -> None:
    if (provider, spec.instance_type) in UNSTATED_LINKS:
        assert spec.gpu_interconnect is None
        return
    found = LABEL.match(spec.gpu_interconnect or "")
    assert found, f"{provider} {spec.instance_type}: {spec.gpu_interconnect!r}"
    if found["link"] is None:
        return
    link = int(found["link"])
    assert link == NVLINK[(spec.gpu_model or "").split()[0]], spec.instance_type
    assert int(found["gbs"]) in BANDWIDTH[link], spec.instance_type
    if found["switch"]:
        assert int(found["switch"]) == link - 1, spec.instance_type  # the switch is a generation behind
    assert spec.gpu_count and spec.gpu_count >= 2 and not spec.fractional, spec.instance_type


def test_eight_gpu_boards_name_their_switch() -> None:
    labels = {(p, s.instance_type): s.gpu_interconnect for p, s in rows()}
    assert labels[("aws", "p4d.24xlarge")] == "NVLink 3 via NVSwitch 2 (600 GB/s)"
    assert labels[("azure", "Standard_ND96isr_H100_v5")] == "NVLink 4 via NVSwitch 3 (900 GB/s)"
    assert labels[("gcp", "a4-highgpu-8g")] == "NVLink 5 via NVSwitch 4 (1800 GB/s)"
    assert labels[("gcp", "a2-highgpu-2g")] == "NVLink 3 (600 GB/s)"
    assert not [k for k, v in labels.items() if v and "NVSwitch" in v and "NVLink" not in v]
