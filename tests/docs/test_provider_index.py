"""A provider's whole story is findable: every registered source (offers and
`-api` sources included) has what docs/contributing.md's "Adding a provider"
lists, and this test fails on the first place it lacks.
"""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tracker.config.settings import Config, api_key_env
from tracker.sources import SOURCES, Source

ROOT = Path(__file__).parents[2]
CAPTURES = ROOT / "tracker" / "demo_captures"
NAMES = sorted(SOURCES)


def _names(name: str, text: str) -> bool:
    """`text` names the source `name` as a word (`aws` is not named by `aws-offers`)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def _source(name: str) -> Source:
    return SOURCES[name]


@pytest.mark.parametrize("name", NAMES)
def test_docs_page_names_the_source(name: str) -> None:
    source = _source(name)
    page = ROOT / "docs" / "providers" / f"{source.provider}.md"
    assert page.exists(), f"{name}: no docs page {page.relative_to(ROOT)}"
    assert _names(name, page.read_text(encoding="utf-8")), f"{name}: not named in {page.relative_to(ROOT)}"
    # The providers table (generated from the registry) links the page, and the README links the table.
    table = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    assert f"(providers/{source.provider}.md)" in table, f"{source.provider}: docs/providers.md does not link its page"
    assert "(docs/providers.md)" in (ROOT / "README.md").read_text(encoding="utf-8"), (
        "README does not link docs/providers.md"
    )
    if source.kind == "offers":
        offers = (ROOT / "docs" / "offers.md").read_text(encoding="utf-8")
        assert f"| `{name}` |" in offers, f"{name}: not in the table of docs/offers.md"
    if name.endswith("-api"):
        china = (ROOT / "docs" / "providers" / "china-api.md").read_text(encoding="utf-8")
        assert f"| `{name}` |" in china, f"{name}: not in the table of docs/providers/china-api.md"


@pytest.mark.parametrize("name", [n for n in NAMES if SOURCES[n].kind == "prices"])
def test_price_source_has_a_spec_table(name: str) -> None:
    table = ROOT / "tracker" / "normalize" / "gpu_specs" / f"{_source(name).provider}.csv"
    assert table.exists(), f"{name}: no GPU spec table {table.relative_to(ROOT)}"
    rows = [line for line in table.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    assert rows, f"{name}: {table.relative_to(ROOT)} has no rows"


@pytest.mark.parametrize("name", NAMES)
def test_demo_captures_with_their_provenance_note(name: str) -> None:
    folder = CAPTURES / name
    captures = sorted(folder.glob("*.har.gz"))
    assert len(captures) >= 2, f"{name}: the demo needs two captures a month apart in {folder.relative_to(ROOT)}"
    note = folder / "README.md"
    assert note.exists(), f"{name}: no README.md beside its demo captures saying where they come from"
    text = note.read_text(encoding="utf-8")
    # A note names each capture (its date), or the script that writes them all and says so in its docstring.
    writers = [w for w in re.findall(r"`([\w/.-]+\.py)`", text) if (ROOT / w).exists()]
    for capture in captures:
        day = capture.name[:10]
        assert day in text or writers, f"{name}: {note.relative_to(ROOT)} says nothing of {capture.name}"


@pytest.mark.parametrize("name", NAMES)
def test_deploy_files_name_the_source(name: str) -> None:
    source = _source(name)
    cronjobs = (ROOT / "deploy" / "k8s" / "cronjobs.yaml").read_text(encoding="utf-8")
    # A CronJob for each source the daemon crawls by default: its evidence more than assumed.
    if source.crawled_by_default:
        assert f'"crawl", "{name}"' in cronjobs, f"{name}: no CronJob; regenerate deploy/k8s/cronjobs.yaml"
    else:
        assert f'"crawl", "{name}"' not in cronjobs, f"{name}: not crawled by default; regenerate the CronJobs"
    if source.needs_api_key:
        secret = (ROOT / "deploy" / "k8s" / "secret.yaml").read_text(encoding="utf-8")
        for key in Config().provider(source.provider).missing_keys():
            variable = api_key_env(source.provider, key)
            assert f"{variable}:" in secret, f"{name}: deploy/k8s/secret.yaml lacks {variable}"


def _external_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found - {"spiders", "tracker", "db", "alerts"}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith("-api")])
def test_api_source_sdks_are_in_the_china_extra(name: str) -> None:
    """What an official-API source imports beyond the standard library and our
    core dependencies is declared in the `china` extra, with bounds."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = _requirement_names(project["dependencies"])
    china = _requirement_names(project["optional-dependencies"]["china"])
    package = ROOT / "spiders" / _source(name).provider
    distributions = packages_distributions()
    sdk = getattr(_source(name).spider, "sdk_module", "")
    assert sdk, f"{name}: its spider names no sdk_module"
    modules = {sdk.split(".")[0]}
    for module in ("api.py", "api_pages.py"):
        if (package / module).exists():
            modules |= _external_imports(package / module)
    for module in sorted(modules):
        if module in distributions:  # the standard library has no distribution
            provided = {d.lower().replace("_", "-") for d in distributions[module]}
            assert provided & (core | china), f"{name} imports {module} ({sorted(provided)}): add it to the china extra"
    unbounded = [r for r in project["optional-dependencies"]["china"] if ">=" not in r or "<" not in r]
    assert not unbounded, f"the china extra's requirements need lower and upper bounds: {unbounded}"


def test_provider_fixture_folders_say_where_their_files_come_from() -> None:
    """A folder of captures under tests/fixtures/ for a provider or source has its note."""
    known = set(SOURCES) | {s.provider for s in SOURCES.values()}
    lacking = []
    for folder in sorted((ROOT / "tests" / "fixtures").iterdir()):
        data = [p for p in folder.glob("*") if p.suffix in {".har", ".gz", ".json", ".html"}]
        if folder.name in known and data and not (folder / "README.md").exists():
            lacking.append(folder.name)
    assert not lacking, f"tests/fixtures folders without a README.md saying where their files come from: {lacking}"
