"""What every capability stands on: the extension objects, configuration layers, the office's clock (the one place that
reads the time), the issuing office, the database records, domain errors, the audit trail, once-only writes keyed by
client_id and per-process read caches.
"""
