"""Model -> grade: the equivalence rules (`norms`), argument comparison (`compare`), matching call
sequences (`trajectory`), effect assertions (`effects`), and one run's verdicts with their
explanation (`grader`)."""
