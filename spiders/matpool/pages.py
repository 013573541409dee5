"""矩池云 (MatPool)'s machine market, `GET https://matpool.com/api/machines?page=&per_page=&machine_category=0`
(GPU machines; the web console's own request, with the user's token):
`{"code": 0, "machines": [...], "pagination": {"total", "numPages", "page",
"perPage"}}`, a non-zero `code` with `msg` for an error. As a public
client of the console documents it (Aoblex/matpool-cli, docs/api-notes.md:
the list endpoints need `page` and `per_page`, their pagination fields; a
machine has `agentId`, `gpu {available, total, max}`, `unit {...}`,
`hardware {gpu {gpuName}, priceMillicent, discountPriceMillicent}`).

`priceMillicent` is the price of one rentable unit (`unit`, which can be
several GPUs: `gpu.total / unit.total` of them), as both public clients read
it (Aoblex/matpool-cli: rent quantities in units, `unitStep = physicalTotal /
unit.total`; quziang/matpool-gpu: "元/小时/份", yuan an hour a unit); the
machine's region is `domain` (quziang/matpool-gpu: "1区对应0").

A client that prints the answer reads the payload either at the top or
under `data`; both are read here. A machine without an id, a GPU name, its
counts or a price is odd: dropped and counted.
"""

from __future__ import annotations

from spiders.matpool.items import MatpoolMachine
from spiders.pages import PageShapeError, load_json, member


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_machines(body: bytes) -> tuple[list[MatpoolMachine], int, int]:
    """The machines of one page, how many odd ones were dropped, and the number of pages."""
    page = load_json(body, "matpool: the machine list")
    code = member(page, "code")
    if code not in (0, None):
        raise PageShapeError(f"matpool: the machine list answered code {code}: {member(page, 'msg') or ''}")
    payload = member(page, "data") if isinstance(member(page, "data"), dict) else page
    listed = member(payload, "machines")
    if not isinstance(listed, list):
        raise PageShapeError("matpool: the answer has no machines list")
    pages = member(member(payload, "pagination"), "numPages")
    machines: list[MatpoolMachine] = []
    odd = 0
    for m in listed:
        gpu, hardware = member(m, "gpu"), member(m, "hardware")
        name = member(member(hardware, "gpu"), "gpuName")
        free, total = member(gpu, "available"), member(gpu, "total")
        price = member(hardware, "priceMillicent")
        agent = member(m, "agentId")
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (free, total, price))
        if not isinstance(agent, (int, str)) or isinstance(agent, bool) or agent == "":
            odd += 1
            continue
        if not isinstance(name, str) or not name or not ints:
            odd += 1
            continue
        unit, domain = member(m, "unit"), member(m, "domain")
        machines.append(
            {
                "agent_id": agent,
                "gpu_name": name,
                "gpu_free": free,
                "gpu_total": total,
                "price_millicent": price,
                "discount_millicent": _whole(member(hardware, "discountPriceMillicent")),
                "unit_free": _whole(member(unit, "available")),
                "unit_total": _whole(member(unit, "total")),
                "gpu_max": _whole(member(gpu, "max")),
                "domain": domain if isinstance(domain, (int, str)) and not isinstance(domain, bool) else None,
            }
        )
    return machines, odd, pages if isinstance(pages, int) else 1
