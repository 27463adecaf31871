"""scripts/report's modules: what kunit.py reported (results), what the
console shows (console), what the sources define (expected), the counts and
summary.md (summary) and the review table of mm_pin_transition (table)."""
