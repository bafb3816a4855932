"""Statistics helpers: bootstrap resampling, paired tests, rankings and rank agreement."""
