"""TODO inspections."""
