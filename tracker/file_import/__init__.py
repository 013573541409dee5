"""`gpu-tracker import`: files of price rows read, validated and stored as one run."""
