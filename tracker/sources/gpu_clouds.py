"""The GPU clouds' and the marketplaces' price sources. Declared as the registry (tracker/sources/__init__.py) reads them."""

from __future__ import annotations

from tracker.sources.source import Source


def sources() -> tuple[Source, ...]:
    from spiders.autodl.spider import AutodlSpider
    from spiders.coreweave.spider import CoreWeaveSpider
    from spiders.crusoe.spider import CrusoeSpider
    from spiders.digitalocean.spider import DigitalOceanSpider
    from spiders.evidence import Evidence
    from spiders.lambda_.spider import LambdaSpider
    from spiders.matpool.spider import MatpoolSpider
    from spiders.nebius.spider import NebiusSpider
    from spiders.oci.spider import OciSpider
    from spiders.runpod.spider import RunpodCommunitySpider, RunpodSpider
    from spiders.tensordock.spider import TensordockSpider
    from spiders.vastai.spider import VastaiSpider
    from spiders.verda.api import VerdaSpider
    from spiders.vultr.spider import VultrSpider
    from tracker.normalize.providers import (
        autodl,
        coreweave,
        crusoe,
        digitalocean,
        lambda_,
        matpool,
        nebius,
        oci,
        runpod,
        tensordock,
        vastai,
        verda,
        vultr,
    )

    every = "every region, or those named"
    od_spot = ("on_demand", "spot")
    return (
        Source(
            "vultr",
            "vultr",
            VultrSpider,
            vultr.normalize,
            price_models=od_spot,
            regions="the regions a plan can be deployed in, or those named",
            stock="per region",
            evidence=Evidence(
                "example",
                "Vultr's API reference (plans, plans-metal, meta.links.next); plan ids and prices as public"
                " clients' answers give them (gpuhunt's Vultr tests); a constructed capture",
                fixture="tests/fixtures/vultr/make_fixtures.py, tests/spiders/test_vultr.py",
            ),
        ),
        Source(
            "digitalocean",
            "digitalocean",
            DigitalOceanSpider,
            digitalocean.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="the regions a size can be created in",
            stock="per region",
            evidence=Evidence(
                "example",
                "the size object of DigitalOcean's OpenAPI description (digitalocean/openapi,"
                " specification/resources/sizes), gpu_info as its clients show it; a constructed capture",
                fixture="tests/fixtures/digitalocean/make_fixtures.py, tests/spiders/test_digitalocean.py",
            ),
        ),
        Source(
            "verda",
            "verda",
            VerdaSpider,
            verda.normalize,
            needs_api_key=True,
            price_models=od_spot,
            regions="every location",
            stock="per location",
            evidence=Evidence(
                "sdk",
                "verda-cloud/sdk-python: InstanceType (prices as decimal strings), the instance-availability"
                " entries of its integration tests, locations; a constructed capture",
                fixture="tests/fixtures/verda/make_fixtures.py, tests/spiders/test_verda.py",
            ),
        ),
        Source(
            "lambda",
            "lambda",
            LambdaSpider,
            lambda_.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions=every,
            stock="per region",
            evidence=Evidence(
                "example",
                "Lambda's OpenAPI specification 1.10.0 (listInstanceTypes, listRegions and their examples);"
                " types, specs and older prices from SkyPilot's Lambda catalogue; a constructed capture",
                fixture="tests/fixtures/lambda/make_fixtures.py, tests/spiders/test_lambda.py",
            ),
        ),
        Source(
            "oci",
            "oci",
            OciSpider,
            oci.normalize,
            price_models=("on_demand",),
            regions="one list price for every region, stored under those named",
            evidence=Evidence(
                "capture",
                "a real cetools products answer (currencyCode=USD) as a public collector recorded it, trimmed to its"
                " GPU Per Hour parts: getcomputable/gpu-index@38e515c00ad4 tests/fixtures/observatory/oracle/products_usd.json",
                date="2026-08-22",
                fixture="tests/fixtures/oci/README.md, tests/spiders/test_oci.py",
            ),
        ),
        Source(
            "nebius",
            "nebius",
            NebiusSpider,
            nebius.normalize,
            price_models=od_spot,
            regions="the regions each platform is sold in",
            evidence=Evidence(
                "assumed",
                "no real copy of pricing.md is public; its shape as public readers describe it and as the one public"
                " parser of it reads it (jwilliamross/compute-curve NebiusCollector and its test data); the figures"
                " checked against a real copy of nebius.com/prices, getcomputable/gpu-index@055204adf5e6"
                " tests/fixtures/observatory/nebius/prices.html (2026-08-22)",
                fixture="tests/fixtures/nebius/README.md, tracker/demo_captures/nebius/README.md",
            ),
        ),
        Source(
            "coreweave",
            "coreweave",
            CoreWeaveSpider,
            coreweave.normalize,
            price_models=od_spot,
            regions="North America and Europe (one table each on the page)",
            evidence=Evidence(
                "capture",
                "the pricing page as served, ewyluda/gpu-price-index@078a7891acf5"
                " tests/fixtures/coreweave.html (its GPU section, verbatim)",
                date="2026-10-04",
                fixture="tests/fixtures/coreweave/README.md, tests/spiders/test_coreweave.py",
            ),
        ),
        Source(
            "runpod",
            "runpod",
            RunpodSpider,
            runpod.normalize,
            price_models=od_spot,
            regions="every data centre, or those named",
            stock="per data centre and GPU count",
            evidence=Evidence(
                "sdk",
                "the GraphQL fields runpod-python's queries read (runpod/api/queries/gpus.py: gpuTypes, prices,"
                " lowestPrice); stockStatus as gpuhunt reads it; a constructed capture",
                fixture="tests/fixtures/runpod/make_fixtures.py, tests/spiders/test_runpod.py",
            ),
        ),
        # Marketplaces: thousands of host offers, stored per GPU, count and region (docs/marketplaces.md).
        Source(
            "vastai",
            "vastai",
            VastaiSpider,
            vastai.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=od_spot,
            regions="macro regions of the hosts' countries",
            stock="offers per GPU, count, region and tier",
            evidence=Evidence(
                "example",
                "Vast.ai's API reference, 'Search Offers (GET)' (vast-ai/docs: id, gpu_name, num_gpus,"
                " dph_total, min_bid, gpu_ram, verification); geolocation as its CLI names it; a constructed capture",
                fixture="tests/fixtures/vastai/make_fixtures.py, tests/spiders/test_vastai.py",
            ),
        ),
        Source(
            "tensordock",
            "tensordock",
            TensordockSpider,
            tensordock.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="macro regions of the hosts' countries",
            stock="hostnodes per GPU, count, region and tier",
            evidence=Evidence(
                "example",
                "TensorDock's API docs, 'Fetch Hostnodes and Locations' (v0Name, price_per_hr, pricing, tier);"
                " the hostnodes' available GPUs as public v2 clients read them; a constructed capture",
                fixture="tests/fixtures/tensordock/make_fixtures.py, tests/spiders/test_tensordock.py",
            ),
        ),
        Source(
            "runpod-community",
            "runpod",
            RunpodCommunitySpider,
            runpod.normalize_community,
            kind="marketplace",
            price_models=od_spot,
            regions="macro regions of every country, or of those named",
            stock="countries per GPU, count and region",
            evidence=Evidence(
                "sdk",
                "the GraphQL fields runpod-python's queries read (runpod/api/queries/gpus.py: communityPrice,"
                " communitySpotPrice, lowestPrice per country); a constructed capture",
                fixture="tests/fixtures/runpod/make_fixtures.py, tests/spiders/test_runpod.py",
            ),
        ),
        Source(
            "autodl",
            "autodl",
            AutodlSpider,
            autodl.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="AutoDL's regions (北京B区 ...), every one or those named",
            stock="machines with GPUs free, per GPU, count and region",
            evidence=Evidence(
                "capture",
                "one machine record of a real market-list answer, trimmed by its author (gpu_order_num 0, "
                "payg_price 2720): mfznttkx/autodl-gpuhunter@f5969e2 gpuhunter/autodl_client.py",
                date="2024-03-29",
                fixture="tests/fixtures/autodl/README.md, tests/spiders/test_autodl.py",
            ),
        ),
        Source(
            "matpool",
            "matpool",
            MatpoolSpider,
            matpool.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="one market (china)",
            stock="machines with GPUs free, per GPU and count",
            evidence=Evidence(
                "assumed",
                "no real answer is public (a user's token only); the shape and meaning (a unit's price, "
                "units of several GPUs, domain) as two public clients read them: Aoblex/matpool-cli@676e791 "
                "test/fixtures.js, src/views.js, docs/api-notes.md; quziang/matpool-gpu@9fef9bf "
                "references/inventory.md",
                fixture="tests/fixtures/matpool/README.md",
            ),
        ),
        Source(
            "crusoe",
            "crusoe",
            CrusoeSpider,
            crusoe.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="the locations Crusoe states capacity in, or those named",
            stock="per location",
            evidence=Evidence(
                "capture",
                "the pricing page as served (GPU instances, Self-Serve Deployments), trimmed: "
                "getcomputable/gpu-index@055204a tests/fixtures/observatory/crusoe/pricing.html; "
                "the API's answers from Crusoe's OpenAPI definition",
                date="2026-08-22",
                fixture="tests/fixtures/crusoe/README.md, tests/spiders/test_crusoe.py",
            ),
        ),
    )
