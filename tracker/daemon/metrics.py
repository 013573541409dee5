"""Prometheus metrics and the /healthz answer of `gpu-tracker daemon --metrics-port`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from tracker.daemon.health import Backlog

# The outcomes a run is counted under from the start (others appear when they happen).
_STATUSES = ("ok", "failed", "quarantined", "aborted", "store_error")
_OUTBOX_STATES = ("pending", "sending", "sent", "dead")

log = logging.getLogger(__name__)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.crawls = Counter(
            "gpu_tracker_crawls", "Crawl runs by source and final status", ["source", "status"], registry=r
        )
        self.crawl_seconds = Histogram(
            "gpu_tracker_crawl_duration_seconds",
            "Wall time of a crawl run",
            ["source", "status"],
            registry=r,
            buckets=(1, 2, 5, 10, 30, 60, 120, 300, 600, 900, 1800),
        )
        self.items = Histogram(
            "gpu_tracker_crawl_items",
            "Raw items a crawl run found",
            ["source"],
            registry=r,
            buckets=(0, 10, 100, 500, 1000, 5000, 10000, 50000, 100000),
        )
        self.changes = Counter("gpu_tracker_changes", "Changes recorded, by kind", ["kind"], registry=r)
        self.last_success = Gauge(
            "gpu_tracker_source_last_success_timestamp_seconds",
            "When the source last completed a run",
            ["source"],
            registry=r,
        )
        self.outbox_depth = Gauge("gpu_tracker_outbox_depth", "Outbox rows by state", ["state"], registry=r)
        self.delivery_failures = Counter(
            "gpu_tracker_delivery_failures", "Failed delivery attempts by channel", ["channel"], registry=r
        )
        self.deliveries = Counter("gpu_tracker_deliveries", "Outbox rows handled, by outcome", ["outcome"], registry=r)
        self.skipped = Counter(
            "gpu_tracker_crawls_skipped",
            "Scheduled crawls skipped because another process was crawling the source",
            ["source"],
            registry=r,
        )
        self.outbox_oldest = Gauge(
            "gpu_tracker_outbox_oldest_pending_seconds",
            "Age of the oldest alert waiting to be sent (0: none waits)",
            registry=r,
        )
        self.outbox_dead = Gauge(
            "gpu_tracker_outbox_dead_letters", "Alerts given up on, until `alerts retry`", ["channel"], registry=r
        )
        self.up = Gauge("gpu_tracker_scheduler_up", "1 while the scheduler runs", registry=r)

    def start(self, sources: Sequence[str], channels: Sequence[str], kinds: Sequence[str]) -> None:
        """Every series a dashboard or alert rule reads, at zero, before the
        first event: a rate over a counter that does not exist yet is empty."""
        for source in sources:
            self.skipped.labels(source)
            self.items.labels(source)
            for status in _STATUSES:
                self.crawls.labels(source, status)
                self.crawl_seconds.labels(source, status)
        for kind in kinds:
            self.changes.labels(kind)
        for channel in channels:
            self.delivery_failures.labels(channel)
            self.outbox_dead.labels(channel).set(0)
        for outcome in ("sent", "failed", "dead"):
            self.deliveries.labels(outcome)
        for state in _OUTBOX_STATES:
            self.outbox_depth.labels(state).set(0)
        self.outbox_oldest.set(0)

    def observe_backlog(self, backlog: Backlog, now: datetime) -> None:
        for state in _OUTBOX_STATES:
            self.outbox_depth.labels(state).set(backlog.by_state.get(state, 0))
        oldest = backlog.oldest_pending
        self.outbox_oldest.set(max(0.0, (now - oldest).total_seconds()) if oldest else 0)
        for channel, states in backlog.channels.items():
            self.outbox_dead.labels(channel).set(states.get("dead", 0))


def serve_metrics(
    metrics: Metrics, port: int, healthy: Callable[[], bool], host: str = "0.0.0.0"
) -> ThreadingHTTPServer:
    """/metrics (Prometheus text format) and /healthz (200 while `healthy()`, else 503)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(200, generate_latest(metrics.registry), CONTENT_TYPE_LATEST)
            elif path == "/healthz":
                alive = healthy()
                self._send(200 if alive else 503, b"ok\n" if alive else b"scheduler not running\n")
            else:
                self._send(404, b"not found: try /metrics or /healthz\n")

        def _send(self, status: int, body: bytes, ctype: str = "text/plain; charset=utf-8") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    log.info("metrics on http://%s:%d/metrics, health on /healthz", host, server.server_port)
    return server
