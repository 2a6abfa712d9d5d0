"""TODO planning."""
