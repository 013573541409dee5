"""Alerts: rules, rendering and the delivery outbox. Imports only db."""
