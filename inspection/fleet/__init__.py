"""TODO fleet."""
