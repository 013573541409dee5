"""Scrapy spiders, one per provider. This package imports nothing of ours."""
