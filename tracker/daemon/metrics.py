"""Prometheus metrics and the /healthz answer of `gpu-tracker daemon --metrics-port`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

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
        self.up = Gauge("gpu_tracker_scheduler_up", "1 while the scheduler runs", registry=r)


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
