"""The request's edges, shared by every face: security headers, body limits, rate limits, request logs, the one mapping
of errors to problem+json or pages, form helpers, the PWA shell and service worker, the OpenAPI `Api` and the base
schema and fields every package's schemas build on.
"""
