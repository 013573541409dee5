"""Offers measured in GPU time rather than money: "4 free A100 hours",
"100 GPU hours on H100", "free 8×H100 for 2 hours" (16 GPU-hours),
"4小时免费A100", "a 7-day trial of ecs.gn7i-c8g1.2xlarge", "A100 GPU 4 小时",
"GPU 云服务器免费试用 7 天".

`parse_gpu_time(text)` gives the amount, its unit (`gpu_hour`: hours of one
GPU; `day`: days of the named instance or GPU) and the GPU model or instance
type named, or None. A day trial counts as GPU time only when the text names
a GPU, a GPU model or an instance type: "免费试用 7 天" alone is a plain trial.
The text is NFKC-normalized by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from tracker.normalize.numbers import EN_WORDS, amount_of


@dataclass(frozen=True)
class GpuTime:
    amount: Decimal
    unit: str  # "gpu_hour" or "day"
    gpu: str | None = None
    instance: str | None = None


_N = rf"(?P<n>\d+(?:\.\d+)?|(?<![数几])[一二两三四五六七八九十]+|{EN_WORDS})"  # "数十小时" is no number
# Upper case only, and single-digit names only where real (T4, L4, P4): "V0" is a user tier.
_GPU = (
    r"(?<![A-Za-z0-9])(?P<gpu>(?:MI\d{3}X?|[ABHLV]\d{2,3}[GS]?|P\d{2,3}|[TLP]4|RTX\s?(?:PRO\s)?A?\d{4}(?:\sAda)?|A\d{4})"
    r"(?:\s?(?:80|40|32)\s?GB)?)(?![A-Za-z0-9])"
)
_INSTANCE = (
    r"(?<![\w.])(?P<inst>ecs\.[a-z0-9-]+\.[a-z0-9-]+|[a-z]\d[a-z0-9-]*\.(?:\d*x?large|metal)"
    r"|[A-Z]{2,4}\d+[A-Z]*\.\d*X?LARGE\d+|Standard_[A-Za-z0-9_]+|[a-z]\d-[a-z]+gpu-\d+g)(?![\w])"
)
_HOURS_EN = r"(?:hours?|hrs?)(?![A-Za-z])"
_HOURS_CN = r"(?:个)?(?:小时|卡时|机时)"
_GPU_HOURS = [
    # "free 8×H100 for 2 hours", "8 x A100 free for 4 hours": count x hours GPU-hours
    re.compile(rf"(?:free\s)?(?P<count>\d+)\s?[x×*]\s?{_GPU}\s(?:GPUs?\s)?(?:free\s)?for\s{_N}\s?{_HOURS_EN}", re.I),
    # "a free H100 for 24 hours"
    re.compile(rf"(?:\bfree\s(?:an?\s)?|\ban?\sfree\s){_GPU}\s(?:GPUs?\s)?for\s{_N}\s?{_HOURS_EN}", re.I),
    # "4 free A100 hours", "4 A100 GPU hours"
    re.compile(rf"{_N}\s?(?:free\s)?{_GPU}\s?(?:GPU\s?)?(?:compute\s)?{_HOURS_EN}", re.I),
    # "4 free hours of A100", "100 GPU hours on H100", "10 hours of free T4 time"
    re.compile(
        rf"{_N}\s?(?:free\s)?(?:GPU[- ])?{_HOURS_EN}\s(?:of\s)?(?:free\s)?(?:(?:on|with|of|using)\s)?"
        rf"(?:an?\s)?(?:NVIDIA\s)?{_GPU}",
        re.I,
    ),
    # "A100 GPU 4 小时", "A100 免费体验 4 小时"
    re.compile(rf"{_GPU}\s?(?:GPU\s?)?(?:(?:算力|免费|试用|体验|时长|卡时|领取)\s?)*{_N}\s?{_HOURS_CN}"),
    # "4 小时 A100"
    re.compile(rf"{_N}\s?{_HOURS_CN}\s?(?:的\s?)?(?:免费\s?)?{_GPU}"),
    # "10 free GPU hours", "GPU 4 小时": no model named
    re.compile(rf"{_N}\s?(?:free\s)?GPU[- ]{_HOURS_EN}", re.I),
    # "a free 2 hour GPU Powerup", "a 10-hour GPU trial": the hours before the GPU
    re.compile(rf"{_N}[\s-]?{_HOURS_EN}\s(?:free\s)?GPU\b", re.I),
    re.compile(rf"GPU\s?(?:(?:算力|免费|试用|体验|时长)\s?)*{_N}\s?{_HOURS_CN}", re.I),
    # "100 小时 GPU 算力"
    re.compile(rf"{_N}\s?{_HOURS_CN}\s?(?:的\s?)?(?:免费\s?)?GPU", re.I),
    # "2000 卡时的免费额度": a 卡时 is one GPU card for an hour, whatever the model
    re.compile(rf"{_N}\s?卡时"),
    # "10小时算力卡", "100 小时的算力": hours of compute power (算力) are GPU hours
    re.compile(rf"{_N}\s?{_HOURS_CN}\s?(?:的\s?)?(?:免费\s?)?(?:GPU\s?)?算力"),
    # "【专属算力】（一般为100小时": the compute named, then its hours
    re.compile(rf"算力(?:卡|券)?[】」』]?\s?[(（]?[^。;；,，()（）]{{0,6}}?{_N}\s?{_HOURS_CN}"),
]
# "【全家桶 8 小时】体验 ... 多款算力卡": hours to try, GPU time where the text names GPUs or compute power
_HOURS_TRIAL = re.compile(rf"{_N}\s?{_HOURS_CN}\s?[】」』]?\s?(?:的\s?)?(?:免费\s?)?(?:体验|试用)")
_NAMES_COMPUTE = re.compile(rf"{_GPU}|GPU|显卡|算力", re.I)
# "首次绑定送 20 机时", "[Full Access 8-Hour Package] experience": hours given, GPU time where the text names GPUs
_HOURS_GIVEN = (
    re.compile(rf"(?:送|赠送?|领取?)\s?{_N}\s?(?:个)?(?:小时|机时)"),
    re.compile(rf"{_N}[\s-]?{_HOURS_EN}\s(?:package|pass)\b", re.I),
)
_DAYS = [
    # "7-day free trial of ecs.gn7i...", "a 14-day trial on A10"
    re.compile(
        rf"{_N}[\s-]?days?\s(?:free\s)?trial\s(?:of|on|for)\s(?:an?\s|the\s)?(?:NVIDIA\s)?(?:{_GPU}|{_INSTANCE}|GPU)",
        re.I,
    ),
    # "free trial of 7 days on g5.xlarge"
    re.compile(rf"trial\s(?:of|for)\s{_N}\s?days?\s(?:on|of|with)\s(?:an?\s)?(?:{_GPU}|{_INSTANCE}|GPU)", re.I),
    # "try a g5.xlarge free for 14 days"
    re.compile(rf"(?:{_GPU}|{_INSTANCE})[^.;]{{0,24}}?free\sfor\s{_N}[\s-]?days?", re.I),
    # "免费试用 7 天", "0元试用 GPU 云服务器 15天": GPU time only if a GPU is named somewhere
    re.compile(rf"(?:试用|体验)[^。;；,，]{{0,20}}?{_N}\s?(?:天|日)"),
]
_NAMES_A_GPU = re.compile(rf"{_GPU}|{_INSTANCE}|GPU|显卡", re.I)
_GPU_ANYWHERE = re.compile(_GPU)
_INSTANCE_ANYWHERE = re.compile(_INSTANCE)


def _group(match: re.Match[str], name: str) -> str | None:
    value = match.groupdict().get(name)
    return " ".join(value.split()) if value else None


def parse_gpu_time(text: str) -> GpuTime | None:
    for pattern in _GPU_HOURS:
        match = pattern.search(text)
        if match and (amount := amount_of(match.group("n"))):
            count = match.groupdict().get("count")
            return GpuTime(amount * int(count) if count else amount, "gpu_hour", _group(match, "gpu"))
    match = _HOURS_TRIAL.search(text)
    if match and _NAMES_COMPUTE.search(text) and (amount := amount_of(match.group("n"))):
        return GpuTime(amount, "gpu_hour")  # a bundle of several cards: no one model
    given, package = (p.search(text) for p in _HOURS_GIVEN)
    for match in (given, package):
        if match and _NAMES_COMPUTE.search(text) and (amount := amount_of(match.group("n"))):
            # hours given on one model named are its hours; a package of several cards names none
            models = {_group(m, "gpu") for m in _GPU_ANYWHERE.finditer(text)} if match is given else set()
            return GpuTime(amount, "gpu_hour", models.pop() if len(models) == 1 else None)
    for pattern in _DAYS:
        match = pattern.search(text)
        if not match or not (amount := amount_of(match.group("n"))) or not _NAMES_A_GPU.search(text):
            continue
        gpu, instance = _group(match, "gpu"), _group(match, "inst")
        if gpu is None and instance is None:
            found_gpu, found_inst = _GPU_ANYWHERE.search(text), _INSTANCE_ANYWHERE.search(text)
            gpu = _group(found_gpu, "gpu") if found_gpu else None
            instance = _group(found_inst, "inst") if found_inst else None
        return GpuTime(amount, "day", gpu, instance)
    return None
