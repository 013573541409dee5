"""The dashboard's words in English and Simplified Chinese, chosen by the
browser's Accept-Language (RFC 9110, section 12.5.4): the first language it
prefers that we have, English otherwise. Data (provider names, instance types,
offer titles) is shown as stored."""

from __future__ import annotations

EN = {
    "title": "GPU prices",
    "skip": "Skip to content",
    "nav.overview": "Overview",
    "nav.prices": "Prices",
    "nav.changes": "Changes",
    "nav.offers": "Offers",
    "nav.recommend": "Recommend",
    "nav.sources": "Sources",
    "overview.cheapest": "Cheapest per GPU model, {currency} per GPU-hour",
    "overview.recent": "Recent changes",
    "overview.offers": "Current offers",
    "overview.health": "Source health",
    "card.models": "GPU models priced",
    "card.providers": "from {n} providers",
    "card.changes": "Changes in 7 days",
    "card.moves": "{drops} drops, {rises} rises",
    "card.offers": "Offers",
    "card.sources": "Sources failing",
    "card.sources_ok": "every last run succeeded",
    "kind.on demand": "on demand",
    "kind.spot": "spot",
    "kind.committed": "committed",
    "col.gpu": "GPU",
    "col.gpus": "GPUs",
    "col.provider": "provider",
    "col.region": "region",
    "col.region_group": "region group",
    "col.instance": "instance",
    "col.price_model": "price model",
    "col.term": "term",
    "col.price": "price",
    "col.per_gpu_hour": "per GPU-hour",
    "col.hourly": "hourly",
    "col.availability": "availability",
    "col.currency": "currency",
    "col.seen": "seen",
    "col.when": "when",
    "col.kind": "kind",
    "col.change": "change",
    "col.from": "from",
    "col.to": "to",
    "col.title": "offer",
    "col.worth": "worth",
    "col.conditions": "conditions",
    "col.until": "until",
    "col.source": "source",
    "col.status": "last run",
    "col.last_run": "when",
    "col.last_ok": "last good data",
    "col.stale": "stale",
    "col.failures": "failures since",
    "col.error": "last error",
    "col.rank": "#",
    "col.total": "total",
    "col.why": "why",
    "col.mix": "price model",
    "col.credits": "credits",
    "col.instances": "instances",
    "filter.apply": "Apply",
    "filter.reset": "Reset",
    "filter.any": "any",
    "filter.gpu": "GPU model",
    "filter.sort": "Sort by",
    "filter.descending": "Highest first",
    "filter.since": "Since (7d, 2026-08-01)",
    "filter.active": "Only offers valid now",
    "page.prev": "Previous",
    "page.next": "Next",
    "page.showing": "{first}–{last} of {total}",
    "empty": "nothing matches",
    "prices.title": "Current prices",
    "changes.title": "Changes",
    "changes.feed": "Atom feed of these changes",
    "offers.title": "Offers",
    "sources.title": "Sources",
    "sources.store": "Store",
    "sources.settings": "Settings in force (secrets masked)",
    "instance.title": "Price history",
    "instance.chart": "{unit} per hour, step lines: the price in force",
    "instance.intervals": "Intervals",
    "instance.changes": "Changes that made it",
    "recommend.title": "Recommend",
    "recommend.intro": "What to buy for a GPU job, ranked by its total cost over the horizon.",
    "recommend.submit": "Rank the options",
    "recommend.gpus": "GPUs at once",
    "recommend.min_gpu_memory": "Usable memory per GPU (GB)",
    "recommend.workload": "Workload",
    "recommend.hours_per_month": "Hours a month",
    "recommend.months": "Months",
    "recommend.gpu": "Only this GPU model",
    "recommend.new_account": "I am a new customer",
    "recommend.none": "no option meets these needs",
    "yes": "yes",
    "no": "no",
    "api": "JSON API",
    "footer": "Read-only. Prices per GPU-hour; monthly and yearly prices as effective hourly rates.",
    "error.title": "That did not work",
}

