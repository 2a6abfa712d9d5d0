"""TODO accounts."""
