"""The answers that rank options by what they cost: `compare` (one GPU
model's current prices), `tco` (a job's cost over a horizon under a mix of
price models) and `recommend` (from a job's needs to the options that meet
them)."""
