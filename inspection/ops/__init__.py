"""TODO ops."""
