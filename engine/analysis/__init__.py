"""Reading stored runs, no framework: comparisons between runs (`compare.py`, and what a
comparison could detect, `sensitivity.py`), noise floors from calibrations and the history
(`calibration.py`), the history's priors for a run (`history_prior.py`), sweep scaling fits
(`scaling.py`), the ceiling a run settles on and the machine's best within the hour
(`ceiling.py`, `session_ceiling.py`), ceilings that moved (`ceiling_drift.py`), and steps over
time (`change_points.py`)."""
