"""Reading stored runs: comparisons between runs and sweep scaling analysis. No frameworks."""
