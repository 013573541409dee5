"""The China clouds' official APIs, signed with each provider's own SDK and
sent through Scrapy, so that --record and --replay work as for every source.
The SDKs are the `china` extra; they are imported only here and in tests."""