ZH = {
    "title": "GPU 价格",
    "skip": "跳到正文",
    "nav.overview": "概览",
    "nav.prices": "价格",
    "nav.changes": "变动",
    "nav.offers": "优惠",
    "nav.recommend": "推荐",
    "nav.sources": "数据源",
    "overview.cheapest": "各 GPU 型号最低价（{currency}/GPU·小时）",
    "overview.recent": "最近变动",
    "overview.offers": "当前优惠",
    "overview.health": "数据源状态",
    "card.models": "已定价 GPU 型号",
    "card.providers": "来自 {n} 家云厂商",
    "card.changes": "7 天内变动",
    "card.moves": "降价 {drops} 次，涨价 {rises} 次",
    "card.offers": "优惠",
    "card.sources": "失败的数据源",
    "card.sources_ok": "最近一次运行全部成功",
    "kind.on demand": "按量",
    "kind.spot": "竞价",
    "kind.committed": "包年包月/预留",
    "col.gpu": "GPU",
    "col.gpus": "GPU 数",
    "col.provider": "云厂商",
    "col.region": "地域",
    "col.region_group": "地域组",
    "col.instance": "实例规格",
    "col.price_model": "计费方式",
    "col.term": "期限",
    "col.price": "价格",
    "col.per_gpu_hour": "每 GPU·小时",
    "col.hourly": "每小时",
    "col.availability": "库存",
    "col.currency": "币种",
    "col.seen": "观测时间",
    "col.when": "时间",
    "col.kind": "类型",
    "col.change": "变动",
    "col.from": "起",
    "col.to": "止",
    "col.title": "优惠",
    "col.worth": "价值",
    "col.conditions": "条件",
    "col.until": "截止",
    "col.source": "数据源",
    "col.status": "最近运行",
    "col.last_run": "时间",
    "col.last_ok": "最近成功数据",
    "col.stale": "过期",
    "col.failures": "连续失败",
    "col.error": "最近错误",
    "col.rank": "#",
    "col.total": "总计",
    "col.why": "原因",
    "col.mix": "计费方式",
    "col.credits": "抵扣",
    "col.instances": "实例数",
    "filter.apply": "筛选",
    "filter.reset": "重置",
    "filter.any": "全部",
    "filter.gpu": "GPU 型号",
    "filter.sort": "排序",
    "filter.descending": "从高到低",
    "filter.since": "起始（7d、2026-08-01）",
    "filter.active": "仅当前有效的优惠",
    "page.prev": "上一页",
    "page.next": "下一页",
    "page.showing": "第 {first}–{last} 条，共 {total} 条",
    "empty": "没有匹配的结果",
    "prices.title": "当前价格",
    "changes.title": "变动",
    "changes.feed": "这些变动的 Atom 订阅",
    "offers.title": "优惠",
    "sources.title": "数据源",
    "sources.store": "存储",
    "sources.settings": "当前设置（密钥已隐藏）",
    "instance.title": "价格历史",
    "instance.chart": "{unit}/小时，阶梯线为当时价格",
    "instance.intervals": "价格区间",
    "instance.changes": "相关变动",
    "recommend.title": "推荐",
    "recommend.intro": "按使用期内总成本为 GPU 任务排序可选方案。",
    "recommend.submit": "排序方案",
    "recommend.gpus": "同时需要的 GPU 数",
    "recommend.min_gpu_memory": "每 GPU 可用显存（GB）",
    "recommend.workload": "任务类型",
    "recommend.hours_per_month": "每月小时数",
    "recommend.months": "月数",
    "recommend.gpu": "仅此 GPU 型号",
    "recommend.new_account": "我是新用户",
    "recommend.none": "没有满足需求的方案",
    "yes": "是",
    "no": "否",
    "api": "JSON 接口",
    "footer": "只读。价格按每 GPU·小时计；包月、包年价格折算为小时价。",
    "error.title": "请求有误",
}

LANGUAGES = {"en": EN, "zh": ZH}


def choose(accept_language: str | None) -> str:
    """'zh' or 'en' from an Accept-Language header: by quality, then order.
    Any zh (zh, zh-CN, zh-Hans) gets Simplified Chinese."""
    ranked = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, i, tag.lower()))
    for _, _, tag in sorted(ranked):
        base = tag.split("-")[0]
        if base in LANGUAGES:
            return base
    return "en"


class Words:
    """The labels of one language; a missing key falls back to English, then to itself."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.table = LANGUAGES.get(lang, EN)

    def __call__(self, key: str, **values: object) -> str:
        text = self.table.get(key) or EN.get(key) or key
        return text.format(**values) if values else text
