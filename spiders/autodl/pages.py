"""AutoDL's GPU market list, `POST https://www.autodl.com/api/v1/user/machine/list`
(the console's `findAll`; `Authorization: <the user's token>`), pay as you go:
`{"code": "Success", "msg": "", "data": {"list": [...], "page_index",
"page_size", "max_page", "result_total"}}`; an error is another `code`
(`AuthorizeFailed` for a token that is wrong or expired).

A machine: `machine_id`, `machine_alias`, `region_name` (北京B区),
`region_sign` (beijing-B), `gpu_name`, `gpu_number` (its GPUs),
`gpu_idle_num` (free now), `gpu_order_num` (how many of them can be ordered
now: public clients rent a machine only when it is at least the count they
want, and a machine with GPUs idle can answer 0), `gpu_memory` (bytes), and
its price per GPU-hour
in 厘 (1000 厘 = ¥1): `machine_sku_info[]` with `type` "payg" and
`current_price`, or the older `payg_price`. As public clients and market
watchers read them (see the captures' README).
"""

from __future__ import annotations

from typing import Any

from spiders.autodl.items import AutodlMachine
from spiders.pages import PageShapeError, is_number, load_json, member, objects, typed

SUCCESS = "Success"


def api_error(page: Any) -> tuple[str, str] | None:
    """(code, message) of an answer that is not a success."""
    code = member(page, "code")
    if code == SUCCESS:
        return None
    return str(code or "no code"), str(member(page, "msg") or "")


def _price(machine: dict[str, Any]) -> Any:
    for sku in machine.get("machine_sku_info") or []:
        if isinstance(sku, dict) and sku.get("type") == "payg" and sku.get("current_price") not in (None, ""):
            return sku["current_price"]
    return machine.get("payg_price")


def parse_machines(body: bytes) -> tuple[list[AutodlMachine], int, int]:
    """The machines of one page, how many odd ones were dropped, and the last page's number."""
    page = load_json(body, "autodl: the machine list")
    error = api_error(page)
    if error:
        raise PageShapeError(f"autodl: the machine list answered {error[0]}: {error[1]}")
    data = member(page, "data")
    if not isinstance(member(data, "list"), list):
        raise PageShapeError("autodl: the answer has no data.list")
    last = member(data, "max_page")
    machines: list[AutodlMachine] = []
    odd = 0
    for m in objects(data, "list"):
        price = _price(m)
        fields = (m.get("machine_id"), m.get("region_sign"), m.get("gpu_name"))
        counts = (m.get("gpu_number"), m.get("gpu_idle_num"))
        if not all(isinstance(f, str) and f for f in fields) or not all(isinstance(c, int) for c in counts):
            odd += 1
            continue
        if not is_number(price) or any(isinstance(c, bool) for c in counts):
            odd += 1
            continue
        kept = typed(m, {"machine_id": str, "region_sign": str, "region_name": str, "gpu_name": str})
        kept |= typed(m, {"gpu_number": int, "gpu_idle_num": int, "gpu_memory": int, "gpu_order_num": int})
        machines.append({**kept, "price": price})  # type: ignore[typeddict-item]  # typed() checked each field's kind
    return machines, odd, last if isinstance(last, int) else 1
