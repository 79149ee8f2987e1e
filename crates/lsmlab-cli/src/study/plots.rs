//! Plots of a study (filled in by the next step).
