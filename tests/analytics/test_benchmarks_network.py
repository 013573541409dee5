"""The node network table (tracker/data/network.csv, tracker/analytics/facts/network.py):
what each provider states of an instance type's network."""

from __future__ import annotations

from decimal import Decimal
from importlib import resources

import pytest

from tracker.analytics.facts.network import RDMA_KINDS, network_fields, network_of, network_text, rdma_of
from tracker.data import rows


def test_every_row_is_well_formed() -> None:
    for row in rows("network.csv"):
        assert row["rdma"] in ("", *RDMA_KINDS), row
        assert row["source_url"].startswith("https://"), row
        assert row["note"], row


def test_every_provider_with_a_spec_table_has_a_row_for_the_rest() -> None:
    specs = resources.files("tracker") / "normalize" / "gpu_specs"
    providers = {p.name.removesuffix(".csv") for p in specs.iterdir() if p.name.endswith(".csv")}
    catch_all = {r["provider"] for r in rows("network.csv") if r["instance_type"] == "*"}
    assert providers - catch_all == set()


@pytest.mark.parametrize(
    ("provider", "instance_type", "rdma", "gbps"),
    [
        ("aws", "p5.48xlarge", "EFA", None),
        ("aws", "p4d.24xlarge", "EFA", None),
        ("aws", "g5.xlarge", "", None),
        ("azure", "Standard_ND96isr_H100_v5", "InfiniBand", Decimal(3200)),
        ("azure", "Standard_ND96is_H100_v5", "", None),
        ("azure", "Standard_ND96asr_v4", "InfiniBand", Decimal(1600)),
        ("gcp", "a3-ultragpu-8g", "RoCE", None),
        ("gcp", "a3-highgpu-8g", "", None),
        ("oci", "BM.GPU.H100.8", "RoCE", Decimal(3200)),
        ("coreweave", "NVIDIA HGX H100", "InfiniBand", Decimal(3200)),
        ("coreweave", "NVIDIA L40S", "", None),
        ("crusoe", "h100-80gb-sxm-ib.8x", "InfiniBand", None),
        ("nebius", "gpu-h100-sxm.8gpu-128vcpu-1600gb", "InfiniBand", Decimal(3200)),
        ("nebius", "gpu-h100-sxm.1gpu-16vcpu-200gb", "", None),
        ("lambda", "gpu_8x_h100_sxm5", "", None),
    ],
)
def test_what_a_provider_states(provider: str, instance_type: str, rdma: str, gbps: Decimal | None) -> None:
    network = network_of(provider, instance_type)
    assert network is not None
    assert network.rdma == rdma and network.network_gbps == gbps
    assert rdma_of(provider, instance_type) == rdma


def test_a_price_keeps_its_own_figures_and_gains_the_rest() -> None:
    own = {
        "provider": "aws",
        "instance_type": "p5.48xlarge",
        "network_gbps": Decimal(3200),
        "gpu_interconnect": "NVLink 4 via NVSwitch 3 (900 GB/s)",
    }
    fields = network_fields(own)
    assert fields["network_gbps"] == Decimal(3200) and fields["rdma"] == "EFA"
    assert fields["network_source"].startswith("https://docs.aws.amazon.com/")
    assert network_text(own) == "3200 Gbps EFA; NVLink 4 via NVSwitch 3 (900 GB/s)"
    blank = {"provider": "azure", "instance_type": "Standard_ND40rs_v2", "network_gbps": None, "gpu_interconnect": None}
    assert network_fields(blank)["network_gbps"] == Decimal(100)
    assert network_of("nowhere", "x") is None
    assert network_fields({"provider": "nowhere", "instance_type": "x"})["rdma"] is None
