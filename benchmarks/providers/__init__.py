"""The providers' big inputs, generated, and the benchmarks that read them:
AWS's offer files, pricing pages and Savings Plans files, an Azure region's
retail prices (`python -m benchmarks aws azure`)."""
