"""What a bill holds beyond the GPU's own price (issue 42): `spot_risk.py`,
the expected cost of spot interruptions from the bands providers state."""
