"""[providers.aws]: what the AWS sources crawl, beyond the regions.

Both AWS sources (`aws`, `aws-reserved`) read this table; each spider takes
the settings it knows and ignores the rest."""

from __future__ import annotations

from pydantic import Field

from tracker.config import ProviderSettings


class AwsSettings(ProviderSettings):
    operating_systems: list[str] = Field(
        default_factory=lambda: ["Linux", "Windows"],
        description="on-demand tables to read, named as the pricing page names them: Linux, Windows, RHEL, "
                    "SUSE, Ubuntu Pro, 'Windows with SQL Std' ...")
    location_types: list[str] = Field(
        default_factory=lambda: ["AWS Region"],
        description="when no regions are set, the kinds of location to crawl: 'AWS Region', 'AWS Local Zone', "
                    "'AWS Wavelength Zone'")
    spot: bool = Field(True, description="read the spot price feed")
    spot_advisor: bool = Field(True, description="attach the Spot Instance Advisor's interruption rates")
    reserved_regions: list[str] | None = Field(
        None, description="regions whose bulk offer files aws-reserved reads, when no regions are set "
                          "(each file is over 1 GB)")
    convertible: bool = Field(True, description="aws-reserved: keep convertible reservations besides standard")
